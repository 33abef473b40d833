// Real TUN devices (root; ctest label `privileged`). Every test creates its own anonymous
// network namespaces, so nothing leaks into the host and cleanup is automatic.
// Checklist 16, 25, 30, 31, 32 against the running kernel.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <tuple>

#include "fakes/netns.h"
#include "fakes/packet_builder.h"
#include "fakes/tun_relay.h"
#include "sys/link_netlink.h"
#include "tunio/linux_tun.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using qeli::test::PacketBytes;

#define REQUIRE_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (CI runs privileged tests as root)"

// Opens a TUN in the current netns and gives it an address (and optionally an IPv6 one),
// MTU and link up.
LinuxTun open_tun(TunConfig c, const char* cidr, std::uint32_t mtu = 1420,
                  const char* cidr6 = nullptr) {
  c.log = [](std::string_view) {};
  auto tun = LinuxTun::open(c);
  if (!tun.ok()) {
    ADD_FAILURE() << tun.error().detail;
    std::abort();
  }
  auto nl = sys::LinkNetlink::open();
  EXPECT_TRUE(nl.ok());
  EXPECT_TRUE(nl->set_mtu(tun->name(), mtu).ok());
  auto a = nl->add_address(tun->name(), cidr);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().detail);
  if (cidr6) {
    auto a6 = nl->add_address(tun->name(), cidr6, /*skip_dad=*/true);
    EXPECT_TRUE(a6.ok()) << (a6.ok() ? "" : a6.error().detail);
  }
  EXPECT_TRUE(nl->set_link_up(tun->name()).ok());
  return std::move(*tun);
}

PacketBytes udp_to(std::size_t payload, std::uint8_t seed, std::uint16_t dport) {
  qeli::test::PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.payload_seed = seed;
  s.src = {10, 8, 0, 2};
  s.dst = {10, 8, 0, 1};
  s.sport = 7;
  s.dport = dport;
  return qeli::test::build_packet(s);
}

TEST(LinuxTunPrivileged, OpensWithOffloadsAndQueues) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  ASSERT_TRUE(in.ok());
  TunConfig c;
  c.name = "qt%d";
  c.queues = 2;
  auto tun = open_tun(c, "10.8.0.1/24");
  EXPECT_TRUE(tun.capabilities().vnet_hdr);
  EXPECT_TRUE(tun.capabilities().tso);
  EXPECT_TRUE(tun.capabilities().uso);  // Linux >= 6.2
  EXPECT_EQ(tun.queue_count(), 2u);
  EXPECT_NE(tun.fd(0), tun.fd(1));
  EXPECT_GE(fcntl(tun.fd(1), F_GETFL) & O_NONBLOCK, 1);
  auto nl = sys::LinkNetlink::open();
  ASSERT_TRUE(nl.ok());
  auto running = nl->is_link_running(tun.name());
  ASSERT_TRUE(running.ok());
  EXPECT_TRUE(*running);
  EXPECT_EQ(*nl->mtu(tun.name()), 1420u);
}

// A second open of a device that exists must fail (IFF_TUN_EXCL) rather than attach as
// one more queue of it, which would let a second client take over the first one's
// interface.
TEST(LinuxTunPrivileged, SecondOpenOfTheSameNameIsRefused) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  ASSERT_TRUE(in.ok());
  TunConfig c;
  c.name = "qtexcl0";
  c.log = [](std::string_view) {};
  auto first = LinuxTun::open(c);
  ASSERT_TRUE(first.ok()) << first.error().detail;
  auto second = LinuxTun::open(c);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, TunError::setiff_failed);
  EXPECT_NE(second.error().detail.find("already exists"), std::string::npos)
      << second.error().detail;
  EXPECT_EQ(second.error().detail, tun_name_taken("qtexcl0"));
  // Once the first is gone (a non-persistent device goes with its last queue), the name
  // is free again.
  *first = LinuxTun::open(TunConfig{.name = "qtexcl1", .log = c.log}).value();
  auto third = LinuxTun::open(c);
  EXPECT_TRUE(third.ok()) << third.error().detail;
}

