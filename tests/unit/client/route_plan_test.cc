// Which routes a session installs: split, full by config/link (never by the server: a
// pushed route broader than /8 is refused, as 0.7.16's client does), and the resolvers
// routed through the tunnel in a split tunnel.
#include "client/route_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace qeli::client {
namespace {

bool has(const RoutePlan& p, const std::string& cidr) {
  return std::any_of(p.via_tun.begin(), p.via_tun.end(),
                     [&](const TunRoute& r) { return r.cidr == cidr; });
}

TEST(RoutePlan, SplitTunnelInstallsThePushedRoutesWithTheirMetric) {
  config::ClientConfig cfg;
  const auto p = plan_routes(cfg, {{"10.8.0.0/24", "", 100}, {"not-a-cidr", "", 5}});
  EXPECT_FALSE(p.full_tunnel);
  EXPECT_FALSE(p.pin_server);
  ASSERT_EQ(p.via_tun.size(), 1U);
  EXPECT_EQ(p.via_tun[0].cidr, "10.8.0.0/24");
  EXPECT_EQ(p.via_tun[0].metric, 100U);
  EXPECT_FALSE(p.blackhole_ipv6);
}

TEST(RoutePlan, GatewayMakesAFullTunnelOfTwoHalves) {
  config::ClientConfig cfg;
  cfg.gateway = true;
  const auto p = plan_routes(cfg, {});
  EXPECT_TRUE(p.full_tunnel);
  EXPECT_TRUE(p.pin_server);
  EXPECT_TRUE(has(p, "0.0.0.0/1"));
  EXPECT_TRUE(has(p, "128.0.0.0/1"));
  EXPECT_TRUE(p.blackhole_ipv6);
  cfg.allow_ipv6_leak = true;
  EXPECT_FALSE(plan_routes(cfg, {}).blackhole_ipv6);
}

// IPv6 inside the tunnel (docs/PROTOCOL.md §21): the full tunnel takes IPv6 through the
// TUN instead of making it unreachable; pushed IPv6 routes only then.
TEST(RoutePlan, Ipv6InsideRoutesIpv6ThroughTheTunnel) {
  config::ClientConfig cfg;
  const std::vector<handshake::PushedRoute> pushed{{"2001:db8::/32", "", 100},
                                                   {"10.8.0.0/24", "", 100}};
  const auto split4 = plan_routes(cfg, pushed, {}, false);
  EXPECT_FALSE(has(split4, "2001:db8::/32")) << "not negotiated: IPv4 only";
  const auto split6 = plan_routes(cfg, pushed, {}, true);
  EXPECT_TRUE(has(split6, "2001:db8::/32"));
  EXPECT_FALSE(has(split6, "::/1"));
  cfg.gateway = true;
  const auto full = plan_routes(cfg, {}, {}, true);
  EXPECT_TRUE(has(full, "::/1"));
  EXPECT_TRUE(has(full, "8000::/1"));
  EXPECT_FALSE(full.blackhole_ipv6);
  EXPECT_TRUE(plan_routes(cfg, {}, {}, false).blackhole_ipv6);
}

// 0.7.16's client refuses a pushed route broader than /8: a server may not make a split
// tunnel a full one (a /0, or the two /1 halves, would capture everything).
TEST(RoutePlan, APushedRouteBroaderThanSlash8IsRefusedNeverAFullTunnel) {
  config::ClientConfig cfg;
  const std::vector<handshake::PushedRoute> pushed{
      {"0.0.0.0/0", "", 100},           {"0.0.0.0/1", "", 100},  {"128.0.0.0/1", "", 100},
      {"10.0.0.0/7", "", 100},          {"10.0.0.0/8", "", 100}, {"10.9.0.0/16", "10.9.0.1", 7},
      {"10.10.0.0/16", "not-an-ip", 7}, {"::/1", "", 100},       {"2001:db8::/32", "", 100}};
  const auto p = plan_routes(cfg, pushed, {}, true);
  EXPECT_FALSE(p.full_tunnel);
  EXPECT_FALSE(p.pin_server);
  std::vector<std::string> tun, refused;
  for (const auto& r : p.via_tun) tun.push_back(r.cidr);
  for (const auto& r : p.refused) refused.push_back(r.cidr);
  EXPECT_EQ(tun, (std::vector<std::string>{"10.0.0.0/8", "10.9.0.0/16", "2001:db8::/32"}));
  EXPECT_EQ(refused, (std::vector<std::string>{"0.0.0.0/0", "0.0.0.0/1", "128.0.0.0/1",
                                               "10.0.0.0/7", "10.10.0.0/16", "::/1"}));
  // A pushed route keeps its own gateway and metric.
  EXPECT_EQ(p.via_tun[1].gateway, "10.9.0.1");
  EXPECT_EQ(p.via_tun[1].metric, 7U);
  EXPECT_EQ(p.via_tun[1].source, RouteSource::kPushed);
}

TEST(RoutePlan, SplitTunnelRoutesTheResolversThroughTheTunnel) {
  config::ClientConfig cfg;
  const auto p = plan_routes(cfg, {{"10.8.0.0/24", "", 100}}, {"1.1.1.1", "10.8.0.1", "::1"});
  EXPECT_TRUE(has(p, "1.1.1.1/32")) << "a resolver outside the pushed routes";
  EXPECT_TRUE(has(p, "10.8.0.1/32"));
  EXPECT_FALSE(has(p, "::1/128")) << "the tunnel carries IPv4 only";
  // With IPv6 inside, an IPv6 resolver (x_dns6) gets its /128.
  const auto p6 = plan_routes(cfg, {{"10.8.0.0/24", "", 100}}, {"10.8.0.1", "fd00:9::1"}, true);
  EXPECT_TRUE(has(p6, "10.8.0.1/32"));
  EXPECT_TRUE(has(p6, "fd00:9::1/128"));
  EXPECT_FALSE(has(plan_routes(cfg, {}, {"fd00:9::1"}, false), "fd00:9::1/128"));
  cfg.gateway = true;
  EXPECT_FALSE(has(plan_routes(cfg, {}, {"fd00:9::1"}, true), "fd00:9::1/128")) << "::/1 holds it";
  EXPECT_FALSE(has(plan_routes(cfg, {}, {"1.1.1.1"}), "1.1.1.1/32")) << "already covered";
  // A resolver already routed as itself is not routed twice.
  cfg.gateway = false;
  const auto once = plan_routes(cfg, {{"10.8.0.1/32", "", 100}}, {"10.8.0.1"});
  EXPECT_EQ(std::count_if(once.via_tun.begin(), once.via_tun.end(),
                          [](const TunRoute& r) { return r.cidr == "10.8.0.1/32"; }),
            1);
}

TEST(RoutePlan, ExcludeGoesThroughTheUnderlay) {
  config::ClientConfig cfg;
  cfg.exclude.push_back(*config::Ipv4Cidr::parse("192.0.2.0/24"));
  const auto p = plan_routes(cfg, {});
  ASSERT_EQ(p.via_underlay.size(), 1U);
  EXPECT_EQ(p.via_underlay[0], "192.0.2.0/24");
  EXPECT_FALSE(p.pin_server);
}

TEST(RoutePlan, Ipv6IncludeNeedsIpv6InsideAndIpv6ExcludeAlwaysGoesOutside) {
  config::ClientConfig cfg;
  cfg.include6.push_back(*config::Ipv6Cidr::parse("2001:db8::/32", false));
  cfg.exclude6.push_back(*config::Ipv6Cidr::parse("2001:db8:1::/48", false));
  const auto with6 = plan_routes(cfg, {}, {}, true);
  EXPECT_TRUE(has(with6, "2001:db8::/32"));
  EXPECT_TRUE(with6.not_carried.empty());
  ASSERT_EQ(with6.via_underlay.size(), 1U);
  EXPECT_EQ(with6.via_underlay[0], "2001:db8:1::/48");
  // Without IPv6 inside, the include is reported, not routed into a tunnel that drops it.
  const auto without = plan_routes(cfg, {}, {}, false);
  EXPECT_FALSE(has(without, "2001:db8::/32"));
  ASSERT_EQ(without.not_carried.size(), 1U);
  EXPECT_EQ(without.not_carried[0], "2001:db8::/32");
  EXPECT_EQ(without.via_underlay.size(), 1U);
}

}  // namespace
}  // namespace qeli::client
