// server/ipv6_plan.h: the IPv6 address plan (pool.ipv6.cidr beside pool.cidr) maps each
// IPv4 host offset to the same IPv6 host offset and back, refuses addresses outside the
// IPv6 pool or past pool.cidr's hosts; and the inbound filter (server/session_policy.h)
// applies the source check, client_to_client and allowed_networks to IPv6 packets.
#include "server/ipv6_plan.h"

#include <gtest/gtest.h>

#include <memory>

#include "fakes/packet_builder.h"
#include "server/destination_acl.h"
#include "server/session_policy.h"

namespace qeli::server {
namespace {

config::ProfileConfig profile(const char* pool4, const char* pool6, const char* server4) {
  config::ProfileConfig p;
  p.pool.cidr = config::Ipv4Cidr::parse(pool4).value();
  p.pool.ipv6 = config::Ipv6Cidr::parse(pool6).value();
  p.tun.address = config::Ipv4Addr::parse(server4).value();
  return p;
}

std::uint32_t v4(const char* s) { return config::Ipv4Addr::parse(s).value().value; }
config::Ipv6Addr v6(const char* s) { return config::Ipv6Addr::parse(s).value(); }

TEST(Ipv6Plan, AbsentWithoutThePool) {
  config::ProfileConfig p;
  EXPECT_FALSE(Ipv6Plan::of(p).has_value());
}

TEST(Ipv6Plan, HostOffsetsMapBothWays) {
  const auto plan = Ipv6Plan::of(profile("10.9.0.0/24", "fd00:9::/64", "10.9.0.1")).value();
  EXPECT_EQ(plan.server_address().to_string(), "fd00:9::1");
  // The config's view of the same address (dns.listen_ipv6 = auto, its checks).
  EXPECT_EQ(profile("10.9.0.0/24", "fd00:9::/64", "10.9.0.1").server_ipv6(), plan.server_address());
  EXPECT_EQ(profile("10.8.0.0/16", "fd00:8:0:0:0:1::/96", "10.8.1.2").server_ipv6()->to_string(),
            "fd00:8::1:0:102");
  EXPECT_EQ(plan.address_of(v4("10.9.0.5")).to_string(), "fd00:9::5");
  EXPECT_EQ(plan.address_of(v4("10.9.0.254")).to_string(), "fd00:9::fe");
  EXPECT_EQ(plan.ipv4_of(v6("fd00:9::5").bytes.data()), v4("10.9.0.5"));
  EXPECT_EQ(plan.ipv4_of(v6("fd00:9::ff").bytes.data()), v4("10.9.0.255"));
  // Past pool.cidr's 256 hosts, or outside the /64: no session.
  EXPECT_FALSE(plan.ipv4_of(v6("fd00:9::100").bytes.data()).has_value());
  EXPECT_FALSE(plan.ipv4_of(v6("fd00:9:0:1::5").bytes.data()).has_value());
  EXPECT_FALSE(plan.ipv4_of(v6("2001:db8::5").bytes.data()).has_value());
}

TEST(Ipv6Plan, ANarrowPoolAndAWideOne) {
  // A /120 holds exactly a /24's offsets; a /16 IPv4 pool needs 16 host bits.
  const auto narrow = Ipv6Plan::of(profile("10.9.0.0/24", "fd00:9::100/120", "10.9.0.1")).value();
  EXPECT_EQ(narrow.address_of(v4("10.9.0.255")).to_string(), "fd00:9::1ff");
  EXPECT_EQ(narrow.ipv4_of(v6("fd00:9::1ff").bytes.data()), v4("10.9.0.255"));
  EXPECT_FALSE(narrow.ipv4_of(v6("fd00:9::ff").bytes.data()).has_value());
  const auto wide = Ipv6Plan::of(profile("10.8.0.0/16", "fd00:8::/64", "10.8.0.1")).value();
  EXPECT_EQ(wide.address_of(v4("10.8.3.4")).to_string(), "fd00:8::304");
  EXPECT_EQ(wide.ipv4_of(v6("fd00:8::ffff").bytes.data()), v4("10.8.255.255"));
  EXPECT_FALSE(wide.ipv4_of(v6("fd00:8::1:0").bytes.data()).has_value());
}

test::PacketBytes packet6(const char* src, const char* dst) {
  test::PacketSpec s;
  s.version = 6;
  s.proto = 17;
  s.payload = 20;
  s.src = v6(src).bytes;
  s.dst = v6(dst).bytes;
  return test::build_packet(s);
}

struct FilterCase {
  config::ProfileConfig p = profile("10.9.0.0/24", "fd00:9::/64", "10.9.0.1");
  config::UserConfig user;
  std::unique_ptr<Session> s =
      std::make_unique<Session>(1, "alice", "alice", v4("10.9.0.5"), transport::SockAddr{},
                                engine::SessionInbox::Geometry{8, 1500, 0, 0});
  std::function<bool(ByteSpan)> filter() {
    AuthContext ctx;
    ctx.user = &user;
    return inbound_filter(s.get(), p, ctx);
  }
};

TEST(Ipv6Filter, SourceMustBeTheSessionsAddress) {
  FilterCase c;
  auto f = c.filter();
  // Before the session negotiated IPv6, a wrong source is the 0.7.16 drop (a router
  // solicitation of an old client), not a spoof.
  EXPECT_FALSE(f(packet6("fe80::5", "ff02::2")));
  EXPECT_FALSE(f(packet6("fe80::5", "2001:db8::7")));
  EXPECT_EQ(c.s->counters.get(tunnel::SessionCounter::kDropIpv6), 1U);
  EXPECT_EQ(c.s->counters.get(tunnel::SessionCounter::kDropPolicy), 1U) << "link-scope multicast";
  c.s->peer_state.ipv6 = true;
  EXPECT_TRUE(f(packet6("fd00:9::5", "2001:db8::7")));
  EXPECT_FALSE(f(packet6("fd00:9::6", "2001:db8::7"))) << "another client's address";
  EXPECT_FALSE(f(packet6("fe80::5", "2001:db8::7"))) << "link-local";
  EXPECT_FALSE(f(packet6("::", "ff02::1:ff00:5"))) << "a listener report: link scope";
  EXPECT_EQ(c.s->counters.get(tunnel::SessionCounter::kDropBadSource), 2U);
  EXPECT_EQ(c.s->counters.get(tunnel::SessionCounter::kDropPolicy), 2U);
  // A profile without the IPv6 pool takes no IPv6 at all.
  c.p.pool.ipv6.reset();
  EXPECT_FALSE(c.filter()(packet6("fd00:9::5", "2001:db8::7")));
}

TEST(Ipv6Filter, ClientToClientAndAllowedNetworks) {
  FilterCase c;
  c.s->peer_state.ipv6 = true;
  EXPECT_TRUE(c.filter()(packet6("fd00:9::5", "fd00:9::1"))) << "the server";
  EXPECT_FALSE(c.filter()(packet6("fd00:9::5", "fd00:9::6"))) << "another client";
  c.p.routing.client_to_client = true;
  EXPECT_TRUE(c.filter()(packet6("fd00:9::5", "fd00:9::6")));
  // An IPv4-only list allows no IPv6; an IPv6 entry allows its network.
  c.user.allowed_networks = {config::Ipv4Cidr::parse("10.0.0.0/8").value()};
  EXPECT_FALSE(c.filter()(packet6("fd00:9::5", "2001:db8::7")));
  c.user.allowed_networks6 = {config::Ipv6Cidr::parse("2001:db8::/32").value()};
  EXPECT_TRUE(c.filter()(packet6("fd00:9::5", "2001:db8::7")));
  EXPECT_FALSE(c.filter()(packet6("fd00:9::5", "2001:db9::7")));
  EXPECT_EQ(c.s->counters.get(tunnel::SessionCounter::kDropPolicy), 3U);
}

TEST(Ipv6Filter, DestinationAclFamilies) {
  const DestinationAcl only6({}, {config::Ipv6Cidr::parse("2001:db8::/32").value()});
  EXPECT_FALSE(only6.unrestricted());
  EXPECT_FALSE(only6.allows(v4("192.0.2.1"))) << "a restriction stays one for IPv4 too";
  EXPECT_TRUE(only6.allows6(v6("2001:db8:1::1").bytes.data()));
  EXPECT_TRUE(DestinationAcl().allows6(v6("2001:db8:1::1").bytes.data()));
}

}  // namespace
}  // namespace qeli::server
