#include "dns/resolver.h"

#include <gtest/gtest.h>

#include <set>

#include "dns/name.h"
#include "dns_builder.h"

namespace qeli::dns {
namespace {

using namespace test;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::uint32_t kClientIp = 0x0a090002;

// One resolver, a deterministic RNG and a hand-driven clock.
struct Harness {
  explicit Harness(std::size_t upstreams = 2, seconds timeout = seconds{4}) : rng(7) {
    ResolverConfig c;
    c.upstream_count = upstreams;
    c.timeout = timeout;
    c.cache_size = 100;
    c.blocklist.add(*parse_domain("blocked.example"));
    cfg = c;
  }
  Resolver& r() {
    if (!resolver) resolver = std::make_unique<Resolver>(cfg, rng, counters);
    return *resolver;
  }
  Actions ask(const Msg& q, Transport t = Transport::kUdp, std::uint64_t key = 1) {
    Actions out;
    r().on_query({key, kClientIp, t}, q.build(), now, out);
    return out;
  }
  Actions answer(const Actions::Send& s, Msg a) {
    a.id = id_of(s.message);
    Actions out;
    r().on_upstream_reply(s.attempt, a.build(), now, out);
    return out;
  }
  Actions tick(Duration d) {
    now += d;
    Actions out;
    r().on_timer(now, out);
    return out;
  }
  std::uint64_t n(Counter c) const { return counters.get(c); }

