// TcpListener over real loopback sockets: every connection of every listener reaches the
// callback with its peer and is counted, a flood on one listener does not starve another,
// on_round runs while idle, and stop ends the loop.
#include "server/tcp_listener.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "transport/tcp.h"

namespace qeli::server {
namespace {

using namespace std::chrono_literals;

transport::UniqueFd listen_loopback() {
  auto l = transport::tcp_listen(transport::SockAddr::ipv4(0x7f000001, 0));
  EXPECT_TRUE(l.ok());
  return std::move(*l);
}

struct Running {
  explicit Running(std::size_t listeners, bool start_now = true) {
    std::vector<transport::UniqueFd> ls;
    for (std::size_t i = 0; i < listeners; ++i) ls.push_back(listen_loopback());
    listener = std::make_unique<TcpListener>("test", std::move(ls), counters);
    addrs = listener->local_addresses();
    if (start_now) start();
  }
  void start() {
    thread = std::thread([this] {
      listener->run(
          stop,
          [this](transport::UniqueFd conn, const transport::SockAddr& peer) {
            std::lock_guard lock(mu);
            EXPECT_TRUE(conn.valid());
            peers.push_back(peer);
          },
          [this] { rounds++; });
    });
  }
  ~Running() {
    stop.stop();
    if (thread.joinable()) thread.join();
  }
  std::size_t accepted_now() {
    std::lock_guard lock(mu);
    return peers.size();
  }
  bool wait_accepted(std::size_t n) {
    for (auto until = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(2ms)) {
      if (accepted_now() >= n) return true;
    }
    return false;
  }

  ProfileCounters counters;
  engine::StopSignal stop;
  std::unique_ptr<TcpListener> listener;
  std::vector<transport::SockAddr> addrs;
  std::mutex mu;
  std::vector<transport::SockAddr> peers;
  std::atomic<int> rounds{0};
  std::thread thread;
};

transport::UniqueFd connect_to(const transport::SockAddr& a) {
  auto c = transport::tcp_connect(a, 5000ms);
  EXPECT_TRUE(c.ok());
  return c.ok() ? std::move(*c) : transport::UniqueFd();
}

TEST(TcpListener, EveryListenersConnectionsReachTheCallbackWithTheirPeer) {
  Running r(2);
  ASSERT_EQ(r.addrs.size(), 2U);
  EXPECT_NE(r.addrs[0].port(), r.addrs[1].port());
  auto a = connect_to(r.addrs[0]);
  auto b = connect_to(r.addrs[1]);
  ASSERT_TRUE(r.wait_accepted(2));
  EXPECT_EQ(r.counters.accepted.load(), 2U);
  const auto a_local = transport::SockAddr::local_of(a.get());
  const auto b_local = transport::SockAddr::local_of(b.get());
  std::lock_guard lock(r.mu);
  EXPECT_TRUE((r.peers[0] == a_local && r.peers[1] == b_local) ||
              (r.peers[0] == b_local && r.peers[1] == a_local));
}

TEST(TcpListener, AFloodOnOneListenerDoesNotStarveAnother) {
  Running r(2, /*start_now=*/false);
  // All queued in the kernel's backlogs before the loop looks: 100 on the first
  // listener (under the smallest somaxconn of 128), then one on the second.
  std::vector<transport::UniqueFd> flood;
  for (int i = 0; i < 100; ++i) flood.push_back(connect_to(r.addrs[0]));
  auto quiet = connect_to(r.addrs[1]);
  const auto quiet_peer = transport::SockAddr::local_of(quiet.get());
  r.start();
  ASSERT_TRUE(r.wait_accepted(101));
  EXPECT_EQ(r.counters.accepted.load(), 101U);
  EXPECT_EQ(r.counters.accept_no_resources.load(), 0U);
  std::lock_guard lock(r.mu);
  const auto at = std::find(r.peers.begin(), r.peers.end(), quiet_peer) - r.peers.begin();
  EXPECT_LE(at, 64);  // after one batch of the flood at most, not after all 100
}

TEST(TcpListener, RoundsRunWhileIdleAndStopEndsTheLoop) {
  auto r = std::make_unique<Running>(1);
  for (auto until = std::chrono::steady_clock::now() + 5s;
       r->rounds.load() == 0 && std::chrono::steady_clock::now() < until;) {
    auto c = connect_to(r->addrs[0]);  // a connection makes a round at once
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_GE(r->rounds.load(), 1);
  const auto t0 = std::chrono::steady_clock::now();
  r.reset();  // stop + join
  // The poll wakes on the stop signal, not at its 1 s timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 900ms);
}

}  // namespace
}  // namespace qeli::server
