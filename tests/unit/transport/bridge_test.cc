// The decoy bridge over real loopback TCP: the gate's bytes reach the target first, bytes
// flow both ways, a half-close is passed on, and every end (both FINs, idle, connect
// failure, connect timeout, lifetime) is reported once; the pool bound refuses the next
// stranger.
#include "transport/bridge.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "transport/tcp.h"

namespace qeli::transport {
namespace {

struct Ends {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<BridgeEnd> ends;
  bool none() {
    std::lock_guard l(mu);
    return ends.empty();
  }
  void add(BridgeEnd e) {
    std::lock_guard l(mu);
    ends.push_back(e);
    cv.notify_all();
  }
  std::optional<BridgeEnd> wait(std::chrono::seconds t = std::chrono::seconds(5)) {
    std::unique_lock l(mu);
    cv.wait_for(l, t, [&] { return !ends.empty(); });
    if (ends.empty()) return std::nullopt;
    const BridgeEnd e = ends.front();
    ends.erase(ends.begin());
    return e;
  }
};

std::uint16_t port_of(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return ntohs(sa.sin_port);
}

// A connected pair (a, b) over loopback TCP, `b` accepted from `l`.
std::pair<UniqueFd, UniqueFd> tcp_pair(int l) {
  auto a = tcp_connect(SockAddr::ipv4(0x7F000001, port_of(l)), std::chrono::seconds(2));
  EXPECT_TRUE(a.ok());
  UniqueFd b(::accept4(l, nullptr, nullptr, SOCK_CLOEXEC));
  return {std::move(*a), std::move(b)};
}

Bytes read_until_eof(int fd) {
  Bytes out;
  std::uint8_t buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

TEST(Bridge, RelaysBothWaysPrefixFirstAndPassesHalfCloseOn) {
  auto target = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  auto front = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  ASSERT_TRUE(target.ok() && front.ok());
  set_nonblocking(target->get(), false);
  Ends ends;
  Bridge b({"127.0.0.1", port_of(target->get())}, {}, [&](BridgeEnd e) { ends.add(e); });
  ASSERT_TRUE(b.start().ok());
  auto [stranger, accepted] = tcp_pair(front->get());
  ASSERT_TRUE(b.add(std::move(accepted), Bytes{'H', 'E', 'L', 'L', 'O'}));
  UniqueFd site(::accept4(target->get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(site.valid());
  const Bytes big(300000, 0x5A);
  ASSERT_EQ(send_all(stranger.get(), big, std::chrono::seconds(5)), IoResult::kOk);
  ::shutdown(stranger.get(), SHUT_WR);  // the stranger half-closes
  const Bytes at_site = read_until_eof(site.get());
  ASSERT_EQ(at_site.size(), 5 + big.size()) << "the site saw the FIN after every byte";
  EXPECT_EQ(Bytes(at_site.begin(), at_site.begin() + 5), (Bytes{'H', 'E', 'L', 'L', 'O'}));
  // The site still answers after the half-close, then closes.
  ASSERT_EQ(send_all(site.get(), as_bytes("decoy page"), std::chrono::seconds(5)), IoResult::kOk);
  site.reset();
  EXPECT_EQ(read_until_eof(stranger.get()),
            Bytes(as_bytes("decoy page").begin(), as_bytes("decoy page").end()));
  EXPECT_EQ(ends.wait(), BridgeEnd::kEof);
  EXPECT_EQ(b.active(), 0U);
  b.stop();
}

TEST(Bridge, PoolBoundIdleAndUnreachableTarget) {
  auto target = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  auto front = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  ASSERT_TRUE(target.ok() && front.ok());
  Ends ends;
  BridgeLimits lim;
  lim.max_bridges = 1;
  lim.idle = std::chrono::seconds(1);
  Bridge b({"127.0.0.1", port_of(target->get())}, lim, [&](BridgeEnd e) { ends.add(e); });
  ASSERT_TRUE(b.start().ok());
  auto [s1, a1] = tcp_pair(front->get());
  auto [s2, a2] = tcp_pair(front->get());
  ASSERT_TRUE(b.add(std::move(a1), {}));
  EXPECT_FALSE(b.add(std::move(a2), {})) << "over max_bridges";
  EXPECT_EQ(ends.wait(std::chrono::seconds(4)), BridgeEnd::kIdle);
  EXPECT_EQ(read_until_eof(s1.get()), Bytes{}) << "the idle stranger is closed";
  b.stop();

  // A target nobody listens on: the connect fails and is reported.
  const std::uint16_t dead = port_of(target->get());
  target->reset();
  Bridge c({"127.0.0.1", dead}, {}, [&](BridgeEnd e) { ends.add(e); });
  ASSERT_TRUE(c.start().ok());
  auto [s3, a3] = tcp_pair(front->get());
  ASSERT_TRUE(c.add(std::move(a3), Bytes{1}));
  EXPECT_EQ(ends.wait(), BridgeEnd::kConnectFailed);
  c.stop();
}

// bridge_lifetime_secs: a bridge that keeps moving bytes still ends at its lifetime.
TEST(Bridge, LifetimeEndsABusyBridge) {
  auto target = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  auto front = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  ASSERT_TRUE(target.ok() && front.ok());
  Ends ends;
  BridgeLimits lim;
  lim.idle = std::chrono::seconds(30);
  lim.lifetime = std::chrono::seconds(1);
  Bridge b({"127.0.0.1", port_of(target->get())}, lim, [&](BridgeEnd e) { ends.add(e); });
  ASSERT_TRUE(b.start().ok());
  auto [s1, a1] = tcp_pair(front->get());
  ASSERT_TRUE(b.add(std::move(a1), Bytes{1}));
  // Traffic every 100 ms: never idle, so only the lifetime can end it.
  for (int i = 0; i < 40 && ends.none(); ++i) {
    const std::uint8_t byte = 7;
    (void)::send(s1.get(), &byte, 1, MSG_NOSIGNAL);
    ::usleep(100 * 1000);
  }
  EXPECT_EQ(ends.wait(std::chrono::seconds(1)), BridgeEnd::kLifetime);
  b.stop();
}

// bridge_connect_timeout_secs: a target that never answers the SYN (its accept queue is
// full, so the kernel drops it) ends the bridge at the timeout, not at TCP's ~2 minutes.
TEST(Bridge, ConnectTimeoutEndsABridgeToASilentTarget) {
  auto target = tcp_listen(SockAddr::ipv4(0x7F000001, 0), /*backlog=*/0);
  auto front = tcp_listen(SockAddr::ipv4(0x7F000001, 0));
  ASSERT_TRUE(target.ok() && front.ok());
  std::vector<UniqueFd> fill;  // backlog 0 still queues one; a few more to be sure
  for (int i = 0; i < 4; ++i) {
    auto c = tcp_connect(SockAddr::ipv4(0x7F000001, port_of(target->get())),
                         std::chrono::milliseconds(200));
    if (c.ok()) fill.push_back(std::move(*c));
  }
  Ends ends;
  BridgeLimits lim;
  lim.connect_timeout = std::chrono::seconds(1);
  Bridge b({"127.0.0.1", port_of(target->get())}, lim, [&](BridgeEnd e) { ends.add(e); });
  ASSERT_TRUE(b.start().ok());
  auto [s1, a1] = tcp_pair(front->get());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(b.add(std::move(a1), Bytes{1}));
  EXPECT_EQ(ends.wait(std::chrono::seconds(10)), BridgeEnd::kConnectFailed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
  b.stop();
}

}  // namespace
}  // namespace qeli::transport
