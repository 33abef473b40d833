// UdpSocket features that need root (ctest label `privileged`), each inside a private
// network namespace the test creates (its loopback only; gone when the test ends):
// DF / path-MTU control, SO_RCVBUFFORCE beyond net.core.rmem_max, and the receive buffer
// growing on measured overflow.
#include <poll.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <vector>

#include "fakes/netns.h"
#include "sys/link_netlink.h"
#include "transport/udp_socket.h"

namespace qeli::transport {
namespace {

#define REQUIRE_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (CI runs privileged tests as root)"

// A namespace whose loopback is up with the given MTU; the thread stays inside while the
// object lives.
struct LoopbackNs {
  explicit LoopbackNs(std::uint32_t mtu) : in(ns) {
    auto nl = sys::LinkNetlink::open();
    ok = ns.ok() && in.ok() && nl.ok() && nl->set_mtu("lo", mtu).ok() && nl->set_link_up("lo").ok();
  }
  test::Netns ns;
  test::InNetns in;
  bool ok = false;
};

// Receive slots of kGroReadSize bytes each, backed by one buffer.
struct BigSlots {
  explicit BigSlots(std::size_t n) : mem(n * kGroReadSize), slots(n) {
    for (std::size_t i = 0; i < n; ++i) {
      slots[i] = RecvSlot::over(mem.data() + i * kGroReadSize, kGroReadSize);
    }
  }
  std::vector<std::uint8_t> mem;
  std::vector<RecvSlot> slots;
};

UdpOptions quiet(std::size_t rcvbuf = 0) {
  UdpOptions o;
  o.bind = SockAddr::ipv4(0x7f000001, 0);
  o.recv_buffer = rcvbuf;
  o.log = [](std::string_view) {};
  return o;
}

TEST(UdpSocketPrivileged, DfDatagramsAbovePathMtuGiveEmsgsize) {
  REQUIRE_ROOT();
  LoopbackNs lo(1280);
  ASSERT_TRUE(lo.ok);
  auto a = UdpSocket::open(quiet());
  auto b = UdpSocket::open(quiet());
  ASSERT_TRUE(a.ok() && b.ok());
  const SockAddr to = b->local_address();
  std::vector<std::uint8_t> big(1400, 0x42), small(1000, 0x43);
  const std::vector<OutDatagram> out = {{big.data(), big.size(), &to},
                                        {small.data(), small.size(), &to}};
  ASSERT_TRUE(a->set_pmtu_mode(PmtuMode::kProbe));
  UdpSendReport r = a->send(out);
  EXPECT_EQ(r.sent, 2u);
  EXPECT_EQ(r.emsgsize, 1u) << "1400 + 28 > MTU 1280 with DF set";
  ASSERT_TRUE(a->set_pmtu_mode(PmtuMode::kDont));
  r = a->send(out);
  EXPECT_EQ(r.emsgsize, 0u) << "fragmented instead";
  EXPECT_EQ(r.dropped, 0u);
  // Receiver: the small one (probe mode), then both (fragments reassembled).
  BigSlots big_slots(4);
  auto& slots = big_slots.slots;
  std::vector<std::size_t> lens;
  while (lens.size() < 3) {
    auto n = b->recv(slots);
    if (!n.ok()) {
      pollfd p{b->fd(), POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) break;
      continue;
    }
    for (std::size_t i = 0; i < *n; ++i) lens.push_back(slots[i].len);
  }
  EXPECT_EQ(lens, (std::vector<std::size_t>{1000, 1400, 1000}));
}

TEST(UdpSocketPrivileged, ExplicitBuffersUseForceBeyondRmemMax) {
  REQUIRE_ROOT();
  LoopbackNs lo(65536);
  ASSERT_TRUE(lo.ok);
  auto s = UdpSocket::open(quiet(16u << 20));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->capabilities().recv_buffer, 32u << 20) << "the kernel doubles what was asked";
}

TEST(UdpSocketPrivileged, AutoReceiveBufferGrowsOnMeasuredOverflow) {
  REQUIRE_ROOT();
  LoopbackNs lo(65536);
  ASSERT_TRUE(lo.ok);
  auto a = UdpSocket::open(quiet());
  auto b = UdpSocket::open(quiet());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(b->capabilities().rxq_ovfl);
  EXPECT_EQ(b->capabilities().recv_buffer, 8u << 20);  // auto 4 MiB, doubled by the kernel
  // Overfill the unread queue: 40 MB of datagrams into an 8 MiB buffer.
  const SockAddr to = b->local_address();
  std::vector<std::uint8_t> d(1000, 1);
  std::vector<OutDatagram> out(64, OutDatagram{d.data(), d.size(), &to});
  std::size_t sent = 0;
  for (int i = 0; i < 40000 / 64; ++i) sent += a->send(out).sent;
  EXPECT_EQ(sent, 40000u / 64 * 64);
  // The kernel stamps its drop count on datagrams queued AFTER the drops: read them all.
  BigSlots slots(128);
  std::size_t reads = 0;
  while (b->recv(slots.slots).ok()) ++reads;
  EXPECT_GT(reads, 1u);
  EXPECT_GT(b->rx_stats().kernel_drops.load(), 0u);
  EXPECT_EQ(b->rx_stats().buffer_grows.load(), 1u);
  EXPECT_EQ(b->capabilities().recv_buffer, 16u << 20);
  EXPECT_EQ(b->rx_stats().recv_buffer_bytes.load(), 16u << 20);
}

}  // namespace
}  // namespace qeli::transport