  ResolverConfig cfg;
  crypto::DeterministicRng rng;
  Counters counters;
  std::unique_ptr<Resolver> resolver;
  Instant now{};
};

Msg a_answer(const Msg& q, std::uint32_t ttl = 300) {
  Msg a = answer_to(q);
  a.answer = {a_record(ttl)};
  return a;
}

TEST(DnsResolver, ForwardsWithARandomIdAndAnswersWithTheClients) {
  Harness h;
  const Msg q = query("www.example.com", rrtype::kA, 0x1111);
  Actions out = h.ask(q);
  ASSERT_EQ(out.sends.size(), 1U);
  EXPECT_TRUE(out.replies.empty());
  const auto s = out.sends[0];
  EXPECT_EQ(s.upstream, 0U);
  EXPECT_EQ(s.transport, Transport::kUdp);
  const Bytes qb = q.build();
  EXPECT_EQ(Bytes(s.message.begin() + 2, s.message.end()), Bytes(qb.begin() + 2, qb.end()));
  out = h.answer(s, a_answer(q));
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(id_of(out.replies[0].message), 0x1111);
  EXPECT_EQ(out.closes, std::vector<AttemptId>{s.attempt});
  EXPECT_EQ(h.r().in_flight(), 0U);
}

TEST(DnsResolver, UpstreamIdsAreUnpredictable) {
  Harness h;
  std::set<std::uint16_t> ids;
  for (int i = 0; i < 50; ++i) {
    Actions out = h.ask(query("n" + std::to_string(i) + ".example", rrtype::kA, 0x1111));
    ids.insert(id_of(out.sends.at(0).message));
  }
  EXPECT_GT(ids.size(), 45U);  // the client's fixed ID is never reused upstream
}

TEST(DnsResolver, SecondLookupIsACacheHitWithAgedTtlAndTheClientsCase) {
  Harness h;
  const Msg q = query("www.example.com");
  Actions out = h.ask(q);
  h.answer(out.sends.at(0), a_answer(q, 300));
  h.now += seconds{100};
  const Msg again = query("WWW.Example.Com", rrtype::kA, 0x2222);
  out = h.ask(again);
  EXPECT_TRUE(out.sends.empty());
  ASSERT_EQ(out.replies.size(), 1U);
  const Bytes& m = out.replies[0].message;
  EXPECT_EQ(id_of(m), 0x2222);
  auto p = parse_response(m);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->min_ttl, 200U);
  const Bytes qb = again.build();
  EXPECT_EQ(Bytes(m.begin() + 12, m.begin() + 12 + 17), Bytes(qb.begin() + 12, qb.begin() + 29));
  EXPECT_EQ(h.n(Counter::kCacheHits), 1U);
  EXPECT_EQ(h.n(Counter::kForwarded), 1U);
}

TEST(DnsResolver, SpoofedOrMismatchedRepliesAreIgnored) {
  Harness h;
  const Msg q = query("www.example.com");
  Actions out = h.ask(q);
  const auto s = out.sends.at(0);
  Msg spoof = a_answer(q);
  spoof.id = static_cast<std::uint16_t>(id_of(s.message) + 1);
  Actions r;
  h.r().on_upstream_reply(s.attempt, spoof.build(), h.now, r);
  EXPECT_TRUE(r.empty());
  Msg other = a_answer(query("evil.example"));
  other.id = id_of(s.message);
  h.r().on_upstream_reply(s.attempt, other.build(), h.now, r);
  EXPECT_TRUE(r.empty());
  const Bytes junk{1, 2, 3};
  h.r().on_upstream_reply(s.attempt, junk, h.now, r);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(h.n(Counter::kBadReplies), 3U);
  r = h.answer(s, a_answer(q));  // the genuine one still counts
  EXPECT_EQ(r.replies.size(), 1U);
}

TEST(DnsResolver, TruncatedUdpAnswerIsFetchedAgainOverTcp) {
  Harness h;
  const Msg q = query("big.example", 16, 0x3333);
  Actions out = h.ask(q);
  const auto udp = out.sends.at(0);
  Msg tc = answer_to(q);
  tc.flags |= 0x0200;
  out = h.answer(udp, tc);
  EXPECT_TRUE(out.replies.empty());
  EXPECT_EQ(out.closes, std::vector<AttemptId>{udp.attempt});
  ASSERT_EQ(out.sends.size(), 1U);
  const auto tcp = out.sends[0];
  EXPECT_EQ(tcp.transport, Transport::kTcp);
  EXPECT_EQ(tcp.upstream, udp.upstream);
  Msg full = answer_to(q);
  full.answer = {txt_record(300, 3000)};
  out = h.answer(tcp, full);
  ASSERT_EQ(out.replies.size(), 1U);
  // Too big for a classic 512-byte UDP client: header + question with TC set.
  auto p = parse_response(out.replies[0].message);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->header.flags & flag::kTc, 0);
  EXPECT_EQ(p->header.ancount, 0);
  EXPECT_EQ(h.n(Counter::kTcpFallbacks), 1U);
  EXPECT_EQ(h.n(Counter::kTruncated), 1U);
  // The client retries over TCP and gets the whole answer from the cache.
  out = h.ask(q, Transport::kTcp, 9);
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_GT(out.replies[0].message.size(), 3000U);
  EXPECT_TRUE(out.sends.empty());
}

TEST(DnsResolver, DeadFirstUpstreamFailsOverAndIsSkippedThenProbed) {
  Harness h;  // 2 upstreams, 4 s: 2 s per attempt
  const Msg q1 = query("one.example");
  Actions out = h.ask(q1);
  ASSERT_EQ(out.sends.at(0).upstream, 0U);
  EXPECT_TRUE(h.tick(milliseconds{1999}).sends.empty());
  out = h.tick(milliseconds{1});
  ASSERT_EQ(out.sends.size(), 1U);
  EXPECT_EQ(out.sends[0].upstream, 1U);
  EXPECT_TRUE(h.r().upstream_down(0));
  EXPECT_EQ(h.n(Counter::kUpstreamTimeouts), 1U);
  EXPECT_EQ(h.n(Counter::kFailovers), 1U);
  out = h.answer(out.sends[0], a_answer(q1));
  ASSERT_EQ(out.replies.size(), 1U);
  // Held down: the next question goes straight to upstream 1, no waiting.
  out = h.ask(query("two.example"));
  ASSERT_EQ(out.sends.size(), 1U);
  EXPECT_EQ(out.sends[0].upstream, 1U);
  h.answer(out.sends[0], a_answer(query("two.example")));
  // After the hold-down (5 s): upstream 1 AND a probe to upstream 0.
  h.now += seconds{6};
  const Msg q3 = query("three.example");
  out = h.ask(q3);
  ASSERT_EQ(out.sends.size(), 2U);
  EXPECT_EQ(out.sends[0].upstream, 1U);
  EXPECT_EQ(out.sends[1].upstream, 0U);
  // The probe answers first: upstream 0 is back and preferred again.
  out = h.answer(out.sends[1], a_answer(q3));
  EXPECT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(out.closes.size(), 2U);
  EXPECT_FALSE(h.r().upstream_down(0));
  out = h.ask(query("four.example"));
  ASSERT_EQ(out.sends.size(), 1U);
  EXPECT_EQ(out.sends[0].upstream, 0U);
}

