// TunRouter: each downlink packet to the inbox of the session its destination names —
// IPv4 by address, IPv6 through the profile's plan — and what it does with the rest:
// no session (counted), IPv6 for a client that did not negotiate it, a packet above a
// client's reported MTU (ICMP back into the TUN, or fragments into the inbox), and the
// networks behind clients (`client_subnet`, claimed by their sessions).
#include "server/tun_router.h"

#include <gtest/gtest.h>

#include "../../fakes/packet_builder.h"
#include "../../fakes/recording_subnet_host.h"

namespace qeli::server {
namespace {

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0/24, server 10.77.0.1

config::ProfileConfig profile(bool ipv6) {
  config::ProfileConfig p;
  p.name = "p1";
  p.pool.cidr = config::Ipv4Cidr::parse("10.77.0.0/24").value();
  p.tun.address = config::Ipv4Addr::parse("10.77.0.1").value();
  p.tun.mtu = 1400;
  if (ipv6) p.pool.ipv6 = config::Ipv6Cidr::parse("fd00:77::/64").value();
  return p;
}

struct Fixture {
  explicit Fixture(bool ipv6 = false)
      : p(profile(ipv6)),
        sessions(IpPool(kNet, 24, kNet + 1), 0, engine::SessionInbox::Geometry{16, 65535, 0, 0}),
        router(p, sessions, counters) {}
  std::shared_ptr<Session> admit(const std::string& user,
                                 std::vector<config::Ipv4Cidr> subnets = {},
                                 std::vector<config::Ipv6Cidr> subnets6 = {},
                                 const std::string& device = "") {
    AdmissionRequest r;
    r.user = user;
    r.device_key = device.empty() ? user : user + ":" + device;
    r.subnets = std::move(subnets);
    r.subnets6 = std::move(subnets6);
    return *sessions.admit(r);
  }
  /// Routes these packets as one TUN read.
  void route(const std::vector<test::PacketBytes>& pkts) {
    tunio::PacketBatch batch(64, 65535);
    for (const auto& pk : pkts) batch.push(pk);
    router.route(batch, std::chrono::steady_clock::now());
  }
  /// What is waiting in a session's inbox (drained).
  static std::vector<Bytes> inbox(Session& s) {
    std::vector<Bytes> out;
    tunio::PacketBatch b = s.inbox.make_batch(0, 0, 0, 0);
    EXPECT_TRUE(s.inbox.fill(b));  // everything pending, in one swap
    for (std::size_t i = 0; i < b.size(); ++i)
      out.emplace_back(b.packet(i).begin(), b.packet(i).end());
    return out;
  }

