// Stream bonding's server side without sockets: the bond's slots against max_streams
// (atomic under concurrent JOINs), flows pinned to live streams and moved when one goes,
// the session table's JOIN tokens (found while the session lives, gone with it), and
// what AUTH OK pushes for a bonding profile (0.7.16 §3.4, §3.8).
#include "engine/stream_bond.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "handshake/key_schedule.h"
#include "server/auth_ok_builder.h"
#include "server/join_check.h"
#include "server/session_table.h"

namespace qeli::server {
namespace {

using engine::StreamBond;

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0/24
const engine::SessionInbox::Geometry kGeometry{8, 1500, 0, 0};

std::vector<std::uint8_t> tcp_packet(std::uint16_t sport) {
  std::vector<std::uint8_t> p(40, 0);
  p[0] = 0x45;
  p[3] = 40;
  p[9] = 6;
  p[12] = 10, p[13] = 77, p[15] = 2;
  p[16] = 10, p[17] = 77, p[19] = 1;
  p[20] = static_cast<std::uint8_t>(sport >> 8);
  p[21] = static_cast<std::uint8_t>(sport);
  p[23] = 80;
  return p;
}

struct Fixture {
  tunnel::SessionCounters counters;
  engine::SessionInbox primary{kGeometry, counters};
};

TEST(StreamBond, AloneThePrimaryTakesEverything) {
  Fixture f;
  StreamBond bond(4, f.primary, kGeometry, f.counters);
  EXPECT_EQ(bond.live(), 1U);
  for (std::uint16_t port = 1000; port < 1100; ++port) {
    EXPECT_EQ(&bond.pick(tcp_packet(port)), &f.primary);
  }
}

TEST(StreamBond, AttachStopsAtMaxStreamsAndReusesFreedSlots) {
  Fixture f;
  StreamBond bond(3, f.primary, kGeometry, f.counters);
  const auto a = bond.attach();
  const auto b = bond.attach();
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_GE(*a, 1U);
  EXPECT_FALSE(bond.attach());  // primary + 2 = 3
  EXPECT_EQ(bond.detach(*a), 2U);
  const auto c = bond.attach();
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, *a);  // the freed slot, its inbox kept
}

TEST(StreamBond, AJoinMayReplaceADeadPrimary) {
  Fixture f;
  StreamBond bond(2, f.primary, kGeometry, f.counters);
  const auto a = bond.attach();
  ASSERT_TRUE(a);
  EXPECT_FALSE(bond.attach());
  EXPECT_EQ(bond.detach(0), 1U);  // the first connection died; one stream carries on
  const auto b = bond.attach();   // the client restores its second stream
  ASSERT_TRUE(b);
  EXPECT_NE(*b, *a);
  EXPECT_EQ(bond.live(), 2U);
  // Nothing goes to the dead primary any more.
  for (std::uint16_t port = 1000; port < 1100; ++port) {
    EXPECT_NE(&bond.pick(tcp_packet(port)), &f.primary);
  }
}

TEST(StreamBond, FlowsArePinnedAndSpread) {
  Fixture f;
  StreamBond bond(4, f.primary, kGeometry, f.counters);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(bond.attach());
  std::set<engine::SessionInbox*> used;
  for (std::uint16_t port = 1000; port < 1200; ++port) {
    auto* first = &bond.pick(tcp_packet(port));
    EXPECT_EQ(first, &bond.pick(tcp_packet(port)));  // one flow, one stream
    used.insert(first);
  }
  EXPECT_EQ(used.size(), 4U);
}

TEST(StreamBond, ALostStreamsFlowsMoveToTheOthers) {
  Fixture f;
  StreamBond bond(3, f.primary, kGeometry, f.counters);
  const auto a = bond.attach();
  const auto b = bond.attach();
  ASSERT_TRUE(a && b);
  engine::SessionInbox* gone = &bond.inbox(*b);
  bond.detach(*b);
  for (std::uint16_t port = 1000; port < 1200; ++port) {
    EXPECT_NE(&bond.pick(tcp_packet(port)), gone);
  }
}

TEST(StreamBond, ConcurrentJoinsNeverPassTheCap) {
  Fixture f;
  StreamBond bond(5, f.primary, kGeometry, f.counters);
  std::atomic<int> won{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      if (bond.attach()) won++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 4);
  EXPECT_EQ(bond.live(), 5U);
}

TEST(StreamBond, AfterTheLastStreamNoJoinGetsIn) {
  Fixture f;
  StreamBond bond(4, f.primary, kGeometry, f.counters);
  const auto a = bond.attach();
  ASSERT_TRUE(a);
  bond.detach(0);
  EXPECT_EQ(bond.detach(*a), 0U);
  // A JOIN that found the session just before it ended: refused, not a zombie stream.
  EXPECT_FALSE(bond.attach());
  EXPECT_EQ(bond.live(), 0U);
}

TEST(StreamBond, WaitEndsWithTheLastStreamOrTheStop) {
  Fixture f;
  StreamBond bond(2, f.primary, kGeometry, f.counters);
  const auto a = bond.attach();
  ASSERT_TRUE(a);
  bond.detach(0);
  engine::StopSignal stop;
  std::thread t([&] { bond.detach(*a); });
  bond.wait_until_empty(stop);
  t.join();
  EXPECT_EQ(bond.live(), 0U);

  StreamBond other(2, f.primary, kGeometry, f.counters);
  stop.stop();
  other.wait_until_empty(stop);  // the primary is live: only the stop ends the wait
  EXPECT_EQ(other.live(), 1U);
}

// TCP resume (docs/PROTOCOL.md §22): a resumable session's bond stays open with no live
// stream until close_if_empty(); a resume takes a slot even then, and may supersede the
// oldest stream (shutting its socket down) when the bond is full.
TEST(StreamBondResume, KeptOpenUntilClosedIfEmpty) {
  Fixture f;
  StreamBond bond(1, f.primary, kGeometry, f.counters);
  EXPECT_EQ(bond.detach(0, /*keep_open=*/true), 0U);
  engine::StopSignal stop;
  EXPECT_FALSE(bond.wait_for_stream(stop, std::chrono::milliseconds(50))) << "none yet";
  std::thread resume([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(bond.attach());
  });
  EXPECT_TRUE(bond.wait_for_stream(stop, std::chrono::seconds(5)));
  resume.join();
  EXPECT_FALSE(bond.close_if_empty()) << "a stream carries it";
  EXPECT_EQ(bond.detach(1, true), 0U);
  EXPECT_TRUE(bond.close_if_empty());
  EXPECT_FALSE(bond.attach()) << "closed: the session is over";
  EXPECT_FALSE(bond.wait_for_stream(stop, std::chrono::seconds(5))) << "closed: no wait";
}

TEST(StreamBondResume, AResumeSupersedesTheOldestStream) {
  Fixture f;
  StreamBond bond(1, f.primary, kGeometry, f.counters);
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  bond.set_socket(0, sv[0]);
  EXPECT_FALSE(bond.attach()) << "full, and no replacing asked";
  // The stream's thread: its socket fails (shut down by the resume), then it detaches.
  std::thread primary([&] {
    char c;
    EXPECT_EQ(::read(sv[0], &c, 1), 0) << "shut down";
    bond.detach(0, true);
  });
  const auto slot = bond.attach(/*replace=*/true);
  primary.join();
  ASSERT_TRUE(slot);
  EXPECT_EQ(*slot, 1U);
  EXPECT_EQ(bond.live(), 1U);
  // Nothing to shut down and nobody leaving: the wait is bounded.
  EXPECT_FALSE(bond.attach(true, std::chrono::milliseconds(50)));
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(SessionTableJoin, TokenFindsTheLiveSessionOnly) {
  SessionTable t(IpPool(kNet, 24, kNet + 1), 0, kGeometry);
  AdmissionRequest r;
  r.user = "alice";
  r.device_key = "alice:01";
  r.max_streams = 4;
  auto s = t.admit(r);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->bond.max_streams(), 4U);
  handshake::JoinToken token{};
  token[0] = 7;
  EXPECT_EQ(t.find_join(token), nullptr);  // not published yet
  t.publish_join(*s, token);
  EXPECT_EQ(t.find_join(token), *s);
  handshake::JoinToken other = token;
  other[15] = 1;
  EXPECT_EQ(t.find_join(other), nullptr);

  // Superseded by the same device: the old token dies with the old session.
  auto again = t.admit(r);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(t.find_join(token), nullptr);
  t.remove(*s);
  t.publish_join(*again, other);
  EXPECT_EQ(t.find_join(other), *again);
  t.remove(*again);
  EXPECT_EQ(t.find_join(other), nullptr);
}

TEST(BondMaxStreams, OnlyTcpProfilesWithMultipathBondAndAtMostSixteen) {
  config::ProfileConfig p;
  p.transport = config::Transport::kTcp;
  EXPECT_EQ(bond_max_streams(p), 1U);
  p.obf.multipath.enabled = true;
  p.obf.multipath.max_streams = 4;
  EXPECT_EQ(bond_max_streams(p), 4U);
  p.obf.multipath.max_streams = 64;
  EXPECT_EQ(bond_max_streams(p), 16U);
  p.transport = config::Transport::kUdp;
  EXPECT_EQ(bond_max_streams(p), 1U);
}

TEST(BondMaxStreams, AuthOkPushesTheCapAndAdaptive) {
  config::ProfileConfig p;
  p.transport = config::Transport::kTcp;
  p.pool.cidr = config::Ipv4Cidr{{kNet}, 24};
  handshake::JoinToken token{};
  auto ok = build_auth_ok(p, nullptr, kNet + 2, token);
  EXPECT_EQ(ok.max_streams, 1);
  EXPECT_FALSE(ok.multipath_adaptive);
  p.obf.multipath.enabled = true;
  p.obf.multipath.max_streams = 6;
  p.obf.multipath.adaptive = true;
  ok = build_auth_ok(p, nullptr, kNet + 2, token);
  EXPECT_EQ(ok.max_streams, 6);
  EXPECT_TRUE(ok.multipath_adaptive);
}

}  // namespace
}  // namespace qeli::server

