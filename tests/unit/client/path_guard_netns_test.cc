// PathGuard in a network namespace created by the test: a watched connection is shut down
// once the host leaves its network, and only then. A connected UDP socket stands for the
// session's TCP connection (shutdown(SHUT_RDWR) makes both readable with POLLHUP).
//
//   netns pg:   a0 (veth: 192.0.2.2/24, 192.0.2.3/24 promoted when .2 goes),
//               198.51.100.0/24 via a0
#include "client/path_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../sys/netns_fixture.h"

namespace qeli::client {
namespace {

using sys::test::Netns;

// A UDP socket from `local` connected to `peer`:9; -1 on failure.
int connected_udp(const char* local, const char* peer) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, local, &a.sin_addr);
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  a.sin_port = htons(9);
  ::inet_pton(AF_INET, peer, &a.sin_addr);
  ok = ok && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (!ok) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True when `fd` was shut down within `ms`.
bool hung_up_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1 && (p.revents & POLLHUP) != 0;
}

class PathGuardNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ns_.ok()) << "needs root and `ip netns`";
    for (const char* cmd :
         {"ip link add a0 type veth peer name a1", "ip link set a0 up", "ip link set a1 up",
          "sysctl -qw net.ipv4.conf.a0.promote_secondaries=1", "ip addr add 192.0.2.2/24 dev a0",
          "ip addr add 192.0.2.3/24 dev a0", "ip route add 198.51.100.0/24 dev a0"}) {
      auto r = ns_.exec(cmd);
      ASSERT_EQ(r.status, 0) << cmd << ": " << r.out;
    }
  }
  Netns ns_{"pg"};
};

TEST_F(PathGuardNetns, ShutsDownAConnectionWhoseAddressLeftAndKeepsTheOthers) {
  PathGuard guard("tun-none");
  struct Opened {
    int moving = -1;
    int staying = -1;
    std::unique_ptr<PathWatch> w1, w2;
  };
  // Watches are made in the namespace: the guard follows the namespace it was asked in.
  Opened o = ns_.run([&] {
    Opened r;
    r.moving = connected_udp("192.0.2.2", "198.51.100.9");
    r.staying = connected_udp("192.0.2.3", "198.51.100.9");
    r.w1 = guard.watch(r.moving);
    r.w2 = guard.watch(r.staying);
    return r;
  });
  ASSERT_GE(o.moving, 0);
  ASSERT_GE(o.staying, 0);
  ASSERT_NE(o.w1, nullptr);
  ASSERT_NE(o.w2, nullptr);
  // An unrelated change: nothing is shut down.
  ASSERT_EQ(ns_.exec("ip addr add 192.0.2.9/24 dev a0").status, 0);
  EXPECT_FALSE(hung_up_within(o.moving, 300));
  ASSERT_EQ(ns_.exec("ip addr del 192.0.2.2/24 dev a0").status, 0);
  EXPECT_TRUE(hung_up_within(o.moving, 3000));
  EXPECT_FALSE(hung_up_within(o.staying, 300));
  o.w1.reset();
  o.w2.reset();
  ::close(o.moving);
  ::close(o.staying);
}

TEST_F(PathGuardNetns, AnEndedWatchLeavesItsSocketAlone) {
  PathGuard guard("tun-none");
  int fd = -1;
  auto w = ns_.run([&] {
    fd = connected_udp("192.0.2.2", "198.51.100.9");
    return guard.watch(fd);
  });
  ASSERT_GE(fd, 0);
  ASSERT_NE(w, nullptr);
  w.reset();
  ASSERT_EQ(ns_.exec("ip addr del 192.0.2.2/24 dev a0").status, 0);
  EXPECT_FALSE(hung_up_within(fd, 500));
  ::close(fd);
}

}  // namespace
}  // namespace qeli::client
