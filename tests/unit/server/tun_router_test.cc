// TunRouter: each downlink packet to the inbox of the session its destination names —
// IPv4 by address, IPv6 through the profile's plan — and what it does with the rest:
// no session (counted), IPv6 for a client that did not negotiate it, a packet above a
// client's reported MTU (ICMP back into the TUN, or fragments into the inbox).
#include "server/tun_router.h"

#include <gtest/gtest.h>

#include "../../fakes/packet_builder.h"

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
  std::shared_ptr<Session> admit(const std::string& user) {
    AdmissionRequest r;
    r.user = user;
    r.device_key = user;
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

}  // namespace
}  // namespace qeli::server
