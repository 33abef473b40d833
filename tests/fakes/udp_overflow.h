// A real loopback UdpSocket whose receive queue overflows, for tests of what the kernel's
// drops turn into (transport::UdpRxStats, libqeli's stats): a receiver with a receive
// buffer of a few KiB, flooded with 1000-byte datagrams, then drained. No root needed.
//
//   auto rx = test::tiny_udp_receiver();
//   const std::size_t got = test::overflow(rx, 200);   // 200 sent, `got` read, the rest dropped
//
// The receiver reads one datagram per call: every read then comes back "full", which is
// when UdpSocket samples the kernel's drop counter (SO_MEMINFO; Linux 6.18 no longer stamps
// SO_RXQ_OVFL on UDP datagrams). Aborts if a socket cannot be opened.
#pragma once

#include <linux/sock_diag.h>
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

#include "transport/udp_socket.h"

namespace qeli::test {

/// Receiver options: 127.0.0.1, `recv_buffer` bytes asked (0: automatic), one datagram per
/// read, no GRO, a silent log.
inline transport::UdpOptions one_read_udp_options(std::size_t recv_buffer) {
  transport::UdpOptions o;
  o.bind = transport::SockAddr::ipv4(0x7f000001, 0);
  o.recv_buffer = recv_buffer;
  o.rx_offload = false;
  o.max_batch = 1;
  o.log = [](std::string_view) {};
  return o;
}

inline transport::UdpSocket open_udp_or_die(
    const transport::UdpOptions& o, transport::UdpKernel& kernel = transport::linux_udp_kernel()) {
  auto s = transport::UdpSocket::open(o, kernel);
  if (!s.ok()) {
    ADD_FAILURE() << s.error().detail;
    std::abort();
  }
  return std::move(*s);
}

/// A receiver whose buffer stays tiny (an explicit size never grows).
inline transport::UdpSocket tiny_udp_receiver() {
  return open_udp_or_die(one_read_udp_options(4096));
}

/// Sends `n` datagrams of `bytes` to `to` from a socket of its own (loopback delivers inside
/// the send call: whatever did not fit the receiver's queue is dropped when it returns).
inline void send_udp(const transport::SockAddr& to, std::size_t n, std::size_t bytes) {
  transport::UdpOptions o = one_read_udp_options(0);
  o.max_batch = 64;
  o.tx_offload = false;
  transport::UdpSocket tx = open_udp_or_die(o);
  std::vector<std::uint8_t> d(bytes, 0x5a);
  std::vector<transport::OutDatagram> out(n, transport::OutDatagram{d.data(), d.size(), &to});
  std::size_t sent = 0;
  while (sent < n) {
    const transport::UdpSendReport r =
        tx.send(std::span<const transport::OutDatagram>(out).subspan(sent));
    ASSERT_EQ(r.dropped, 0u);
    sent += r.sent;
    if (r.would_block) {
      pollfd p{tx.fd(), POLLOUT, 0};
      ASSERT_EQ(::poll(&p, 1, 2000), 1);
    }
  }
}

/// Reads until the queue is empty; how many datagrams arrived.
inline std::size_t drain_udp(transport::UdpSocket& s) {
  std::vector<std::uint8_t> mem(transport::kGroReadSize);
  std::vector<transport::RecvSlot> slots{transport::RecvSlot::over(mem.data(), mem.size())};
  std::size_t got = 0;
  for (;;) {
    auto n = s.recv(slots);
    if (!n.ok()) {
      EXPECT_EQ(n.error(), transport::UdpError::kWouldBlock);
      return got;
    }
    got += *n;
  }
}

/// The kernel's own drop counter of `fd` (SO_MEMINFO).
inline std::uint32_t kernel_udp_drops(int fd) {
  std::uint32_t info[SK_MEMINFO_VARS] = {};
  socklen_t len = sizeof info;
  EXPECT_EQ(::getsockopt(fd, SOL_SOCKET, SO_MEMINFO, info, &len), 0);
  return info[SK_MEMINFO_DROPS];
}

/// SO_RCVBUF of `fd` as the kernel reports it.
inline std::uint64_t kernel_rcvbuf(int fd) {
  int v = 0;
  socklen_t len = sizeof v;
  EXPECT_EQ(::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len), 0);
  return static_cast<std::uint64_t>(v);
}

/// Floods `rx` with `sent` datagrams of 1000 bytes and drains it; how many it read (the
/// rest the kernel dropped). Then one more datagram into the empty queue, read too (not
/// in the count): its read samples the drop counter after the last drop, however late
/// that came.
inline std::size_t overflow(transport::UdpSocket& rx, std::size_t sent) {
  send_udp(rx.local_address(), sent, 1000);
  std::size_t got = drain_udp(rx);
  // Loopback delivers in the send call's softirq as a rule; should a late one still be on
  // its way, wait until every datagram is either read or dropped.
  for (int i = 0; i < 200 && got + kernel_udp_drops(rx.fd()) < sent; ++i) {
    pollfd p{rx.fd(), POLLIN, 0};
    (void)::poll(&p, 1, 10);
    got += drain_udp(rx);
  }
  send_udp(rx.local_address(), 1, 1000);
  EXPECT_EQ(drain_udp(rx), 1u);
  return got;
}

}  // namespace qeli::test
