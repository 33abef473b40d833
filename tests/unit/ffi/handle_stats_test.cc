// ffi::HandleStats — what qeli_client_stats reports — with real UDP sockets: a session's
// socket that the kernel dropped datagrams at shows its drops and its receive buffer's
// size (what getsockopt says) while it runs and after it ended; drops add up over a
// handle's sessions, the size is the latest socket's; a TCP session has no UDP figures.
#include "ffi/handle_stats.h"

#include <gtest/gtest.h>

#include "fakes/udp_overflow.h"

namespace qeli::ffi {
namespace {

using tunnel::SessionCounter;

TEST(HandleStats, AUdpSessionReportsItsSocketsKernelDropsAndBufferLiveAndAfterItEnded) {
  HandleStats h;
  tunnel::SessionCounters counters;
  transport::UdpSocket sock = test::tiny_udp_receiver();
  h.attach(counters);
  h.attach_udp(sock.rx_stats());
  const std::uint64_t rcvbuf = test::kernel_rcvbuf(sock.fd());
  EXPECT_GT(rcvbuf, 0u);
  EXPECT_EQ(h.read().udp_recv_buffer_bytes, rcvbuf);
  EXPECT_EQ(h.read().udp_kernel_drops, 0u);

  const std::size_t got = test::overflow(sock, 200);
  counters.add(SessionCounter::kRxPackets, got);
  const Stats live = h.read();
  EXPECT_GT(live.udp_kernel_drops, 0u);
  EXPECT_EQ(live.udp_kernel_drops, 200u - got);
  EXPECT_EQ(live.udp_kernel_drops, test::kernel_udp_drops(sock.fd()));
  EXPECT_EQ(live.udp_buffer_grows, 0u);  // an explicit size
  EXPECT_EQ(live.udp_recv_buffer_bytes, rcvbuf);
  EXPECT_EQ(live.rx_packets, got);

  h.end(&counters, &sock.rx_stats());
  counters.add(SessionCounter::kRxPackets, 1000);  // no longer read
  const Stats ended = h.read();
  EXPECT_EQ(ended.udp_kernel_drops, live.udp_kernel_drops);
  EXPECT_EQ(ended.udp_recv_buffer_bytes, rcvbuf) << "the last session's, as 0.7.16";
  EXPECT_EQ(ended.rx_packets, got);
}

TEST(HandleStats, DropsAddUpOverSessionsAndTheSizeIsTheLatestSockets) {
  HandleStats h;
  tunnel::SessionCounters first_counters, second_counters;
  transport::UdpSocket first = test::tiny_udp_receiver();
  h.attach(first_counters);
  h.attach_udp(first.rx_stats());
  const std::size_t first_got = test::overflow(first, 100);
  h.end(&first_counters, &first.rx_stats());

  // The automatic size: a far bigger buffer than the first socket's.
  transport::UdpSocket second = test::open_udp_or_die(test::one_read_udp_options(0));
  h.attach(second_counters);
  h.attach_udp(second.rx_stats());
  const std::size_t second_got = test::overflow(second, 10);
  EXPECT_EQ(second_got, 10u);
  const Stats s = h.read();
  EXPECT_EQ(s.udp_kernel_drops, 100u - first_got);
  EXPECT_EQ(s.udp_recv_buffer_bytes, test::kernel_rcvbuf(second.fd()));
  EXPECT_GT(s.udp_recv_buffer_bytes, test::kernel_rcvbuf(first.fd()));
}

TEST(HandleStats, ASessionEndingAfterTheNextOneBeganLeavesTheLiveOneShown) {
  // A run a stop left winding down ends its session after the next run's started.
  HandleStats h;
  tunnel::SessionCounters old_counters, new_counters;
  transport::UdpSocket old_sock = test::tiny_udp_receiver();
  transport::UdpSocket new_sock = test::open_udp_or_die(test::one_read_udp_options(0));
  h.attach(old_counters);
  h.attach_udp(old_sock.rx_stats());
  h.attach(new_counters);
  h.attach_udp(new_sock.rx_stats());
  old_counters.add(SessionCounter::kTxPackets, 3);
  new_counters.add(SessionCounter::kTxPackets, 4);
  h.end(&old_counters, &old_sock.rx_stats());
  const Stats s = h.read();
  EXPECT_EQ(s.tx_packets, 7u);
  EXPECT_EQ(s.udp_recv_buffer_bytes, test::kernel_rcvbuf(new_sock.fd())) << "the live one's";
}

TEST(HandleStats, ATcpSessionHasNoUdpFiguresAndAForgottenOneIsNotRead) {
  HandleStats h;
  {
    tunnel::SessionCounters counters;
    h.attach(counters);
    counters.add(SessionCounter::kTxBytes, 84);
    EXPECT_EQ(h.read().tx_bytes, 84u);
    h.forget(&counters, nullptr);  // gone without an end (the data phase threw)
  }
  const Stats s = h.read();
  EXPECT_EQ(s.tx_bytes, 0u);
  EXPECT_EQ(s.udp_kernel_drops, 0u);
  EXPECT_EQ(s.udp_buffer_grows, 0u);
  EXPECT_EQ(s.udp_recv_buffer_bytes, 0u);
}

}  // namespace
}  // namespace qeli::ffi
