// check_path and RouteEvents against a real kernel, inside a network namespace created by
// the test. A connected UDP socket stands for the client's connection (check_path asks
// the same of any connected socket; no packet is sent).
//
//   netns pc:   a0 (veth: 192.0.2.2/24, fd00:1::2/64)   b0 (veth: 10.1.0.2/24)
//               198.51.100.0/24 and fd00:99::/64 (the "server") via a0
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "netns_fixture.h"
#include "sys/path_check.h"
#include "sys/route_events.h"

namespace qeli::sys {
namespace {

using test::Netns;

// A UDP socket connected to ip:9 (IPv4 or IPv6 text); -1 on failure.
int connected_udp(const std::string& ip) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (ip.find(':') == std::string::npos) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(9);
    ::inet_pton(AF_INET, ip.c_str(), &a->sin_addr);
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(9);
    ::inet_pton(AF_INET6, ip.c_str(), &a->sin6_addr);
    len = sizeof *a;
  }
  const int fd = ::socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class PathCheckNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ns_.ok()) << "needs root and `ip netns`";
    for (const char* cmd :
         {"ip link add a0 type veth peer name a1", "ip link add b0 type veth peer name b1",
          "ip link set a0 up", "ip link set a1 up", "ip link set b0 up", "ip link set b1 up",
          "ip addr add 192.0.2.2/24 dev a0", "ip addr add fd00:1::2/64 dev a0 nodad",
          "ip addr add 10.1.0.2/24 dev b0", "ip route add 198.51.100.0/24 dev a0",
          "ip route add fd00:99::/64 dev a0"}) {
      auto r = ns_.exec(cmd);
      ASSERT_EQ(r.status, 0) << cmd << ": " << r.out;
    }
  }
  void exec(const std::string& cmd) {
    auto r = ns_.exec(cmd);
    ASSERT_EQ(r.status, 0) << cmd << ": " << r.out;
  }
  // Opens a connection to `ip` in the namespace; it stays open for the test.
  int connect_to(const std::string& ip) {
    const int fd = ns_.run([&] { return connected_udp(ip); });
    EXPECT_GE(fd, 0);
    fds_.push_back(fd);
    return fd;
  }
  PathCheck check(int fd, const std::string& tunnel = "") {
    return ns_.run([&] { return check_path(fd, tunnel); });
  }
  void TearDown() override {
    for (int fd : fds_) ::close(fd);
  }

  Netns ns_{"pc"};
  std::vector<int> fds_;
};

TEST_F(PathCheckNetns, TheRouteItWasOpenedOnIsTheSame) {
  const int fd = connect_to("198.51.100.9");
  EXPECT_EQ(check(fd).verdict, PathVerdict::kSame);
  const int fd6 = connect_to("fd00:99::9");
  EXPECT_EQ(check(fd6).verdict, PathVerdict::kSame);
}

TEST_F(PathCheckNetns, ANewerAddressOnTheSameInterfaceIsNotAMove) {
  const int fd = connect_to("198.51.100.9");
  exec("ip addr add 192.0.2.3/24 dev a0");
  exec("ip route replace 198.51.100.0/24 dev a0 src 192.0.2.3");
  // New connections leave from .3, but .2 still works for this one.
  EXPECT_EQ(check(fd).verdict, PathVerdict::kSame);
}

TEST_F(PathCheckNetns, ItsAddressRemovedIsAMove) {
  const int fd = connect_to("198.51.100.9");
  exec("ip addr add 192.0.2.3/24 dev a0");
  exec("ip route replace 198.51.100.0/24 dev a0 src 192.0.2.3");
  exec("ip addr del 192.0.2.2/24 dev a0");
  const auto c = check(fd);
  EXPECT_EQ(c.verdict, PathVerdict::kMoved);
  EXPECT_NE(c.detail.find("192.0.2.2 is no longer on this host"), std::string::npos) << c.detail;
}