TEST(DnsResolver, LateAnswerOfATimedOutAttemptStillCounts) {
  Harness h;
  const Msg q = query("slow.example");
  Actions out = h.ask(q);
  const auto first = out.sends.at(0);
  out = h.tick(seconds{2});
  ASSERT_EQ(out.sends.size(), 1U);
  out = h.answer(first, a_answer(q));
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(out.closes.size(), 2U);  // both attempts' sockets
  EXPECT_FALSE(h.r().upstream_down(0));
}

TEST(DnsResolver, RefusedUpstreamFailsOverAtOnce) {
  Harness h;
  const Msg q = query("x.example");
  Actions out = h.ask(q);
  const auto s = out.sends.at(0);
  Actions e;
  h.r().on_upstream_error(s.attempt, h.now, e);
  ASSERT_EQ(e.sends.size(), 1U);
  EXPECT_EQ(e.sends[0].upstream, 1U);
  EXPECT_EQ(e.closes, std::vector<AttemptId>{s.attempt});
  EXPECT_EQ(h.n(Counter::kUpstreamErrors), 1U);
}

TEST(DnsResolver, ServfailMovesOnAndTheLastAnswerIsPassedThrough) {
  Harness h;
  const Msg q = query("sf.example");
  Actions out = h.ask(q);
  out = h.answer(out.sends.at(0), answer_to(q, 2));
  ASSERT_EQ(out.sends.size(), 1U);
  EXPECT_EQ(out.sends[0].upstream, 1U);
  out = h.answer(out.sends[0], answer_to(q, 2));
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(flags_of(out.replies[0].message) & 0xF, 2);
  EXPECT_EQ(h.r().cache().size(), 0U);  // SERVFAIL is not cached
}

TEST(DnsResolver, NoAnswerWithinTheTimeoutIsServfail) {
  Harness h(1, seconds{3});
  const Msg q = query("void.example", rrtype::kA, 0x5555);
  h.ask(q);
  ASSERT_TRUE(h.r().next_deadline().has_value());
  EXPECT_EQ(*h.r().next_deadline(), h.now + seconds{3});
  Actions out = h.tick(seconds{3});
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(id_of(out.replies[0].message), 0x5555);
  EXPECT_EQ(flags_of(out.replies[0].message) & 0xF, 2);
  EXPECT_EQ(h.n(Counter::kServfail), 1U);
  EXPECT_EQ(h.r().in_flight(), 0U);
  EXPECT_FALSE(h.r().next_deadline().has_value());
}

TEST(DnsResolver, AttemptsPerQuestionAreBounded) {
  Harness h(2);  // every upstream refuses at once, round after round
  Actions out = h.ask(query("flaky.example"));
  std::size_t sends = 0;
  while (!out.sends.empty()) {
    ++sends;
    const AttemptId a = out.sends.at(0).attempt;
    out.clear();
    h.r().on_upstream_error(a, h.now, out);
  }
  EXPECT_EQ(sends, kMaxAttemptsPerQuery);
  ASSERT_EQ(out.replies.size(), 1U);  // then SERVFAIL, without waiting for the timeout
  EXPECT_EQ(flags_of(out.replies[0].message) & 0xF, 2);
}