namespace qeli::server {
namespace {

// The JOIN's proof of the session's keys (PROTOCOL §19), on a session as admission
// leaves it.
struct ProofFixture {
  SessionTable table{IpPool(kNet, 24, kNet + 1), 0, kGeometry};
  std::shared_ptr<Session> session;
  handshake::JoinRequest join;
  ProofFixture() {
    AdmissionRequest r;
    r.user = "alice";
    r.device_key = "alice:01";
    r.max_streams = 4;
    session = *table.admit(r);
    crypto::Key32 secret;
    secret.span()[0] = 42;
    session->join_secret = std::make_shared<const crypto::Key32>(std::move(secret));
    join.transcript[5] = 9;
  }
  std::array<std::uint8_t, 32> good_proof() const {
    const crypto::Key32 p = handshake::join_proof(*session->join_secret, join.transcript);
    std::array<std::uint8_t, 32> out{};
    std::copy(p.span().begin(), p.span().end(), out.begin());
    return out;
  }
};

TEST(JoinProof, A0716ClientJoinsByTokenAlone) {
  ProofFixture f;
  EXPECT_EQ(join_proof_refusal(*f.session, f.join), "");
}

TEST(JoinProof, OursMustProveTheSessionKeys) {
  ProofFixture f;
  f.session->peer_state.caps = handshake::caps::kCloseNotify;  // its client took ours
  EXPECT_NE(join_proof_refusal(*f.session, f.join), "");       // a bare token
  f.join.proof = f.good_proof();
  EXPECT_EQ(join_proof_refusal(*f.session, f.join), "");
}

TEST(JoinProof, AWrongProofIsRefusedWhoeverSendsIt) {
  ProofFixture f;
  f.join.proof = f.good_proof();
  (*f.join.proof)[31] ^= 1;
  EXPECT_NE(join_proof_refusal(*f.session, f.join), "");
  // Right proof, other connection: the transcript binds it.
  f.join.proof = f.good_proof();
  f.join.transcript[0] ^= 1;
  EXPECT_NE(join_proof_refusal(*f.session, f.join), "");
}

}  // namespace
}  // namespace qeli::server
