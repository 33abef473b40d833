// The nftables scripts as text (no kernel): names are validated, every requested piece
// is present, and nothing from the spec can escape its quoted/typed position.
#include <gtest/gtest.h>

#include "sys/nft_kill_switch.h"
#include "sys/nft_nat.h"

namespace qeli::sys {
namespace {

IpAddress addr(const char* s) {
  auto a = IpAddress::parse(s);
  EXPECT_TRUE(a.ok()) << s;
  return a.ok() ? *a : IpAddress{};
}

IpPrefix prefix(const char* s) {
  auto p = IpPrefix::parse(s);
  EXPECT_TRUE(p.ok()) << s;
  return p.ok() ? *p : IpPrefix{};
}

bool has(const std::string& script, const std::string& line) {
  return script.find(line) != std::string::npos;
}

TEST(NftNatScript, MasqueradesEachPoolAndClampsMss) {
  NatSpec spec{"eu1", "qeli0", "eth0", {prefix("10.8.0.0/24"), prefix("fd08::/64")},
               true,  {},      {},     53};
  auto s = nat_script(spec);
  ASSERT_TRUE(s.ok()) << s.error().detail;
  // Stale-table replacement happens in the same script (one transaction).
  EXPECT_EQ(s->rfind("add table inet qeli_nat_eu1\ndelete table inet qeli_nat_eu1\n", 0), 0U);
  EXPECT_TRUE(has(*s, "oifname \"eth0\" ip saddr 10.8.0.0/24 masquerade"));
  EXPECT_TRUE(has(*s, "oifname \"eth0\" ip6 saddr fd08::/64 masquerade"));
  EXPECT_TRUE(has(
      *s, "iifname \"qeli0\" tcp flags & (syn | rst) == syn tcp option maxseg size set rt mtu"));
  EXPECT_TRUE(has(
      *s, "oifname \"qeli0\" tcp flags & (syn | rst) == syn tcp option maxseg size set rt mtu"));
  EXPECT_TRUE(has(*s, "iifname \"qeli0\" accept"));

  spec.mss_clamp = false;
  spec.wan.clear();
  auto s2 = nat_script(spec);
  ASSERT_TRUE(s2.ok());
  EXPECT_FALSE(has(*s2, "maxseg"));
  EXPECT_TRUE(has(*s2, "oifname != \"qeli0\" ip saddr 10.8.0.0/24 masquerade"));
}

// A routed IPv6 pool (routing.ipv6.inbound = stateful): no masquerade, and from outside
// only what answers the clients' own connections; also without any NAT pool.
TEST(NftNatScript, GuardsARoutedPoolAfterTheStatefulAccept) {
  NatSpec spec{"eu1", "qeli0", "eth0", {}, true, {prefix("2001:db8:7::/64")}, {}, 53};
  auto s = nat_script(spec);
  ASSERT_TRUE(s.ok()) << s.error().detail;
  EXPECT_FALSE(has(*s, "masquerade"));
  const auto related = s->find("oifname \"qeli0\" ct state established,related accept");
  const auto guard = s->find("oifname \"qeli0\" ip6 daddr 2001:db8:7::/64 drop");
  ASSERT_NE(related, std::string::npos);
  ASSERT_NE(guard, std::string::npos);
  EXPECT_LT(related, guard) << "replies pass before the drop";
  EXPECT_LT(s->find("iifname \"qeli0\" accept"), guard) << "client to client passes too";
}

// dns.port other than 53: clients are told 53 (as 0.7.16), so port 53 of the proxy's
// addresses, reached through the TUN, goes to the proxy's port; no NAT chains without a pool.
TEST(NftNatScript, BridgesDnsPort53ToTheProxysPort) {
  NatSpec spec{"eu1", "qeli0", "", {}, true, {}, {addr("10.9.0.1"), addr("fd00:9::1")}, 5353};
  auto s = nat_script(spec);
  ASSERT_TRUE(s.ok()) << s.error().detail;
  EXPECT_TRUE(has(*s, "type nat hook prerouting priority dstnat;"));
  for (const char* l4 : {"udp", "tcp"}) {
    EXPECT_TRUE(has(*s, std::string("iifname \"qeli0\" ip daddr 10.9.0.1 ") + l4 +
                            " dport 53 dnat ip to 10.9.0.1:5353"));
    EXPECT_TRUE(has(*s, std::string("iifname \"qeli0\" ip6 daddr fd00:9::1 ") + l4 +
                            " dport 53 dnat ip6 to [fd00:9::1]:5353"));
  }
  EXPECT_FALSE(has(*s, "postrouting"));
  EXPECT_FALSE(has(*s, "forward"));

  // Port 53 needs no bridge: with no pool either, there is nothing to write.
  spec.dns_port = 53;
  EXPECT_FALSE(nat_script(spec).ok());
  // With NAT as well: both.
  spec.dns_port = 5353;
  spec.pools = {prefix("10.9.0.0/24")};
  s = nat_script(spec);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(has(*s, "masquerade"));
  EXPECT_TRUE(has(*s, "dnat ip to 10.9.0.1:5353"));
}

TEST(NftNatScript, RefusesBadInput) {
  const IpPrefix pool = prefix("10.8.0.0/24");
  for (const NatSpec& bad :
       {NatSpec{"eu 1", "qeli0", "eth0", {pool}, true, {}, {}, 53},
        NatSpec{"eu1\"; flush ruleset", "qeli0", "eth0", {pool}, true, {}, {}, 53},
        NatSpec{"eu1", "qeli0\"", "eth0", {pool}, true, {}, {}, 53},
        NatSpec{"eu1", "qeli0", "eth0 }", {pool}, true, {}, {}, 53},
        NatSpec{"eu1", "qeli0", "eth0", {}, true, {}, {}, 53},
        NatSpec{"", "q", "e", {pool}, true, {}, {}, 53}}) {
    auto s = nat_script(bad);
    ASSERT_FALSE(s.ok()) << bad.profile;
    EXPECT_EQ(s.error().code, HostErrc::kInvalidArgument);
  }
}

TEST(NftKillSwitchScript, AllowsOnlyTheListedThings) {
  KillSwitchSpec spec;
  spec.tun = "qeli0";
  spec.servers = {addr("198.51.100.7"), addr("2001:db8::7"), addr("198.51.100.7")};
  spec.resolvers = {addr("192.0.2.53")};
  auto s = kill_switch_script(spec);
  ASSERT_TRUE(s.ok()) << s.error().detail;
  EXPECT_EQ(s->rfind("add table inet qeli_ks_qeli0\ndelete table inet qeli_ks_qeli0\n", 0), 0U);
  EXPECT_TRUE(has(*s, "type filter hook output priority filter; policy drop;"));
  EXPECT_TRUE(has(*s, "oifname \"lo\" accept"));
  EXPECT_TRUE(has(*s, "oifname \"qeli0\" accept"));
  EXPECT_TRUE(has(*s, "elements = { 198.51.100.7 }"));  // deduplicated
  EXPECT_TRUE(has(*s, "elements = { 2001:db8::7 }"));
  EXPECT_TRUE(has(*s, "elements = { 192.0.2.53 }"));
  EXPECT_TRUE(has(*s, "udp sport 68 udp dport 67 accept"));
  EXPECT_FALSE(has(*s, "chain forward"));

  spec.gateway_mode = true;
  spec.allow_dhcp = false;
  auto g = kill_switch_script(spec);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(has(*g, "chain forward"));
  EXPECT_TRUE(has(*g, "type filter hook forward priority filter; policy drop;"));
  EXPECT_FALSE(has(*g, "dport 67"));

  spec.tun = "tun0\" accept";
  EXPECT_FALSE(kill_switch_script(spec).ok());
}

}  // namespace
}  // namespace qeli::sys