TEST_F(PathCheckNetns, AnIpv6AddressRemovedIsAMove) {
  const int fd = connect_to("fd00:99::9");
  exec("ip addr add fd00:1::3/64 dev a0 nodad");
  exec("ip addr del fd00:1::2/64 dev a0");
  const auto c = check(fd);
  EXPECT_EQ(c.verdict, PathVerdict::kMoved);
  EXPECT_NE(c.detail.find("fd00:1::2"), std::string::npos) << c.detail;
}

TEST_F(PathCheckNetns, TheRouteLeavingThroughAnotherInterfaceIsAMove) {
  const int fd = connect_to("198.51.100.9");
  exec("ip route replace 198.51.100.0/24 dev b0");
  const auto c = check(fd);
  EXPECT_EQ(c.verdict, PathVerdict::kMoved);
  EXPECT_NE(c.detail.find("now leaves through b0 (10.1.0.2), not a0 (192.0.2.2)"),
            std::string::npos)
      << c.detail;
}

TEST_F(PathCheckNetns, NoRouteAtAllOrARouteThroughTheTunnelIsUnknown) {
  const int fd = connect_to("198.51.100.9");
  exec("ip route replace 198.51.100.0/24 dev b0");
  // b0 plays the tunnel: a full tunnel whose pin to the server left with the old network.
  const auto via_tunnel = check(fd, "b0");
  EXPECT_EQ(via_tunnel.verdict, PathVerdict::kUnknown);
  EXPECT_NE(via_tunnel.detail.find("through the tunnel"), std::string::npos) << via_tunnel.detail;
  exec("ip route del 198.51.100.0/24");
  const auto none = check(fd);
  EXPECT_EQ(none.verdict, PathVerdict::kUnknown);
  EXPECT_NE(none.detail.find("no route"), std::string::npos) << none.detail;
}

TEST_F(PathCheckNetns, AMoveThatTookTheRouteWithItIsAMoveThroughTheTunnel) {
  // b0 plays the tunnel: a full tunnel's half-default route covers the server, and the
  // route that pinned it outside the tunnel went with the old network.
  exec("ip route add 198.51.0.0/16 dev b0");
  const int fd = connect_to("198.51.100.9");
  exec("ip addr del 192.0.2.2/24 dev a0");
  exec("ip route del 198.51.100.0/24 dev a0 2>/dev/null || true");
  const auto c = check(fd, "b0");
  EXPECT_EQ(c.verdict, PathVerdict::kMoved);
  EXPECT_TRUE(c.through_tunnel) << c.detail;
  EXPECT_NE(c.detail.find("now through the tunnel"), std::string::npos) << c.detail;
  // Without a tunnel interface named, the same move is a plain one.
  EXPECT_FALSE(check(fd).through_tunnel);
}

TEST_F(PathCheckNetns, AClosedOrUnconnectedSocketIsUnknown) {
  const int fd = ns_.run([] { return ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0); });
  fds_.push_back(fd);
  EXPECT_EQ(check(fd).verdict, PathVerdict::kUnknown);
  EXPECT_EQ(check(-1).verdict, PathVerdict::kUnknown);
}

TEST_F(PathCheckNetns, RouteEventsSignalAnAddressChange) {
  auto ev = ns_.run([] { return RouteEvents::open(); });
  ASSERT_TRUE(ev.ok()) << ev.error();
  EXPECT_FALSE(ev->drain());  // nothing yet
  exec("ip addr add 192.0.2.7/24 dev a0");
  pollfd p{ev->fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 3000), 1);
  EXPECT_TRUE(ev->drain());
  EXPECT_FALSE(ev->drain());  // drained
  exec("ip route replace 198.51.100.0/24 dev b0");
  ASSERT_EQ(::poll(&p, 1, 3000), 1);
  EXPECT_TRUE(ev->drain());
}

}  // namespace
}  // namespace qeli::sys
