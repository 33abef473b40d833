// UdpSocket over real loopback sockets (no root needed), plus a fake kernel for the
// offload fallbacks: checklist gso-gro.md cases 36 (EIO fallback) and 37 (recvmmsg tail
// layout).
#include "transport/udp_socket.h"

#include <poll.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace qeli::transport {
namespace {

UdpOptions loopback_options(std::vector<std::string>* log = nullptr) {
  UdpOptions o;
  o.bind = SockAddr::ipv4(0x7f000001, 0);
  o.log = [log](std::string_view line) {
    if (log) log->emplace_back(line);
  };
  return o;
}

UdpSocket open_or_die(const UdpOptions& o, UdpKernel& k = linux_udp_kernel()) {
  auto s = UdpSocket::open(o, k);
  if (!s.ok()) {
    ADD_FAILURE() << s.error().detail;
    std::abort();
  }
  return std::move(*s);
}

// Receive slots backed by one buffer; the last kGroRecvSlots are GRO-sized.
struct SlotArray {
  explicit SlotArray(std::size_t n, std::size_t cap = kGroReadSize) : mem(n * cap), slots(n) {
    for (std::size_t i = 0; i < n; ++i) slots[i] = RecvSlot::over(mem.data() + i * cap, cap);
  }
  std::vector<std::uint8_t> mem;
  std::vector<RecvSlot> slots;
};

std::vector<std::uint8_t> datagram(std::size_t len, std::uint32_t tag) {
  std::vector<std::uint8_t> d(len);
  for (std::size_t i = 0; i < len; ++i) d[i] = static_cast<std::uint8_t>(tag * 31 + i);
  if (len >= 4) std::memcpy(d.data(), &tag, 4);
  return d;
}

// Receives until `want` datagrams arrived (or 2 s of silence); returns them in order.
std::vector<std::vector<std::uint8_t>> receive_n(UdpSocket& s, std::size_t want,
                                                 std::vector<SockAddr>* from = nullptr) {
  std::vector<std::vector<std::uint8_t>> got;
  SlotArray slots(128);
  while (got.size() < want) {
    auto n = s.recv(slots.slots);
    if (!n.ok()) {
      EXPECT_EQ(n.error(), UdpError::kWouldBlock);
      pollfd p{s.fd(), POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) break;
      continue;
    }
    for (std::size_t i = 0; i < *n; ++i) {
      got.emplace_back(slots.slots[i].data, slots.slots[i].data + slots.slots[i].len);
      if (from) from->push_back(slots.slots[i].from);
    }
  }
  return got;
}

struct Flow {
  std::vector<std::vector<std::uint8_t>> data;
  std::vector<OutDatagram> out;
  void build(const std::vector<std::size_t>& lens, const SockAddr& to) {
    data.clear();
    out.clear();
    for (std::size_t i = 0; i < lens.size(); ++i)
      data.push_back(datagram(lens[i], std::uint32_t(i)));
    for (auto& d : data) out.push_back({d.data(), d.size(), &to});
  }
};

class UdpLoopback : public ::testing::TestWithParam<bool> {};

TEST_P(UdpLoopback, BatchesArriveIntactAndInOrder) {
  const bool offload = GetParam();
  UdpOptions o = loopback_options();
  o.tx_offload = offload;
  o.rx_offload = offload;
  UdpSocket a = open_or_die(o);
  UdpSocket b = open_or_die(o);
  EXPECT_EQ(a.capabilities().tx_gso, offload);
  EXPECT_EQ(b.capabilities().rx_gro, offload);
  const SockAddr to = b.local_address();
  ASSERT_TRUE(to.is_set());

  // 1 datagram, then 100 equal ones with a short tail, then mixed sizes.
  std::vector<std::size_t> lens = {700};
  for (int i = 0; i < 100; ++i) lens.push_back(1200);
  lens.push_back(300);
  for (int i = 0; i < 20; ++i) lens.push_back(100 + 37 * static_cast<std::size_t>(i));
  Flow f;
  f.build(lens, to);
  const UdpSendReport rep = a.send(f.out);
  EXPECT_EQ(rep.sent, lens.size());
  EXPECT_EQ(rep.dropped, 0u);
  EXPECT_FALSE(rep.would_block);
  if (offload) {
    EXPECT_GE(a.counters().send_gso_messages, 2u);  // 100 x 1200 needs two (64 max)
    EXPECT_LT(a.counters().send_messages, lens.size());
  } else {
    EXPECT_EQ(a.counters().send_gso_messages, 0u);
    EXPECT_EQ(a.counters().send_messages, lens.size());
  }
  std::vector<SockAddr> from;
  const auto got = receive_n(b, lens.size(), &from);
  ASSERT_EQ(got.size(), lens.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], f.data[i]) << "datagram " << i;
    ASSERT_EQ(from[i], a.local_address());
  }
  EXPECT_EQ(b.counters().recv_datagrams, lens.size());
  // Loopback hands a GSO message to a GRO socket as one read (reference §3.3).
  if (offload) {
    EXPECT_GE(b.counters().recv_gro_reads, 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Offload, UdpLoopback, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "on" : "off";
                         });

