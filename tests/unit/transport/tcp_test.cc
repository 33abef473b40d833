#include "transport/tcp.h"

#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace qeli::transport {
namespace {

std::uint16_t bound_port(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof(sa);
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return ntohs(sa.sin_port);
}

// The listener's next connection (-1 if none came within a second).
int accept_within_1s(int listener) {
  int s = -1;
  for (int i = 0; i < 100 && s < 0; ++i) {
    s = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (s < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return s;
}

TEST(Tcp, LoopbackSendAllAndReceive) {
  auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok()) << l.error();
  const std::uint16_t port = bound_port(l->get());
  auto c = tcp_connect(SockAddr::ipv4(0x7f000001, port), std::chrono::milliseconds(2000));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(apply_stream_options(c->get(), {}), "");
  UniqueFd server(accept_within_1s(l->get()));
  ASSERT_GE(server.get(), 0);
  EXPECT_EQ(SockAddr::peer_of(server.get()).ipv4_host(), 0x7f000001U);

  Bytes big(4 << 20);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
  std::thread sender(
      [&] { EXPECT_EQ(send_all(c->get(), big, std::chrono::milliseconds(10000)), IoResult::kOk); });
  Bytes got;
  Bytes buf(65536);
  while (got.size() < big.size()) {
    std::size_t n = 0;
    ASSERT_EQ(recv_some(server.get(), buf, std::chrono::milliseconds(5000), n), IoResult::kOk);
    got.insert(got.end(), buf.begin(), buf.begin() + static_cast<long>(n));
  }
  sender.join();
  EXPECT_EQ(got, big);

  std::size_t n = 0;
  EXPECT_EQ(recv_some(server.get(), buf, std::chrono::milliseconds(50), n), IoResult::kTimeout);
  c->reset();
  EXPECT_EQ(recv_some(server.get(), buf, std::chrono::milliseconds(2000), n), IoResult::kClosed);
}

// A server that ends a session writes a farewell and closes while the client is still
// uploading. A plain close() with that upload unread resets the connection and drops the
// farewell from the send queue (a quota test lost "why" under load); a half-close that
// drains the upload delivers it, then a clean EOF.
TEST(Tcp, Ipv6ListenerTakesIpv6OnlyAndNamesItsPeer) {
  // `::` on a port is IPv6 only (IPV6_V6ONLY, as nginx): 0.0.0.0 on the same port is a
  // second listener, and an IPv6 peer shows as itself.
  auto l6 = tcp_listen(*SockAddr::parse_ip("::", 0));
  ASSERT_TRUE(l6.ok()) << l6.error();
  const std::uint16_t port = SockAddr::local_of(l6->get()).port();
  auto l4 = tcp_listen(SockAddr::ipv4(0, port));
  ASSERT_TRUE(l4.ok()) << "0.0.0.0 beside :: on one port: " << l4.error();
  auto c6 = tcp_connect(*SockAddr::parse_ip("::1", port), std::chrono::milliseconds(2000));
  ASSERT_TRUE(c6.ok()) << c6.error();
  UniqueFd s6(accept_within_1s(l6->get()));
  ASSERT_GE(s6.get(), 0);
  EXPECT_EQ(SockAddr::peer_of(s6.get()).ip_string(), "::1");
  auto c4 = tcp_connect(SockAddr::ipv4(0x7f000001, port), std::chrono::milliseconds(2000));
  ASSERT_TRUE(c4.ok()) << c4.error();
  UniqueFd s4(accept_within_1s(l4->get()));
  ASSERT_GE(s4.get(), 0);
  EXPECT_EQ(SockAddr::peer_of(s4.get()).ip_string(), "127.0.0.1");
  EXPECT_LT(::accept4(l6->get(), nullptr, nullptr, SOCK_CLOEXEC), 0);  // nothing mapped
}

TEST(Tcp, ProbeBindSeesListenersAlsoThoseSharingAPortWithReusePort) {
  auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok()) << l.error();
  const auto taken = SockAddr::local_of(l->get());
  const auto st = probe_bind(taken, SOCK_STREAM);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("tcp 127.0.0.1:"), std::string::npos) << st.error();
  // A UDP socket with SO_REUSEPORT (as a server's workers bind) still makes the port busy
  // for a probe: a second server cannot join it unnoticed.
  UniqueFd u(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  ASSERT_EQ(setsockopt(u.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)), 0);
  const auto any = SockAddr::ipv4(0x7f000001, 0);
  ASSERT_EQ(::bind(u.get(), &any.sa, any.len), 0);
  EXPECT_FALSE(probe_bind(SockAddr::local_of(u.get()), SOCK_DGRAM).ok());
  // Free once closed; IPv6 beside an IPv4 listener on one port is free (IPV6_V6ONLY).
  EXPECT_TRUE(probe_bind(*SockAddr::parse_ip("::", taken.port()), SOCK_STREAM).ok());
  l->reset();
  EXPECT_TRUE(probe_bind(taken, SOCK_STREAM).ok());
}

