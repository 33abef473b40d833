#include "transport/tcp.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <thread>

namespace qeli::transport {
namespace {

std::uint16_t bound_port(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof(sa);
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return ntohs(sa.sin_port);
}

TEST(Tcp, LoopbackSendAllAndReceive) {
  auto l = tcp_listen({0x7f000001, 0});
  ASSERT_TRUE(l.ok()) << l.error();
  const std::uint16_t port = bound_port(l->get());
  auto c = tcp_connect({0x7f000001, port}, std::chrono::milliseconds(2000));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(apply_stream_options(c->get(), {}), "");
  int s = -1;
  for (int i = 0; i < 100 && s < 0; ++i) {
    s = ::accept4(l->get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (s < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(s, 0);
  UniqueFd server(s);
  EXPECT_EQ(peer_endpoint(server.get()).addr, 0x7f000001U);

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

TEST(Tcp, ConnectToClosedPortFails) {
  auto l = tcp_listen({0x7f000001, 0});
  ASSERT_TRUE(l.ok());
  const std::uint16_t port = bound_port(l->get());
  l->reset();
  auto c = tcp_connect({0x7f000001, port}, std::chrono::milliseconds(1000));
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace qeli::transport