// Checklist 32: the kernel's TUNSETOFFLOAD rules our two-step negotiation relies on.
TEST(LinuxTunPrivileged, KernelOffloadRules) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  const int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct ifreq ifr {};
  std::strcpy(ifr.ifr_name, "qtrules");
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
  ASSERT_EQ(::ioctl(fd, TUNSETIFF, &ifr), 0);
  EXPECT_EQ(::ioctl(fd, TUNSETOFFLOAD, kTunFTso4), -1);  // TSO without CSUM
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(::ioctl(fd, TUNSETOFFLOAD, kTunFCsum | kTunFUso4), -1);  // USO4 alone
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(::ioctl(fd, TUNSETOFFLOAD, kTunFCsum | kTunFTso4 | kTunFTso6), 0);
  EXPECT_EQ(::ioctl(fd, TUNSETOFFLOAD, 0x67), 0);
  ::close(fd);
}

// Checklist 16 + 25: our GRO output is accepted by the kernel and delivered intact.
TEST(LinuxTunPrivileged, CoalescedWritesAreAcceptedAndDelivered) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  auto tun = open_tun({}, "10.8.0.1/24");
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(6000);
  a.sin_addr.s_addr = htonl(0x0a080001);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  timeval tv{2, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

  PacketBatch b(128, 65535);
  for (std::uint8_t i = 0; i < 5; ++i) ASSERT_TRUE(b.push(udp_to(100, i, 6000)));
  auto w = tun.write_batch(0, b);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->syscalls, 1u);  // one GSO write
  EXPECT_EQ(w->logical_written, 5u);
  EXPECT_EQ(w->last_errno, 0);
  for (std::uint8_t i = 0; i < 5; ++i) {
    std::uint8_t buf[2000];
    const ssize_t n = ::recv(s, buf, sizeof buf, 0);
    ASSERT_EQ(n, 100) << "datagram " << int(i);
    auto expect = udp_to(100, i, 6000);
    EXPECT_EQ(0, std::memcmp(buf, expect.data() + 28, 100));
  }

  // 130 datagrams of one flow: groups never exceed the cap, every write accepted.
  for (std::size_t cap : {64u, 128u}) {
    TunConfig c;
    c.name = "qcap" + std::to_string(cap);
    c.max_udp_segments = cap;
    c.max_batch = 130;
    auto capped = open_tun(c, cap == 64 ? "10.8.64.1/24" : "10.8.128.1/24");
    PacketBatch many(130, 65535);
    for (int i = 0; i < 130; ++i) ASSERT_TRUE(many.push(udp_to(100, 1, 6001)));
    auto w2 = capped.write_batch(0, many);
    ASSERT_TRUE(w2.ok());
    EXPECT_EQ(w2->last_errno, 0) << "cap " << cap;
    EXPECT_EQ(w2->logical_written, 130u);
    EXPECT_EQ(w2->syscalls, (130 + cap - 1) / cap);
  }

  // Two coalesced TCP segments (no listener: the kernel answers RST, but accepts).
  b.clear();
  qeli::test::PacketSpec t;
  t.src = {10, 8, 0, 2};
  t.dst = {10, 8, 0, 1};
  ASSERT_TRUE(b.push(qeli::test::build_packet(t)));
  t.seq = 101;
  ASSERT_TRUE(b.push(qeli::test::build_packet(t)));
  auto w3 = tun.write_batch(0, b);
  ASSERT_TRUE(w3.ok());
  EXPECT_EQ(w3->syscalls, 1u);
  EXPECT_EQ(w3->last_errno, 0);
  ::close(s);
}

