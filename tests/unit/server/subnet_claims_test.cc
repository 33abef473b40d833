// SubnetClaims: the server-wide table of the networks behind clients (`client_subnet`) —
// one claimant per network across profiles, its host route added and removed exactly
// once through the claimant's profile, and the uplink's client_to_client rule over them.
#include "server/subnet_claims.h"

#include <gtest/gtest.h>

#include "../../fakes/packet_builder.h"
#include "../../fakes/recording_subnet_host.h"
#include "server/session_policy.h"

namespace qeli::server {
namespace {

config::Ipv4Cidr net4(const char* s) { return config::Ipv4Cidr::parse(s).value(); }
config::Ipv6Cidr net6(const char* s) { return config::Ipv6Cidr::parse(s).value(); }

std::shared_ptr<Session> session(std::uint32_t ip) {
  return std::make_shared<Session>(ip, "u" + std::to_string(ip), "d" + std::to_string(ip), ip,
                                   transport::SockAddr{},
                                   engine::SessionInbox::Geometry{16, 65535, 0, 0});
}

TEST(SubnetClaims, OneClaimantAcrossProfilesAndItsRouteGoesWithIt) {
  SubnetClaims claims;
  test::RecordingSubnetHost tcp, udp;  // two profiles' TUNs
  const auto lan = net4("192.168.77.0/24");
  auto a = session(0x0a4d0002);  // on the TCP profile
  auto b = session(0x0a4e0002);  // the same user's other device, on the UDP profile
  EXPECT_TRUE(claims.empty());
  const auto took = claims.claim(a, {lan}, {net6("2001:db8:77::/48")}, &tcp);
  EXPECT_EQ(took.v4.size() + took.v6.size(), 2U);
  EXPECT_FALSE(claims.empty());
  const auto skipped = claims.claim(b, {lan}, {}, &udp);
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(skipped.skipped, 1U);
  EXPECT_TRUE(udp.calls.empty());  // the host is asked once, on the claimant's TUN
  EXPECT_EQ(tcp.calls, (std::vector<std::string>{"+192.168.77.0/24", "+2001:db8:77::/48"}));
  EXPECT_EQ(claims.find4(0xc0a84d09), a);
  const auto v6 = config::Ipv6Addr::parse("2001:db8:77:5::1").value();
  EXPECT_EQ(claims.find6(v6.bytes.data()), a);
  // Releasing one that holds nothing changes nothing; the holder's release unroutes.
  EXPECT_TRUE(claims.release(b.get()).empty());
  EXPECT_EQ(claims.release(a.get()).v4.size(), 1U);
  // Both removed, through the TCP profile's TUN.
  EXPECT_EQ(tcp.calls, (std::vector<std::string>{"+192.168.77.0/24", "+2001:db8:77::/48",
                                                 "-192.168.77.0/24", "-2001:db8:77::/48"}));
  EXPECT_TRUE(udp.calls.empty());
  EXPECT_TRUE(claims.empty());
  EXPECT_EQ(claims.find4(0xc0a84d09), nullptr);
  EXPECT_TRUE(claims.release(a.get()).empty());  // a second release: nothing
  EXPECT_EQ(tcp.calls.size(), 4U);
}

TEST(SubnetClaims, TheLongestPrefixWinsAndHeldByOtherNamesTheOwner) {
  SubnetClaims claims;
  auto wide = session(2), narrow = session(3);
  claims.claim(wide, {net4("192.168.0.0/16")}, {}, nullptr);
  claims.claim(narrow, {net4("192.168.77.0/24")}, {}, nullptr);
  EXPECT_EQ(claims.find4(0xc0a84d01), narrow);
  EXPECT_EQ(claims.find4(0xc0a80101), wide);
  EXPECT_TRUE(claims.held_by_other4(0xc0a84d01, wide.get()));
  EXPECT_FALSE(claims.held_by_other4(0xc0a84d01, narrow.get()));
  EXPECT_FALSE(claims.held_by_other4(0x08080808, wide.get()));
}

// The uplink: without client_to_client a client cannot send into another client's
// network (the host route would carry it there); with it, it can.
TEST(SubnetClaims, ClientToClientOffCoversOtherSessionsNetworks) {
  SubnetClaims claims;
  auto alice = session(0x0a090002), bob = session(0x0a090003);
  claims.claim(bob, {net4("192.168.77.0/24")}, {}, nullptr);
  config::ProfileConfig p;
  p.pool.cidr = net4("10.9.0.0/24");
  p.tun.address = config::Ipv4Addr::parse("10.9.0.1").value();
  AuthContext ctx;
  ctx.subnet_claims = &claims;
  test::PacketSpec spec;
  spec.src = {10, 9, 0, 2};
  spec.dst = {192, 168, 77, 5};
  const auto pkt = test::build_packet(spec);
  spec.dst = {192, 168, 78, 5};
  const auto elsewhere = test::build_packet(spec);
  p.routing.client_to_client = false;
  const auto closed = inbound_filter(alice.get(), p, ctx);
  EXPECT_FALSE(closed(ByteSpan(pkt.data(), pkt.size())));
  EXPECT_EQ(alice->counters.get(tunnel::SessionCounter::kDropPolicy), 1U);
  EXPECT_TRUE(closed(ByteSpan(elsewhere.data(), elsewhere.size())));
  p.routing.client_to_client = true;
  const auto open = inbound_filter(alice.get(), p, ctx);
  EXPECT_TRUE(open(ByteSpan(pkt.data(), pkt.size())));
  // Its own network is never "another client's".
  bob->subnets = {net4("192.168.77.0/24")};
  spec.src = {192, 168, 77, 9};
  spec.dst = {192, 168, 77, 5};
  const auto own = test::build_packet(spec);
  p.routing.client_to_client = false;
  const auto bobs = inbound_filter(bob.get(), p, ctx);
  EXPECT_TRUE(bobs(ByteSpan(own.data(), own.size())));
}

}  // namespace
}  // namespace qeli::server
