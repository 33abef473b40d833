// MtuProber (handshake/mtu_prober.h) against a simulated path: the ladder below a
// ceiling, EMSGSIZE from the kernel, lost probes and acks, late acks, stray acks, the
// fallback and the time budget. MtuProbeResponder: what a server answers and its bound.
#include "handshake/mtu_prober.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "crypto/random.h"
#include "handshake/mtu_probe_responder.h"
#include "wire/udp_frag.h"

namespace qeli::handshake {
namespace {

using namespace std::chrono_literals;

// A path: sends above `kernel_limit` (outer bytes) fail with EMSGSIZE at once; sends
// above `path_limit` vanish; `lose` may drop any other probe. Acks come back `rtt` later.
struct SimPath {
  std::size_t kernel_limit = 65535;
  std::size_t path_limit = 65535;
  Duration rtt = 20ms;
  std::function<bool(const MtuProbeRequest&)> lose = [](const MtuProbeRequest&) { return false; };
};

struct ProbeRun {
  std::vector<MtuProbeRequest> sent;
  std::size_t refused = 0;
  Duration took{};
};

ProbeRun drive(MtuProber& p, const SimPath& path, Instant t0) {
  ProbeRun run;
  Instant now = t0;
  std::vector<std::pair<Instant, wire::MtuProbe>> acks;
  while (!p.done()) {
    while (auto r = p.next(now)) {
      run.sent.push_back(*r);
      const bool too_big = r->probe.outer_size > path.kernel_limit;
      if (too_big) ++run.refused;
      p.on_sent(too_big, now);
      if (!too_big && r->probe.outer_size <= path.path_limit && !path.lose(*r)) {
        acks.emplace_back(now + path.rtt, r->probe);
      }
    }
    if (p.done()) break;
    // Advance to the earlier of the prober's deadline and the next ack.
    Instant next = *p.deadline();
    for (const auto& a : acks) next = std::min(next, a.first);
    now = next;
    for (auto it = acks.begin(); it != acks.end();) {
      if (it->first <= now) {
        p.on_ack(it->second, now);
        it = acks.erase(it);
      } else {
        ++it;
      }
    }
    if (!p.done() && p.deadline() && now >= *p.deadline()) p.on_timer(now);
  }
  run.took = now - t0;
  return run;
}

MtuProberConfig config(std::size_t ceiling, std::size_t overhead = 76) {
  MtuProberConfig c;
  c.ceiling = ceiling;
  c.outer_overhead = overhead;
  return c;
}

TEST(MtuProber, LadderBelowTheCeiling) {
  const Instant t0{};
  EXPECT_EQ(MtuProber(config(1400), t0).rungs(),
            (std::vector<std::size_t>{1400, 1360, 1320, 1280, 1200, 576}));
  EXPECT_EQ(
      MtuProber(config(9000), t0).rungs(),
      (std::vector<std::size_t>{9000, 6000, 4000, 2500, 2000, 1500, 1360, 1320, 1280, 1200, 576}));
  EXPECT_EQ(MtuProber(config(1500), t0).rungs(),
            (std::vector<std::size_t>{1500, 1360, 1320, 1280, 1200, 576}));
  EXPECT_EQ(MtuProber(config(16638), t0).rungs().size(), 13u);  // ceiling + 11 + floor
  EXPECT_EQ(MtuProber(config(576), t0).rungs(), (std::vector<std::size_t>{576}));
  EXPECT_EQ(MtuProber(config(100), t0).rungs(), (std::vector<std::size_t>{576}));  // clamped
}

TEST(MtuProber, RungThatFitsA1280PathWhenTheEnvelopeOverflows1200) {
  const Instant t0{};
  // QUIC short header (9): 1200 + 85 = 1285 > 1280, so 1280 - 85 = 1195 gets a rung.
  EXPECT_EQ(MtuProber(config(1400, 85), t0).rungs(),
            (std::vector<std::size_t>{1400, 1360, 1320, 1280, 1200, 1195, 576}));
  // obfs seal (13) + QUIC (9): 1280 - 98.
  EXPECT_EQ(MtuProber(config(1400, 98), t0).rungs().at(5), 1182u);
  // Below a ceiling under 1200 the rung still fits in order.
  EXPECT_EQ(MtuProber(config(1198, 85), t0).rungs(), (std::vector<std::size_t>{1198, 1195, 576}));
  // Nothing is added when 1200 fits (plain envelope: 1276) or the ceiling is smaller.
  EXPECT_EQ(MtuProber(config(1400, 76), t0).rungs().size(), 6u);
  EXPECT_EQ(MtuProber(config(1000, 85), t0).rungs(), (std::vector<std::size_t>{1000, 576}));

  // On a 1280-byte path the QUIC-shaped session gets 1195, not 0.7.16's 576.
  SimPath path;
  path.kernel_limit = 1280;
  path.path_limit = 1280;
  MtuProber p(config(1400, 85), t0);
  drive(p, path, t0);
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1195u);
}

TEST(MtuProber, CleanPathTakesTheCeilingAfterOneRoundTrip) {
  MtuProber p(config(1400), Instant{});
  const ProbeRun r = drive(p, SimPath{}, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1400u);
  ASSERT_EQ(r.sent.size(), 6u) << "one round: every rung at once, largest first";
  EXPECT_EQ(r.sent[0].probe.outer_size, 1400 + 76);
  EXPECT_EQ(r.sent[5].probe.outer_size, 576 + 76);
  EXPECT_EQ(r.took, 20ms) << "the largest rung's ack ends it at once";
}

TEST(MtuProber, EmsgsizeSkipsRungsWithoutWaiting) {
  // The kernel knows a 1280-byte path: 1400..1280 rungs (outer 1476..1356) are refused
  // at once, 1200 (outer 1276) goes out and is acked.
  SimPath path;
  path.kernel_limit = 1280;
  path.path_limit = 1280;
  MtuProber p(config(1400), Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1200u);
  EXPECT_EQ(r.refused, 4u);
  EXPECT_EQ(p.refused(), 4u);
  EXPECT_EQ(r.sent.size(), 6u);
  EXPECT_EQ(r.took, 20ms) << "refused rungs cost no time";
}

TEST(MtuProber, SilentBlackHoleCostsTwoRoundsWhateverTheRung) {
  // The path drops big datagrams without telling the kernel: round 1 hears 1200 and 576,
  // round 2 re-probes the four rungs above 1200 and hears nothing.
  SimPath path;
  path.path_limit = 1300;
  MtuProber p(config(1400), Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1200u);
  EXPECT_EQ(r.sent.size(), 6u + 4u);
  EXPECT_EQ(r.took, 2 * 300ms);
}

// The trial: with the QUIC shape (85 bytes of overhead) on a path that silently drops
// datagrams above 1280 bytes, the fitting rung (1195) came sixth; at 2 × 300 ms per rung
// the 3 s budget ran out first and the tunnel got 1400 — up, and moving nothing.
TEST(MtuProber, QuicShapeOnASilent1280PathFindsItsRungWellWithinTheBudget) {
  SimPath path;
  path.path_limit = 1280;
  MtuProber p(config(1400, 85), Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1195u);
  EXPECT_LE(r.took, 1s);
  // The same path with a larger ceiling (jumbo pushed MTU): still within the budget.
  MtuProber big(config(9000, 85), Instant{});
  drive(big, path, Instant{});
  EXPECT_EQ(big.mtu(), 1195u);
}

TEST(MtuProber, OneLostProbeIsRetried) {
  SimPath path;
  int lost = 0;
  path.lose = [&](const MtuProbeRequest&) { return lost++ == 0; };  // the first only
  MtuProber p(config(1400), Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.mtu(), 1400u);
  ASSERT_EQ(r.sent.size(), 7u) << "round 2 re-probes only the rung above the best ack";
  EXPECT_NE(r.sent[0].probe.id, r.sent[6].probe.id);
  EXPECT_EQ(r.sent[0].probe.outer_size, r.sent[6].probe.outer_size);
}

TEST(MtuProber, LateAckForALargerRungWins) {
  // Acks take 400 ms (> the 300 ms timeout): the 1400 probe's ack arrives while 1360 is
  // probed, and 1400 is taken.
  SimPath path;
  path.rtt = 400ms;
  MtuProber p(config(1400), Instant{});
  drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(p.mtu(), 1400u);
}

TEST(MtuProber, StrayAndForgedAcksAreIgnored) {
  MtuProber p(config(1400), Instant{});
  auto r = p.next(Instant{});
  ASSERT_TRUE(r);
  p.on_sent(false, Instant{});
  p.on_ack({static_cast<std::uint16_t>(r->probe.id + 1), r->probe.outer_size}, Instant{});
  p.on_ack({r->probe.id, static_cast<std::uint16_t>(r->probe.outer_size - 1)}, Instant{});
  EXPECT_FALSE(p.done());
  p.on_ack(r->probe, Instant{});
  EXPECT_EQ(p.mtu(), 1400u);
}

TEST(MtuProber, NothingAckedFallsBackToWhatFitsA1280Path) {
  SimPath path;
  path.path_limit = 0;  // the server never answers
  MtuProberConfig c = config(1400);
  c.budget = 10s;
  MtuProber p(c, Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kFallback);
  EXPECT_EQ(p.mtu(), 1200u) << "1200 + 76 fits 1280; the ceiling may not";
  EXPECT_EQ(r.sent.size(), 6u * 2);
  MtuProber quic(config(1400, 85), Instant{});
  drive(quic, path, Instant{});
  EXPECT_EQ(quic.outcome(), MtuProbeOutcome::kFallback);
  EXPECT_EQ(quic.mtu(), 1195u);
  MtuProber low(config(1000), Instant{});
  drive(low, path, Instant{});
  EXPECT_EQ(low.mtu(), 1000u) << "never above the ceiling";
}

TEST(MtuProber, FallbackSkipsWhatTheKernelRefused) {
  SimPath path;
  path.kernel_limit = 1400;  // 1400+76 and 1360+76 refused; the rest vanish
  path.path_limit = 0;
  MtuProberConfig c = config(1400);
  c.budget = 10s;
  MtuProber p(c, Instant{});
  drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kFallback);
  EXPECT_EQ(p.mtu(), 1200u);
  SimPath tiny;
  tiny.kernel_limit = 1000;  // a local link of 1000 bytes: only 576 + 76 may leave
  tiny.path_limit = 0;
  MtuProber q(c, Instant{});
  drive(q, tiny, Instant{});
  EXPECT_EQ(q.mtu(), 576u) << "never a size the kernel refused";
}

