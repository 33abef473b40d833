// UdpSocket::rx_stats() (transport/udp_rx_stats.h) over real loopback sockets, no root:
// a flood into a tiny receive buffer is counted as the kernel's drops, exactly as many as
// the kernel lost; the receive buffer's size is what getsockopt says; the automatic buffer
// grows on drops the kernel reports (a kernel decorator reports them, so the test needs
// neither root nor 8 MiB of traffic), twice at most.
#include <linux/sock_diag.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstring>

#include "fakes/udp_overflow.h"
#include "transport/udp_socket.h"

namespace qeli::transport {
namespace {

using test::kernel_rcvbuf;

TEST(UdpRxStats, AFloodIntoATinyBufferIsCountedAsTheKernelsDrops) {
  UdpSocket rx = test::tiny_udp_receiver();
  const UdpRxStats& st = rx.rx_stats();
  EXPECT_EQ(st.recv_buffer_bytes.load(), kernel_rcvbuf(rx.fd()));
  EXPECT_LT(st.recv_buffer_bytes.load(), 64u * 1024) << "the kernel kept a tiny buffer";
  EXPECT_EQ(st.kernel_drops.load(), 0u);

  constexpr std::size_t kSent = 200;
  const std::size_t got = test::overflow(rx, kSent);
  ASSERT_GT(got, 0u);
  ASSERT_LT(got, kSent) << "a few KiB of buffer cannot hold 200 KB";
  // Loopback loses nothing else: every datagram that did not arrive is a kernel drop.
  EXPECT_EQ(st.kernel_drops.load(), kSent - got);
  EXPECT_EQ(st.kernel_drops.load(), test::kernel_udp_drops(rx.fd()));
  EXPECT_EQ(st.buffer_grows.load(), 0u) << "an explicit size never grows";
  EXPECT_EQ(st.recv_buffer_bytes.load(), kernel_rcvbuf(rx.fd()));
}

// The real syscalls, except that SO_MEMINFO reports `drops` as the socket's drop counter.
class ReportedDrops final : public LinuxUdpKernel {
 public:
  int getsockopt(int fd, int level, int name, void* value, socklen_t* len) override {
    const int r = LinuxUdpKernel::getsockopt(fd, level, name, value, len);
    if (r == 0 && level == SOL_SOCKET && name == SO_MEMINFO &&
        *len > SK_MEMINFO_DROPS * sizeof(std::uint32_t)) {
      std::memcpy(static_cast<std::uint32_t*>(value) + SK_MEMINFO_DROPS, &drops, sizeof drops);
    }
    return r;
  }
  std::uint32_t drops = 0;
};

TEST(UdpRxStats, TheAutomaticBufferGrowsTwiceAtMostOnReportedDrops) {
  ReportedDrops kernel;
  UdpSocket rx = test::open_udp_or_die(test::one_read_udp_options(0), kernel);
  const UdpRxStats& st = rx.rx_stats();
  const std::uint64_t first = st.recv_buffer_bytes.load();
  EXPECT_EQ(first, kernel_rcvbuf(rx.fd()));
  // One datagram each round: its read samples the counter.
  const auto round = [&](std::uint32_t cumulative_drops) {
    kernel.drops = cumulative_drops;
    test::send_udp(rx.local_address(), 1, 100);
    EXPECT_EQ(test::drain_udp(rx), 1u);
  };
  round(0);
  EXPECT_EQ(st.kernel_drops.load(), 0u);
  EXPECT_EQ(st.buffer_grows.load(), 0u);
  round(3);
  EXPECT_EQ(st.kernel_drops.load(), 3u);
  EXPECT_EQ(st.buffer_grows.load(), 1u);
  EXPECT_EQ(st.recv_buffer_bytes.load(), kernel_rcvbuf(rx.fd()));
  EXPECT_GE(st.recv_buffer_bytes.load(), first);  // more, unless rmem_max caps it
  round(5);
  round(9);
  EXPECT_EQ(st.kernel_drops.load(), 9u);
  EXPECT_EQ(st.buffer_grows.load(), 2u) << "4 -> 8 -> 16 MiB, then no further";
  EXPECT_EQ(st.recv_buffer_bytes.load(), kernel_rcvbuf(rx.fd()));
}

TEST(UdpRxStats, StayWhereTheyAreWhenTheSocketMoves) {
  UdpSocket a = test::tiny_udp_receiver();
  const UdpRxStats* before = &a.rx_stats();
  UdpSocket b = std::move(a);
  EXPECT_EQ(&b.rx_stats(), before) << "a reader may keep a pointer";
  EXPECT_EQ(b.rx_stats().recv_buffer_bytes.load(), kernel_rcvbuf(b.fd()));
}

}  // namespace
}  // namespace qeli::transport