TEST(UdpSocket, EmsgsizeIsReportedAsAValueAndTheRestStillGoesOut) {
  UdpSocket a = open_or_die(loopback_options());
  UdpSocket b = open_or_die(loopback_options());
  const SockAddr to = b.local_address();
  Flow f;
  f.build({100, kMaxUdpPayloadV4 + 1, 100}, to);
  const UdpSendReport rep = a.send(f.out);
  EXPECT_EQ(rep.sent, 3u);
  EXPECT_EQ(rep.dropped, 1u);
  EXPECT_EQ(rep.emsgsize, 1u);
  EXPECT_EQ(rep.last_errno, EMSGSIZE);
  EXPECT_EQ(a.counters().drop_emsgsize, 1u);
  const auto got = receive_n(b, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], f.data[0]);
  EXPECT_EQ(got[1], f.data[2]);
}

TEST(UdpSocket, RejectsBadOptions) {
  UdpOptions o = loopback_options();
  o.recv_buffer = kUdpMaxBuffer + 1;
  EXPECT_EQ(UdpSocket::open(o).error().code, UdpError::kBadConfig);
  o = loopback_options();
  o.max_batch = 0;
  EXPECT_EQ(UdpSocket::open(o).error().code, UdpError::kBadConfig);
}

TEST(UdpSocket, GroNeedsLargeTailSlots) {
  UdpSocket b = open_or_die(loopback_options());
  if (!b.capabilities().rx_gro) GTEST_SKIP() << "kernel without UDP_GRO";
  SlotArray small(8, 2048);
  auto r = b.recv(small.slots);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), UdpError::kSlotsTooSmall);
}

// Fake kernel: the real syscalls, with sendmmsg/recvmmsg observed and optionally failed.
class ObservingKernel : public LinuxUdpKernel {
 public:
  struct Sent {
    std::size_t iovs;
    std::uint16_t gso;
  };
  int sendmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) override {
    bool has_gso = false;
    for (unsigned i = 0; i < count; ++i) has_gso |= msgs[i].msg_hdr.msg_controllen != 0;
    if (has_gso && eio_on_gso > 0) {
      --eio_on_gso;
      return -EIO;
    }
    const int r = LinuxUdpKernel::sendmmsg(fd, msgs, count, flags);
    for (int i = 0; i < r; ++i) {
      const msghdr& m = msgs[i].msg_hdr;
      std::uint16_t gso = 0;
      if (m.msg_controllen != 0) std::memcpy(&gso, CMSG_DATA(CMSG_FIRSTHDR(&m)), 2);
      sent.push_back({m.msg_iovlen, gso});
    }
    return r;
  }
  int recvmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) override {
    recv_count = count;
    recv_iov.clear();
    for (unsigned i = 0; i < count; ++i) recv_iov.push_back(*msgs[i].msg_hdr.msg_iov);
    return LinuxUdpKernel::recvmmsg(fd, msgs, count, flags);
  }
  int eio_on_gso = 0;
  std::vector<Sent> sent;
  unsigned recv_count = 0;
  std::vector<iovec> recv_iov;
};

// Case 36.
TEST(UdpSocket, EioOnAGsoSendDisablesOffloadAndResendsInOrder) {
  ObservingKernel k;
  k.eio_on_gso = 1;
  std::vector<std::string> log;
  UdpSocket a = open_or_die(loopback_options(&log), k);
  if (!a.capabilities().tx_gso) GTEST_SKIP() << "kernel without UDP_SEGMENT";
  UdpSocket b = open_or_die(loopback_options());
  const SockAddr to = b.local_address();
  log.clear();
  Flow f;
  f.build(std::vector<std::size_t>(10, 500), to);
  const UdpSendReport rep = a.send(f.out);
  EXPECT_EQ(rep.sent, 10u);
  EXPECT_EQ(rep.dropped, 0u);
  EXPECT_TRUE(rep.gso_disabled);
  EXPECT_FALSE(a.capabilities().tx_gso);
  EXPECT_EQ(a.counters().gso_fallbacks, 1u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("GSO"), std::string::npos);
  ASSERT_EQ(k.sent.size(), 10u);
  for (const auto& s : k.sent) EXPECT_EQ(s.gso, 0) << "resent uncoalesced";
  const auto got = receive_n(b, 10);
  ASSERT_EQ(got.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(got[i], f.data[i]);
  // Later sends never use GSO, and nothing more is logged.
  k.sent.clear();
  EXPECT_EQ(a.send(f.out).sent, 10u);
  ASSERT_EQ(k.sent.size(), 10u);
  for (const auto& s : k.sent) EXPECT_EQ(s.gso, 0);
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(receive_n(b, 10).size(), 10u);
}

// Case 37.
TEST(UdpSocket, GroReceiveGivesTheKernelOnlyTheLastTwoSlots) {
  ObservingKernel k;
  UdpSocket b = open_or_die(loopback_options(), k);
  if (!b.capabilities().rx_gro) GTEST_SKIP() << "kernel without UDP_GRO";
  SlotArray slots(128);
  auto r = b.recv(slots.slots);
  EXPECT_FALSE(r.ok());  // nothing sent yet
  ASSERT_EQ(k.recv_count, 2u);
  ASSERT_EQ(k.recv_iov.size(), 2u);
  EXPECT_EQ(k.recv_iov[0].iov_base, slots.slots[126].data);
  EXPECT_EQ(k.recv_iov[1].iov_base, slots.slots[127].data);
  EXPECT_GE(k.recv_iov[0].iov_len, 65535u);
  EXPECT_GE(k.recv_iov[1].iov_len, 65535u);

  UdpOptions no_gro = loopback_options();
  no_gro.rx_offload = false;
  UdpSocket c = open_or_die(no_gro, k);
  EXPECT_FALSE(c.recv(slots.slots).ok());
  EXPECT_EQ(k.recv_count, 128u);
}

TEST(UdpSocket, ReusePortLetsWorkersShareAPort) {
  UdpOptions o = loopback_options();
  o.reuse_port = true;
  UdpSocket w1 = open_or_die(o);
  o.bind = w1.local_address();
  auto w2 = UdpSocket::open(o);
  ASSERT_TRUE(w2.ok()) << w2.error().detail;
  EXPECT_EQ(w2->local_address(), w1.local_address());
  o.reuse_port = false;
  EXPECT_FALSE(UdpSocket::open(o).ok());
}

}  // namespace
}  // namespace qeli::transport