TEST(Tcp, HalfCloseAndDrainDeliversTheLastWriteDespiteUnreadInput) {
  auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok()) << l.error();
  auto c = tcp_connect(SockAddr::ipv4(0x7f000001, bound_port(l->get())),
                       std::chrono::milliseconds(2000));
  ASSERT_TRUE(c.ok()) << c.error();
  UniqueFd server(accept_within_1s(l->get()));
  ASSERT_GE(server.get(), 0);
  // The server's last writes sit in its send queue (the client reads slowly), as a
  // farewell does behind a download; the client's upload sits unread in the server.
  const int sndbuf = 8 << 20;
  if (::setsockopt(server.get(), SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof sndbuf) != 0) {
    GTEST_SKIP() << "needs CAP_NET_ADMIN for an 8 MiB send buffer";
  }
  ASSERT_EQ(send_all(c->get(), Bytes(64 * 1024, 0x55), std::chrono::milliseconds(1000)),
            IoResult::kOk);
  Bytes download((2 << 20) + 3, 0xd0);
  std::copy_n("bye", 3, download.end() - 3);  // the farewell, last
  ASSERT_EQ(send_all(server.get(), download, std::chrono::milliseconds(1000)), IoResult::kOk);
  std::thread closer([&] {
    half_close_and_drain(server.get(), std::chrono::milliseconds(3000));
    server.reset();
  });
  Bytes got;
  Bytes buf(65536);
  IoResult r = IoResult::kOk;
  while (r == IoResult::kOk) {
    std::size_t n = 0;
    r = recv_some(c->get(), buf, std::chrono::milliseconds(3000), n);
    if (r == IoResult::kOk) got.insert(got.end(), buf.begin(), buf.begin() + static_cast<long>(n));
  }
  EXPECT_EQ(r, IoResult::kClosed);
  EXPECT_EQ(got.size(), download.size()) << "nothing lost to a reset";
  EXPECT_EQ(got, download);
  c->reset();  // our close: the drain sees EOF and returns
  closer.join();
}

TEST(Tcp, ConnectToClosedPortFails) {
  auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok());
  const std::uint16_t port = bound_port(l->get());
  l->reset();
  auto c = tcp_connect(SockAddr::ipv4(0x7f000001, port), std::chrono::milliseconds(1000));
  EXPECT_FALSE(c.ok());
}

// A listener whose accept queue is full drops further SYNs, so a connect to it hangs in
// SYN_SENT: a local stand-in for an unreachable server.
class HangingListener {
 public:
  HangingListener() {
    auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0), /*backlog=*/0);
    EXPECT_TRUE(l.ok());
    listener_ = std::move(*l);
    port_ = bound_port(listener_.get());
    // Backlog 0 admits one queued connection; it stays unaccepted so the queue is full.
    auto first = tcp_connect(SockAddr::ipv4(0x7f000001, port_), std::chrono::milliseconds(2000));
    EXPECT_TRUE(first.ok());
    if (first.ok()) queued_ = std::move(*first);
  }
  SockAddr endpoint() const { return SockAddr::ipv4(0x7f000001, port_); }

 private:
  UniqueFd listener_, queued_;
  std::uint16_t port_ = 0;
};

TEST(Tcp, ConnectToAFullListenerTimesOut) {
  HangingListener h;
  const auto t0 = std::chrono::steady_clock::now();
  auto c = tcp_connect(h.endpoint(), std::chrono::milliseconds(300));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("timed out"), std::string::npos) << c.error();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(250));
}

// A stop signal (any readable fd) ends a connect at once instead of after the timeout.
TEST(Tcp, ConnectIsCancelledByTheCancelFd) {
  HangingListener h;
  UniqueFd cancel(::eventfd(0, EFD_CLOEXEC));
  ASSERT_TRUE(cancel.valid());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uint64_t one = 1;
    EXPECT_EQ(::write(cancel.get(), &one, sizeof(one)), 8);
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto c = tcp_connect(h.endpoint(), std::chrono::milliseconds(20000), cancel.get());
  const auto took = std::chrono::steady_clock::now() - t0;
  stopper.join();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("cancelled"), std::string::npos) << c.error();
  EXPECT_LT(took, std::chrono::seconds(5));

  // Already signalled: no wait at all. A usable server still connects with a cancel fd.
  EXPECT_FALSE(tcp_connect(h.endpoint(), std::chrono::milliseconds(20000), cancel.get()).ok());
  auto l = tcp_listen(SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok());
  UniqueFd idle(::eventfd(0, EFD_CLOEXEC));
  auto ok = tcp_connect(SockAddr::ipv4(0x7f000001, bound_port(l->get())),
                        std::chrono::milliseconds(2000), idle.get());
  EXPECT_TRUE(ok.ok()) << ok.error();
}

}  // namespace
}  // namespace qeli::transport