TEST(MtuProber, BudgetBoundsTheRun) {
  SimPath path;
  path.path_limit = 0;
  MtuProberConfig c = config(9000);
  c.timeout = 2s;  // two rounds would take 4 s
  MtuProber p(c, Instant{});
  const ProbeRun r = drive(p, path, Instant{});
  EXPECT_EQ(p.outcome(), MtuProbeOutcome::kFallback);
  EXPECT_EQ(p.mtu(), 1200u);
  EXPECT_EQ(r.took, 3s);
  EXPECT_FALSE(p.deadline());
  EXPECT_FALSE(p.next(Instant{} + 4s));
  // An ack that came before the budget ran out is kept.
  SimPath slow;
  slow.path_limit = 1300;
  slow.rtt = 2500ms;
  MtuProber q(c, Instant{});
  drive(q, slow, Instant{});
  EXPECT_EQ(q.outcome(), MtuProbeOutcome::kProbed);
  EXPECT_EQ(q.mtu(), 1200u);
}

TEST(MtuProbeResponder, EchoesProbesOnly) {
  crypto::DeterministicRng rng(7);
  MtuProbeResponder resp;
  const wire::MtuProbe probe{0x1234, 1476};
  const Bytes d = wire::build_mtu_probe(probe, 1400, rng);
  const Bytes ack = resp.on_probe(d, Instant{});
  ASSERT_EQ(ack.size(), 10u);
  EXPECT_LE(ack.size(), d.size());
  auto parsed = wire::parse_mtu_probe(ack);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->is_ack);
  EXPECT_EQ(parsed->probe.id, 0x1234);
  EXPECT_EQ(parsed->probe.outer_size, 1476);
  // An ack, a fragment of another kind, garbage and a truncated probe get nothing.
  EXPECT_TRUE(resp.on_probe(ack, Instant{}).empty());
  EXPECT_TRUE(resp.on_probe(wire::build_junk(20, rng), Instant{}).empty());
  const Bytes garbage = {0x17, 0x03, 0x03, 0, 0};
  EXPECT_TRUE(resp.on_probe(garbage, Instant{}).empty());
  EXPECT_TRUE(resp.on_probe(ByteSpan(d).first(9), Instant{}).empty());
  EXPECT_EQ(resp.answered(), 1u);
  EXPECT_EQ(resp.refused(), 4u);
}

TEST(MtuProbeResponder, BoundedPerWindow) {
  crypto::DeterministicRng rng(8);
  MtuProbeResponder resp;
  const Bytes d = wire::build_mtu_probe({1, 600}, 600, rng);
  const Instant t0 = Instant{} + 100s;
  for (std::size_t i = 0; i < MtuProbeResponder::kMaxAcks; ++i) {
    EXPECT_FALSE(resp.on_probe(d, t0 + std::chrono::milliseconds(i * 100)).empty()) << i;
  }
  EXPECT_TRUE(resp.on_probe(d, t0 + 5s).empty());
  EXPECT_TRUE(resp.on_probe(d, t0 + 9999ms).empty());
  EXPECT_FALSE(resp.on_probe(d, t0 + 10s).empty()) << "a new window";
  EXPECT_EQ(resp.answered(), MtuProbeResponder::kMaxAcks + 1);
  EXPECT_EQ(resp.refused(), 2u);
}

}  // namespace
}  // namespace qeli::handshake