TEST(DnsResolver, BlockedNamesNeverGoUpstream) {
  Harness h;
  Actions out = h.ask(query("www.blocked.example"));
  EXPECT_TRUE(out.sends.empty());
  ASSERT_EQ(out.replies.size(), 1U);
  auto p = parse_response(out.replies[0].message);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->header.ancount, 1);
  EXPECT_EQ(h.n(Counter::kBlocked), 1U);
}

TEST(DnsResolver, MalformedQueriesGetFormerrAndResponsesNothing) {
  Harness h;
  Actions out;
  Bytes two = query("a.example").build();
  two[5] = 2;
  h.r().on_query({1, kClientIp, Transport::kUdp}, two, h.now, out);
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(flags_of(out.replies[0].message) & 0xF, 1);
  out.clear();
  Bytes resp = query("a.example").build();
  resp[2] |= 0x80;
  h.r().on_query({1, kClientIp, Transport::kUdp}, resp, h.now, out);
  EXPECT_TRUE(out.empty());
  const Bytes tiny{1, 2, 3};
  h.r().on_query({1, kClientIp, Transport::kUdp}, tiny, h.now, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(h.n(Counter::kMalformed), 3U);
}

TEST(DnsResolver, InFlightIsBoundedPerSourceAndInTotal) {
  Harness h;
  h.cfg.max_in_flight = 3;
  h.cfg.max_in_flight_per_source = 2;
  EXPECT_EQ(h.ask(query("a.example")).sends.size(), 1U);
  EXPECT_EQ(h.ask(query("b.example")).sends.size(), 1U);
  Actions out = h.ask(query("c.example"));
  EXPECT_TRUE(out.sends.empty());
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(flags_of(out.replies[0].message) & 0xF, 2);
  Actions other;
  h.r().on_query({2, kClientIp + 1, Transport::kUdp}, query("d.example").build(), h.now, other);
  EXPECT_EQ(other.sends.size(), 1U);
  h.r().on_query({3, kClientIp + 2, Transport::kUdp}, query("e.example").build(), h.now, other);
  EXPECT_EQ(h.n(Counter::kOverload), 2U);
}

TEST(DnsResolver, AForgottenClientGetsNoAnswerButTheCacheFills) {
  Harness h;
  const Msg q = query("gone.example");
  Actions out = h.ask(q, Transport::kTcp, 42);
  h.r().forget_client(42);
  out = h.answer(out.sends.at(0), a_answer(q));
  EXPECT_TRUE(out.replies.empty());
  EXPECT_EQ(out.closes.size(), 1U);
  EXPECT_EQ(h.r().cache().size(), 1U);
}

TEST(DnsResolver, UdpAnswersAboveTheEdnsBufferAreTruncatedAt1232) {
  Harness h;
  Msg q = query("mid.example", 16);
  q.additional = {opt_record(4096)};
  Actions out = h.ask(q);
  Msg a = answer_to(q);
  a.answer = {txt_record(60, 1000)};
  out = h.answer(out.sends.at(0), a);
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_EQ(flags_of(out.replies[0].message) & 0x0200, 0);  // ~1050 bytes fit
  a.answer = {txt_record(60, 1300)};
  Msg q2 = query("big2.example", 16);
  q2.additional = {opt_record(4096)};
  out = h.ask(q2);
  a.qname = q2.qname;
  out = h.answer(out.sends.at(0), a);
  ASSERT_EQ(out.replies.size(), 1U);
  EXPECT_NE(flags_of(out.replies[0].message) & 0x0200, 0);
}

}  // namespace
}  // namespace qeli::dns