// Checklist 31: headers the kernel rejects with EINVAL (written raw, bypassing our gate,
// which would have refused them), and 129 UDP segments.
TEST(LinuxTunPrivileged, KernelRejectionTable) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  auto tun = open_tun({}, "10.8.0.1/24");
  auto raw_write = [&](const VnetHdr& h, const PacketBytes& p) {
    std::uint8_t hb[kVnetHdrLen];
    encode_vnet_hdr(h, hb);
    iovec iov[2] = {{hb, sizeof hb}, {const_cast<std::uint8_t*>(p.data()), p.size()}};
    const ssize_t n = ::writev(tun.fd(0), iov, 2);
    return n < 0 ? errno : 0;
  };
  qeli::test::PacketSpec u;
  u.proto = 17;
  u.payload = 500;
  u.src = {10, 8, 0, 2};
  u.dst = {10, 8, 0, 1};
  u.partial_csum = true;
  auto up = qeli::test::build_packet(u);
  qeli::test::PacketSpec t = u;
  t.proto = 6;
  auto tp = qeli::test::build_packet(t);
  EXPECT_EQ(raw_write({1, 5, 28, 100, 20, 6}, up), 0);        // the valid one
  EXPECT_EQ(raw_write({0, 5, 28, 100, 20, 6}, up), EINVAL);   // UDP_L4 without NEEDS_CSUM
  EXPECT_EQ(raw_write({1, 5, 28, 100, 20, 16}, up), EINVAL);  // UDP_L4 csum_offset 16
  EXPECT_EQ(raw_write({1, 1, 40, 0, 20, 16}, tp), EINVAL);    // gso_size 0
  EXPECT_EQ(raw_write({1, 4, 40, 100, 20, 16}, tp), EINVAL);  // TCPV6 on IPv4
  EXPECT_EQ(raw_write({1, 0, 600, 0, 20, 16}, tp), EINVAL);   // hdr_len > length
  EXPECT_EQ(raw_write({1, 0, 0, 0, 20, 600}, tp), EINVAL);    // csum beyond the end
  u.payload = 129 * 10;
  EXPECT_EQ(raw_write({1, 5, 28, 10, 20, 6}, qeli::test::build_packet(u)), EINVAL);
  u.payload = 128 * 10;
  EXPECT_EQ(raw_write({1, 5, 28, 10, 20, 6}, qeli::test::build_packet(u)), 0);
  // Our gate refuses all of those before the kernel sees them.
  EXPECT_FALSE(validate_offload({0, 5, 28, 100, 20, 6}, up).ok());
  EXPECT_FALSE(validate_offload({1, 5, 28, 100, 20, 16}, up).ok());
  EXPECT_FALSE(validate_offload({1, 4, 40, 100, 20, 16}, tp).ok());
}

// A down link answers EIO: the error is surfaced, the batch is not stalled.
TEST(LinuxTunPrivileged, WriteToDownLinkSurfacesEio) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  TunConfig c;
  c.log = [](std::string_view) {};
  auto tun = LinuxTun::open(c);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(4, 65535);
  ASSERT_TRUE(b.push(udp_to(10, 1, 1)));
  ASSERT_TRUE(b.push(udp_to(10, 2, 2)));
  auto w = tun->write_batch(0, b);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->complete());
  EXPECT_EQ(w->logical_dropped, 2u);
  EXPECT_EQ(w->last_errno, EIO);
}