  config::ProfileConfig p;
  ProfileCounters counters;
  SessionTable sessions;
  TunRouter router;
};

test::PacketBytes to4(std::uint32_t dst, std::size_t payload = 100, bool df = true) {
  test::PacketSpec s;
  s.proto = 17;
  for (int i = 0; i < 4; ++i) s.dst[i] = static_cast<std::uint8_t>(dst >> (24 - 8 * i));
  s.payload = payload;
  s.frag = df ? 0x4000 : 0;
  return test::build_packet(s);
}

TEST(TunRouter, EachPacketReachesTheSessionItsDestinationNames) {
  Fixture f;
  auto a = f.admit("alice");
  auto b = f.admit("bob");
  const auto pa = to4(a->tunnel_ip), pb = to4(b->tunnel_ip), pa2 = to4(a->tunnel_ip, 300);
  f.route({pa, pb, pa2});
  EXPECT_EQ(Fixture::inbox(*a),
            (std::vector<Bytes>{Bytes(pa.begin(), pa.end()), Bytes(pa2.begin(), pa2.end())}));
  EXPECT_EQ(Fixture::inbox(*b), (std::vector<Bytes>{Bytes(pb.begin(), pb.end())}));
  EXPECT_EQ(f.counters.tun_no_route.load(), 0U);
  EXPECT_TRUE(f.router.icmp().empty());
}

TEST(TunRouter, NoSessionThereIsCountedAndDropped) {
  Fixture f;
  auto a = f.admit("alice");
  f.route({to4(kNet + 200), to4(0x08080808)});
  EXPECT_EQ(f.counters.tun_no_route.load(), 2U);
  EXPECT_TRUE(Fixture::inbox(*a).empty());
}

TEST(TunRouter, Ipv6GoesThroughThePlanAndOnlyToClientsThatNegotiatedIt) {
  Fixture f(/*ipv6=*/true);
  auto a = f.admit("alice");
  auto old = f.admit("old-client");
  a->peer_state.ipv6.store(true);
  const Ipv6Plan plan = *Ipv6Plan::of(f.p);
  auto to6 = [&](std::uint32_t ip) {
    test::PacketSpec s = test::v6({});
    s.proto = 17;
    s.dst = plan.address_of(ip).bytes;
    return test::build_packet(s);
  };
  const auto pa = to6(a->tunnel_ip);
  f.route({pa, to6(old->tunnel_ip), to6(kNet + 200)});
  EXPECT_EQ(Fixture::inbox(*a), (std::vector<Bytes>{Bytes(pa.begin(), pa.end())}));
  EXPECT_TRUE(Fixture::inbox(*old).empty());
  EXPECT_EQ(old->counters.get(tunnel::SessionCounter::kDropIpv6), 1U);  // a 0.7.16 client
  EXPECT_EQ(f.counters.tun_no_route.load(), 1U);
}

TEST(TunRouter, Ipv6WithoutAPlanIsDroppedSilently) {
  Fixture f(/*ipv6=*/false);
  auto a = f.admit("alice");
  test::PacketSpec s = test::v6({});
  f.route({test::build_packet(s)});
  EXPECT_TRUE(Fixture::inbox(*a).empty());
  EXPECT_EQ(f.counters.tun_no_route.load(), 0U);  // not ours to route: 0.7.16 is IPv4 only
}

TEST(TunRouter, AboveTheClientsMtuDfGetsIcmpAndTheRestIsFragmented) {
  Fixture f;
  auto a = f.admit("alice");
  a->downlink_mtu.store(1000);
  const auto small = to4(a->tunnel_ip, 500);
  f.route({to4(a->tunnel_ip, 1300, /*df=*/true), small, to4(a->tunnel_ip, 1300, /*df=*/false)});
  // DF: an ICMP "fragmentation needed" for the TUN, nothing for the session.
  ASSERT_EQ(f.router.icmp().size(), 1U);
  EXPECT_EQ(f.router.icmp().packet(0)[9], 1);  // IPv4 protocol ICMP
  EXPECT_EQ(a->counters.get(tunnel::SessionCounter::kFragNeededSent), 1U);
  // The small one as it was, the non-DF one as fragments of ≤ 1000 bytes.
  const auto got = Fixture::inbox(*a);
  ASSERT_EQ(got.size(), 3U);  // 1328 bytes at ≤ 1000: two fragments
  EXPECT_EQ(got[0], Bytes(small.begin(), small.end()));
  for (std::size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i].size(), 1000U);
  EXPECT_EQ(a->counters.get(tunnel::SessionCounter::kFragTx), 1U);  // packets fragmented
}

config::Ipv4Cidr net4(const char* s) { return config::Ipv4Cidr::parse(s).value(); }
config::Ipv6Cidr net6(const char* s) { return config::Ipv6Cidr::parse(s).value(); }

test::PacketBytes to6(const char* dst) {
  test::PacketSpec s = test::v6({});
  s.proto = 17;
  s.dst = config::Ipv6Addr::parse(dst).value().bytes;
  return test::build_packet(s);
}

TEST(TunRouter, ANetworkBehindAClientReachesItsSessionByTheLongestPrefix) {
  Fixture f(/*ipv6=*/true);
  auto a = f.admit("alice", {net4("192.168.77.0/24")}, {net6("2001:db8:77::/48")});
  auto b = f.admit("bob", {net4("192.168.0.0/16")});
  a->peer_state.ipv6.store(true);
  const std::uint32_t in_a = 0xc0a84d05;  // 192.168.77.5: both match, a's /24 is longer
  const std::uint32_t in_b = 0xc0a80905;  // 192.168.9.5: only b's /16
  const auto pa = to4(in_a), pb = to4(in_b), pa6 = to6("2001:db8:77:1::9");
  f.route({pa, pb, pa6, to6("2001:db8:78::1"), to4(0xc0a90001)});
  EXPECT_EQ(Fixture::inbox(*a),
            (std::vector<Bytes>{Bytes(pa.begin(), pa.end()), Bytes(pa6.begin(), pa6.end())}));
  EXPECT_EQ(Fixture::inbox(*b), (std::vector<Bytes>{Bytes(pb.begin(), pb.end())}));
  EXPECT_EQ(f.counters.tun_no_route.load(), 2U);  // outside every claimed network
}

TEST(TunRouter, TheFirstClaimantKeepsANetworkUntilItsSessionEnds) {
  Fixture f;
  test::RecordingSubnetHost host;
  f.sessions.set_subnets(nullptr, &host);
  const auto lan = net4("192.168.77.0/24");
  auto first = f.admit("alice", {lan});
  auto second = f.admit("mallory", {lan, net4("192.168.78.0/24")});
  const auto p = to4(0xc0a84d05);
  f.route({p});
  EXPECT_EQ(Fixture::inbox(*first).size(), 1U);
  EXPECT_TRUE(Fixture::inbox(*second).empty());
  EXPECT_EQ(host.calls,
            (std::vector<std::string>{"+192.168.77.0/24", "+192.168.78.0/24"}));  // once each
  // What each session holds is also what it may send from (session_policy.cc).
  EXPECT_EQ(first->subnets, (std::vector<config::Ipv4Cidr>{lan}));
  EXPECT_EQ(second->subnets, (std::vector<config::Ipv4Cidr>{net4("192.168.78.0/24")}));
  // The holder ends: its network is free (and unrouted) and not handed on by itself.
  f.sessions.remove(first);
  f.route({p});
  EXPECT_TRUE(Fixture::inbox(*second).empty());
  EXPECT_EQ(f.counters.tun_no_route.load(), 1U);
  EXPECT_EQ(host.calls.back(), "-192.168.77.0/24");
  // The next session to claim it gets it.
  auto third = f.admit("alice", {lan});
  f.route({p});
  EXPECT_EQ(Fixture::inbox(*third).size(), 1U);
  EXPECT_EQ(host.calls.back(), "+192.168.77.0/24");
}

TEST(TunRouter, ASupersedingSessionTakesItsPredecessorsNetworks) {
  Fixture f;
  test::RecordingSubnetHost host;
  f.sessions.set_subnets(nullptr, &host);
  const auto lan = net4("192.168.77.0/24");
  auto old = f.admit("alice", {lan}, {}, "01");
  auto fresh = f.admit("alice", {lan}, {}, "01");  // the same device again
  EXPECT_TRUE(old->superseded.load());
  const auto p = to4(0xc0a84d05);
  f.route({p});
  EXPECT_EQ(Fixture::inbox(*fresh).size(), 1U);
  EXPECT_TRUE(Fixture::inbox(*old).empty());
  // The old one's late removal leaves the new claim (and its host route) alone.
  f.sessions.remove(old);
  f.route({p});
  EXPECT_EQ(Fixture::inbox(*fresh).size(), 1U);
  EXPECT_EQ(host.calls,
            (std::vector<std::string>{"+192.168.77.0/24", "-192.168.77.0/24", "+192.168.77.0/24"}));
}

}  // namespace
}  // namespace qeli::server
