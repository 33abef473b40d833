// ClientCore::probe_udp (libqeli's qeli_client_udp_probe) as 0.7.16 probes: every address
// at once (a silent first address costs nothing), 2 attempts, and a profile without a
// pinned key or a credential probes as well. Loopback sockets only.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "client/core/client_core.h"

namespace qeli::client {
namespace {

// A UDP socket on 127.0.0.1 (port chosen by the kernel); answers once when `reply`.
struct UdpPeer {
  int fd = -1;
  std::uint16_t port = 0;
  explicit UdpPeer() {
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~UdpPeer() { ::close(fd); }
  // Waits up to `ms` for a datagram and answers it; whether one came.
  bool answer_one(int ms) const {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms) != 1) return false;
    std::uint8_t buf[4096];
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const auto n = ::recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n <= 0) return false;
    return ::sendto(fd, "hello", 5, 0, reinterpret_cast<sockaddr*>(&from), len) == 5;
  }
};

ClientCoreOptions probe_options(std::vector<transport::SockAddr> servers) {
  // Android's probe profile: no user, no password, no key (bind_static stays on).
  auto load = config::load_client_config_text(
      "[qeli]\nserver = 127.0.0.1:1\nproto = udp\nmode = fake-tls\n", "probe.conf");
  EXPECT_TRUE(load.ok());
  ClientCoreOptions o;
  o.config = load.config;
  o.servers = std::move(servers);
  o.platform = "test";
  return o;
}

transport::SockAddr loopback(std::uint16_t port) {
  return transport::SockAddr::ipv4(0x7f000001, port);
}

TEST(UdpProbe, EveryAddressAtOnceWithoutAKey) {
  UdpPeer silent, answering;
  std::thread server([&] { answering.answer_one(5000); });
  const auto t0 = std::chrono::steady_clock::now();
  auto t = ClientCore::probe_udp(probe_options({loopback(silent.port), loopback(answering.port)}),
                                 {}, std::chrono::milliseconds(2000), 2);
  server.join();
  ASSERT_TRUE(t.ok()) << t.error().detail;
  // In turn, the silent first address would have cost its 2 s first.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
}

TEST(UdpProbe, SilenceIsTwoAttemptsOfTheTimeout) {
  UdpPeer a, b;
  const auto t0 = std::chrono::steady_clock::now();
  auto t = ClientCore::probe_udp(probe_options({loopback(a.port), loopback(b.port)}), {},
                                 std::chrono::milliseconds(200), 2);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ClientErrc::kGaveUp);
  EXPECT_GE(took, std::chrono::milliseconds(390));
  EXPECT_LT(took, std::chrono::milliseconds(1000));  // not 2 × 2 × 200 in turn
}

}  // namespace
}  // namespace qeli::client