// The read side with real kernel super-packets: a UDP_SEGMENT send of 10 x 1000 bytes.
TEST(LinuxTunPrivileged, ReadsUsoSuperPacketWholeOrSplit) {
  REQUIRE_ROOT();
  for (ReadMode mode : {ReadMode::keep_whole, ReadMode::split}) {
    qeli::test::Netns ns;
    ASSERT_TRUE(ns.ok()) << ns.error();
    qeli::test::InNetns in(ns);
    TunConfig c;
    c.read_mode = mode;
    auto tun = open_tun(c, "10.8.0.1/24");
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const int seg = 1000;
    ASSERT_EQ(::setsockopt(s, SOL_UDP, 103 /* UDP_SEGMENT */, &seg, sizeof seg), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    to.sin_addr.s_addr = htonl(0x0a080002);
    std::vector<std::uint8_t> data(10000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 31);
    PacketBatch b(64, 65535);
    // Drain router solicitations etc. until our datagrams show up.
    ASSERT_EQ(::sendto(s, data.data(), data.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
              10000);
    std::vector<PacketBytes> udp;
    std::size_t logical = 0;
    for (int tries = 0; tries < 50 && logical < 10; ++tries) {
      b.clear();
      auto r = tun.read_batch(0, b);
      if (!r) {
        ::usleep(10000);
        continue;
      }
      for (std::size_t i = 0; i < b.size(); ++i) {
        auto p = b.packet(i);
        if (p.size() < 28 || (p[0] >> 4) != 4 || p[9] != 17) continue;
        udp.emplace_back(p.begin(), p.end());
        logical += b.logical(i);
        if (mode == ReadMode::keep_whole) {
          EXPECT_EQ(b.meta(i).type, GsoType::udp4);
          EXPECT_EQ(b.meta(i).gso_size, 1000);
          EXPECT_EQ(b.logical(i), 10u);
        } else {
          EXPECT_TRUE(b.meta(i).is_plain());
          EXPECT_TRUE(qeli::test::ref_checksums_ok(p.data(), p.size()));
        }
      }
    }
    EXPECT_EQ(logical, 10u);
    EXPECT_EQ(udp.size(), mode == ReadMode::keep_whole ? 1u : 10u);
    std::vector<std::uint8_t> got;
    for (auto& p : udp) {
      const std::size_t off = mode == ReadMode::keep_whole ? 28 : 28;
      got.insert(got.end(), p.begin() + static_cast<long>(off), p.end());
    }
    EXPECT_EQ(got, data);
    ::close(s);
  }
}

sockaddr_storage server_addr(bool v6) {
  sockaddr_storage ss{};
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(5201);
    ::inet_pton(AF_INET6, "fd07::2", &a->sin6_addr);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(5201);
    a->sin_addr.s_addr = htonl(0x0a070002);
  }
  return ss;
}

// Checklist 30: TCP through a TUN-to-TUN relay between two namespaces, in the three
// relay modes; the bytes arrive intact.
class RelayTest : public ::testing::TestWithParam<std::tuple<qeli::test::RelayMode, int>> {};

TEST_P(RelayTest, TcpTransferIsIntact) {
  REQUIRE_ROOT();
  const auto mode = std::get<0>(GetParam());
  const bool v6 = std::get<1>(GetParam()) == 6;
  qeli::test::Netns na, nb;
  ASSERT_TRUE(na.ok() && nb.ok()) << na.error();
  std::optional<LinuxTun> ta, tb;
  int listener = -1;
  {
    qeli::test::InNetns in(na);
    ta.emplace(open_tun(qeli::test::make_relay_config("qra", mode, 1420), "10.7.0.1/24", 1420,
                        "fd07::1/64"));
  }
  {
    qeli::test::InNetns in(nb);
    tb.emplace(open_tun(qeli::test::make_relay_config("qrb", mode, 1420), "10.7.0.2/24", 1420,
                        "fd07::2/64"));
    listener = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const auto a = server_addr(v6);
    ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0)
        << std::strerror(errno);
    ASSERT_EQ(::listen(listener, 1), 0);
  }
  std::atomic<bool> stop{false};
  qeli::test::RelayStats ab, ba;
  std::thread r1([&] { ab = qeli::test::relay_loop(*ta, *tb, stop); });
  std::thread r2([&] { ba = qeli::test::relay_loop(*tb, *ta, stop); });

  constexpr std::size_t kBytes = 32u << 20;
  auto pattern = [](std::size_t i) { return static_cast<std::uint8_t>((i * 2654435761u) >> 13); };
  std::size_t received = 0;
  bool intact = true;
  std::thread server([&] {
    const int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) return;
    std::vector<std::uint8_t> buf(1 << 16);
    for (;;) {
      const ssize_t n = ::recv(c, buf.data(), buf.size(), 0);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) {
        if (buf[static_cast<std::size_t>(i)] != pattern(received + static_cast<std::size_t>(i))) {
          intact = false;
        }
      }
      received += static_cast<std::size_t>(n);
    }
    ::close(c);
  });
  std::uint32_t retrans = 0;
  {
    qeli::test::InNetns in(na);
    const int s = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const auto a = server_addr(v6);
    timeval tv{10, 0};
    ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    EXPECT_EQ(::connect(s, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
    std::vector<std::uint8_t> buf(1 << 16);
    std::size_t sent = 0;
    while (sent < kBytes) {
      const std::size_t n = std::min(buf.size(), kBytes - sent);
      for (std::size_t i = 0; i < n; ++i) buf[i] = pattern(sent + i);
      const ssize_t w = ::send(s, buf.data(), n, MSG_NOSIGNAL);
      if (w <= 0) break;
      sent += static_cast<std::size_t>(w);
    }
    tcp_info info{};
    socklen_t il = sizeof info;
    ::getsockopt(s, IPPROTO_TCP, TCP_INFO, &info, &il);
    retrans = info.tcpi_total_retrans;
    ::shutdown(s, SHUT_WR);
    server.join();
    ::close(s);
  }
  stop = true;
  r1.join();
  r2.join();
  ::close(listener);
  EXPECT_EQ(received, kBytes);
  EXPECT_TRUE(intact);
  RecordProperty("retransmits", static_cast<int>(retrans));
  const auto& ca = ta->counters(0);
  const auto& cb = tb->counters(0);
  EXPECT_GT(ca.read_superpackets, 0u);  // the kernel handed us TSO super-packets
  if (mode == qeli::test::RelayMode::regro) {
    EXPECT_GT(cb.gro_merged, 0u);
  }
  if (mode == qeli::test::RelayMode::split) {
    EXPECT_EQ(cb.gro_merged, 0u);
  }
  EXPECT_EQ(ab.dropped + ba.dropped, 0u);
  EXPECT_EQ(ca.drops.total() + cb.drops.total(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, RelayTest,
                         ::testing::Combine(::testing::Values(qeli::test::RelayMode::pass,
                                                              qeli::test::RelayMode::split,
                                                              qeli::test::RelayMode::regro),
                                            ::testing::Values(4, 6)),
                         [](const auto& p) {
                           const auto m = std::get<0>(p.param);
                           const std::string name = m == qeli::test::RelayMode::pass    ? "pass"
                                                    : m == qeli::test::RelayMode::split ? "split"
                                                                                        : "regro";
                           return name + "_ipv" + std::to_string(std::get<1>(p.param));
                         });

// Netlink: a link can be deleted, and a missing link is a named error.
TEST(LinkNetlinkPrivileged, DeleteLinkAndMissingLink) {
  REQUIRE_ROOT();
  qeli::test::Netns ns;
  ASSERT_TRUE(ns.ok()) << ns.error();
  qeli::test::InNetns in(ns);
  TunConfig c;
  c.name = "qdel";
  auto tun = open_tun(c, "10.9.0.1/24");
  auto nl = sys::LinkNetlink::open();
  ASSERT_TRUE(nl.ok());
  auto d = nl->delete_link("qdel");
  ASSERT_TRUE(d.ok()) << d.error().detail;
  auto gone = nl->is_link_running("qdel");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, sys::NetlinkError::no_such_link);
  auto bad = nl->add_address("lo", "not-an-address");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, sys::NetlinkError::bad_address);
}

}  // namespace
}  // namespace qeli::tunio
