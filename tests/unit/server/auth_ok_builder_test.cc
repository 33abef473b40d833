// server/auth_ok_builder.h: the resolvers a profile pushes, per family — the first
// dns.push_servers entry of the family, else the proxy's address (dns.listen,
// dns.listen_ipv6); the IPv6 one (x_dns6) only with the session's IPv6 addresses.
#include "server/auth_ok_builder.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

config::ProfileConfig profile() {
  config::ProfileConfig p;
  p.pool.cidr = config::Ipv4Cidr::parse("10.9.0.0/24").value();
  p.tun.address = config::Ipv4Addr::parse("10.9.0.1").value();
  p.pool.ipv6 = config::Ipv6Cidr::parse("fd00:9::/64").value();
  p.dns.enabled = true;
  p.dns.listen = p.tun.address;
  p.dns.listen_ipv6 = config::Ipv6Addr::parse("fd00:9::1");
  return p;
}

constexpr std::uint32_t kClient = 0x0A090005;  // 10.9.0.5

TEST(AuthOkBuilder, PushesTheResolverOfEachFamily) {
  const handshake::JoinToken token{};
  config::ProfileConfig p = profile();
  auto ok = build_auth_ok(p, nullptr, kClient, token);
  EXPECT_EQ(ok.dns, "10.9.0.1");
  EXPECT_EQ(ok.x_ip6, "fd00:9::5/64");
  EXPECT_EQ(ok.x_dns6, "fd00:9::1");

  // An IPv4 push server replaces the proxy's IPv4 address only.
  p.dns.push_servers = {config::Ipv4Addr::parse("192.0.2.53").value()};
  ok = build_auth_ok(p, nullptr, kClient, token);
  EXPECT_EQ(ok.dns, "192.0.2.53");
  EXPECT_EQ(ok.x_dns6, "fd00:9::1");

  // An IPv6 one replaces the proxy's IPv6 address.
  p.dns.push_servers6 = {config::Ipv6Addr::parse("2001:db8::53").value()};
  ok = build_auth_ok(p, nullptr, kClient, token);
  EXPECT_EQ(ok.x_dns6, "2001:db8::53");

  // Without the proxy's IPv6 address and without an IPv6 push server: none.
  p = profile();
  p.dns.listen_ipv6.reset();
  EXPECT_FALSE(build_auth_ok(p, nullptr, kClient, token).x_dns6.has_value());
}

// As 0.7.16: dns_port is 53 whatever dns.port is (no client platform takes another port;
// the server bridges 53 to the proxy's port, sys/nft_nat.h).
TEST(AuthOkBuilder, PushesPort53WhateverTheProxysPort) {
  const handshake::JoinToken token{};
  config::ProfileConfig p = profile();
  p.dns.port = 5353;
  EXPECT_EQ(build_auth_ok(p, nullptr, kClient, token).dns_port, 53);
  p.dns.push_servers = {config::Ipv4Addr::parse("192.0.2.53").value()};
  EXPECT_EQ(build_auth_ok(p, nullptr, kClient, token).dns_port, 53);
}

// dns.listen = 0.0.0.0: the proxy listens on every address, and clients are given the
// server's tunnel address, never 0.0.0.0.
TEST(AuthOkBuilder, PushesTheTunnelAddressForAProxyOnAllAddresses) {
  const handshake::JoinToken token{};
  config::ProfileConfig p = profile();
  p.dns.listen = config::Ipv4Addr{0};
  EXPECT_EQ(build_auth_ok(p, nullptr, kClient, token).dns, "10.9.0.1");
}

TEST(AuthOkBuilder, NoIpv6ResolverWithoutTheSessionsIpv6Address) {
  const handshake::JoinToken token{};
  config::ProfileConfig p = profile();
  // A user without IPv6 destinations, a static IP outside the pool, a profile without
  // the IPv6 pool: no x_ip6, so no x_dns6.
  auto ok = build_auth_ok(p, nullptr, kClient, token, /*offer_ipv6=*/false);
  EXPECT_FALSE(ok.x_ip6.has_value());
  EXPECT_FALSE(ok.x_dns6.has_value());
  ok = build_auth_ok(p, nullptr, 0x0A080005, token);
  EXPECT_FALSE(ok.x_dns6.has_value());
  p.pool.ipv6.reset();
  p.dns.push_servers6 = {config::Ipv6Addr::parse("2001:db8::53").value()};
  ok = build_auth_ok(p, nullptr, kClient, token);
  EXPECT_FALSE(ok.x_dns6.has_value());
  EXPECT_EQ(ok.dns, "10.9.0.1");
}

// IPv6 route lines: pushed as x_routes6 only beside the session's IPv6 address; ::/0 as
// the two halves; a user's own route lines (either family) replace the profile's.
TEST(AuthOkBuilder, PushesIpv6RoutesBesideTheAddress) {
  const handshake::JoinToken token{};
  config::ProfileConfig p = profile();
  p.routing.routes = {config::parse_route("10.50.0.0/16").value()};
  p.routing.routes6 = {config::parse_route6("2001:db8:7::/48 metric=50").value(),
                       config::parse_route6("::/0").value()};
  auto ok = build_auth_ok(p, nullptr, kClient, token);
  ASSERT_EQ(ok.x_routes6.size(), 3U);
  EXPECT_EQ(ok.x_routes6[0].cidr, "2001:db8:7::/48");
  EXPECT_EQ(ok.x_routes6[0].metric, 50U);
  EXPECT_EQ(ok.x_routes6[1].cidr, "::/1");
  EXPECT_EQ(ok.x_routes6[2].cidr, "8000::/1");
  ASSERT_EQ(ok.routes.size(), 1U);
  EXPECT_EQ(ok.routes[0].cidr, "10.50.0.0/16");

  EXPECT_TRUE(build_auth_ok(p, nullptr, kClient, token, /*offer_ipv6=*/false).x_routes6.empty());

  config::UserConfig u;
  u.routes6 = {config::parse_route6("2001:db8:99::/64").value()};
  ok = build_auth_ok(p, &u, kClient, token);
  ASSERT_EQ(ok.x_routes6.size(), 1U);
  EXPECT_EQ(ok.x_routes6[0].cidr, "2001:db8:99::/64");
  EXPECT_TRUE(ok.routes.empty()) << "the user's own lines replace both families";
}

}  // namespace
}  // namespace qeli::server