namespace qeli::transport {
namespace {

// The trial: a server on the wildcard address answered from its primary address when the
// client dialed another of its addresses, and the client ignored the replies. With
// pktinfo the reply leaves from the address the client contacted (127.0.0.2 here, any
// loopback address reaches the wildcard socket), also as a GSO batch.
TEST(UdpSocket, WildcardServerRepliesFromTheAddressTheClientContacted) {
  UdpOptions so;
  so.bind = SockAddr::ipv4(0, 0);
  so.pktinfo = true;
  so.log = [](std::string_view) {};
  UdpSocket server = open_or_die(so);
  ASSERT_TRUE(server.capabilities().pktinfo);
  const std::uint16_t port = server.local_address().port();
  UdpSocket client = open_or_die(loopback_options());
  const SockAddr dialed = SockAddr::ipv4(0x7f000002, port);
  const auto hello = datagram(100, 1);
  const OutDatagram out{hello.data(), hello.size(), &dialed};
  ASSERT_EQ(client.send({&out, 1}).sent, 1U);
  std::vector<SockAddr> from;
  ASSERT_EQ(receive_n(server, 1, &from).size(), 1U);
  EXPECT_EQ(from[0].local_v4, htonl(0x7f000002)) << "the address the client sent to";

  // The reply (three datagrams: a GSO message where the kernel offers it) to that peer.
  Flow f;
  f.build({300, 300, 300}, from[0]);
  ASSERT_EQ(server.send(f.out).sent, 3U);
  std::vector<SockAddr> seen;
  ASSERT_EQ(receive_n(client, 3, &seen).size(), 3U);
  for (const auto& a : seen) EXPECT_EQ(a, dialed) << a.to_string() << " instead of 127.0.0.2";

  // Without pktinfo the kernel picks the source: 127.0.0.1 for a loopback client.
  so.pktinfo = false;
  UdpSocket plain = open_or_die(so);
  EXPECT_FALSE(plain.capabilities().pktinfo);
}

// The same on the IPv6 wildcard (IPV6_RECVPKTINFO / IPV6_PKTINFO): the datagram names the
// address it was sent to, and the reply leaves from it.
TEST(UdpSocket, Ipv6WildcardServerLearnsAndRepliesFromTheDialedAddress) {
  UdpOptions so;
  so.bind = *SockAddr::parse_ip("::", 0);
  so.pktinfo = true;
  so.log = [](std::string_view) {};
  UdpSocket server = open_or_die(so);
  ASSERT_TRUE(server.capabilities().pktinfo);
  const std::uint16_t port = server.local_address().port();
  UdpOptions co;
  co.bind = *SockAddr::parse_ip("::1", 0);
  co.log = [](std::string_view) {};
  UdpSocket client = open_or_die(co);
  const SockAddr dialed = *SockAddr::parse_ip("::1", port);
  const auto hello = datagram(100, 1);
  const OutDatagram out{hello.data(), hello.size(), &dialed};
  ASSERT_EQ(client.send({&out, 1}).sent, 1U);
  std::vector<SockAddr> from;
  ASSERT_EQ(receive_n(server, 1, &from).size(), 1U);
  EXPECT_EQ(from[0].ip_string(), "::1");
  ASSERT_TRUE(from[0].local_v6_set);
  EXPECT_TRUE(IN6_IS_ADDR_LOOPBACK(&from[0].local_v6));
  const OutDatagram reply{hello.data(), hello.size(), &from[0]};
  ASSERT_EQ(server.send({&reply, 1}).sent, 1U);
  std::vector<SockAddr> seen;
  ASSERT_EQ(receive_n(client, 1, &seen).size(), 1U);
  EXPECT_EQ(seen[0], dialed);
}

}  // namespace
}  // namespace qeli::transport
