// UdpClientHandshake against UdpServerHandshake over an in-memory datagram path with
// faults: loss (every Nth, or random with a fixed seed), reordering, duplication and an
// MTU limit. Time is simulated: the loop jumps to the next delivery or deadline.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <variant>

#include "handshake/udp_client_handshake.h"
#include "handshake/udp_server_handshake.h"
#include "harness.h"
#include "wire/udp_cookie.h"
#include "wire/udp_frag.h"
#include "wire/udp_obfs.h"

namespace qeli::handshake {
namespace {

constexpr auto kLatency = Millis(20);

struct Path {
  std::size_t drop_every = 0;  ///< drop datagram i when (i + 1) % drop_every == 0
  double loss = 0;             ///< random loss probability
  bool duplicate = false;      ///< deliver every datagram twice
  bool reorder = false;        ///< random extra delay 0..40 ms per datagram
  std::size_t count = 0;       ///< datagrams offered so far
};

struct Outcome {
  State client = State::kRunning, server = State::kRunning;
  Failure client_failure = Failure::kNone, server_failure = Failure::kNone;
  std::optional<UdpClientSession> client_session;
  std::optional<UdpServerSession> server_session;
  std::size_t largest_datagram = 0;
  std::size_t client_datagrams = 0;
  std::size_t server_received = 0, server_pre_auth_sent = 0;
  std::size_t server_pre_auth_on_wire = 0;  ///< independently summed from the wire
  Duration elapsed{};
};

struct Sim {
  explicit Sim(std::uint64_t seed = 1) : h(Mode::kFakeTls, seed), gen(42) {
    h.client_cfg.timeout = Seconds(30);
    h.server_cfg.timeout = Seconds(30);
    client.inner = h.client_cfg;
    server.inner = h.server_cfg;
  }

  test::Harness h;
  UdpClientConfig client;
  UdpServerConfig server;
  Path c2s, s2c;
  std::mt19937 gen;
  Duration argon2_time = Millis(80);  ///< the "off-worker" verification delay

  bool pass(Path& p) {
    ++p.count;
    if (p.drop_every != 0 && p.count % p.drop_every == 0) return false;
    return std::uniform_real_distribution<double>(0, 1)(gen) >= p.loss;
  }

  Outcome run() {
    Outcome r;
    UdpClientHandshake c(client, h.client_rng);
    UdpServerHandshake s(server, h.server_rng);
    const Instant t0{};
    Instant now = t0;
    std::multimap<Instant, std::pair<bool, Bytes>> wire;  // (to_server, datagram)
    std::optional<Instant> accept_at;
    bool server_authed = false;

    auto send = [&](bool to_server, std::vector<Bytes> dgrams) {
      Path& p = to_server ? c2s : s2c;
      for (Bytes& d : dgrams) {
        r.largest_datagram = std::max(r.largest_datagram, d.size());
        if (to_server) ++r.client_datagrams;
        if (!to_server && !server_authed) r.server_pre_auth_on_wire += d.size();
        if (!pass(p)) continue;
        const int copies = p.duplicate ? 2 : 1;
        for (int i = 0; i < copies; ++i) {
          Duration delay = kLatency;
          if (p.reorder) delay += Millis(std::uniform_int_distribution<int>(0, 40)(gen));
          wire.emplace(now + delay, std::make_pair(to_server, d));
        }
      }
    };

    c.start(now);
    while (now - t0 < Seconds(60)) {
      send(true, c.take_datagrams());
      if (auto ev = s.take_event()) {
        EXPECT_TRUE(std::holds_alternative<AuthRequest>(*ev));
        accept_at = now + argon2_time;  // verified elsewhere; answered later
      }
      if (accept_at && now >= *accept_at) {
        accept_at.reset();
        server_authed = true;
        s.accept(h.auth_ok);
      }
      send(false, s.take_datagrams());
      if (c.state() != State::kRunning && s.state() != State::kRunning && wire.empty()) break;
      if (c.state() == State::kFailed) break;

      Instant next = now + Seconds(60);
      if (!wire.empty()) next = std::min(next, wire.begin()->first);
      for (auto d : {c.deadline(), s.deadline(), accept_at}) {
        if (d) next = std::min(next, *d);
      }
      now = std::max(now, next);
      while (!wire.empty() && wire.begin()->first <= now) {
        auto [to_server, d] = std::move(wire.begin()->second);
        wire.erase(wire.begin());
        to_server ? s.on_datagram(d, now) : c.on_datagram(d, now);
      }
      c.on_timer(now);
      s.on_timer(now);
    }
    r.elapsed = now - t0;
    r.client = c.state();
    r.server = s.state();
    r.client_failure = c.failure();
    r.server_failure = s.failure();
    r.server_received = s.bytes_received();
    r.server_pre_auth_sent = s.pre_auth_bytes_sent();
    if (r.client == State::kDone) r.client_session = c.take_session();
    if (r.server == State::kDone) r.server_session = s.take_session();
    return r;
  }
};

// The UDP configs around the harness's inner ones.
UdpServerConfig server_of(const test::Harness& h) {
  UdpServerConfig c;
  c.inner = h.server_cfg;
  return c;
}
UdpClientConfig client_of(const test::Harness& h) {
  UdpClientConfig c;
  c.inner = h.client_cfg;
  return c;
}

// The hello fragments among a client's first datagrams (without junk and the cookie
// marker; bare datagrams).
std::vector<Bytes> hello_fragments(const std::vector<Bytes>& datagrams) {
  std::vector<Bytes> out;
  for (const Bytes& d : datagrams) {
    if (wire::classify_datagram(d) == wire::DatagramKind::kClientHelloFragment) out.push_back(d);
  }
  return out;
}

// Both sessions are live: a packet sealed by one opens at the other, both ways.
void expect_working_tunnel(Outcome& r) {
  ASSERT_EQ(r.client, State::kDone) << to_string(r.client_failure);
  ASSERT_EQ(r.server, State::kDone) << to_string(r.server_failure);
  auto& cs = r.client_session->session;
  auto& ss = r.server_session->session;
  ASSERT_TRUE(cs.auth_ok.has_value());
  EXPECT_EQ(cs.auth_ok->client_ip, "10.8.0.2");
  const Bytes ping(84, 0x45);
  Bytes rec(wire::record_size(wire::Framing::kTls, ping.size(), 0));
  ASSERT_TRUE(cs.send.seal(ping, 0, rec).ok());
  auto opened = ss.recv.open_in_place(rec);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(Bytes(opened->data.begin(), opened->data.end()), ping);
  Bytes back(wire::record_size(wire::Framing::kTls, ping.size(), 0));
  ASSERT_TRUE(ss.send.seal(ping, 0, back).ok());
  EXPECT_TRUE(cs.recv.open_in_place(back).ok());
  EXPECT_GE(r.client_session->next_packet_number, 2U);
  EXPECT_GE(r.server_session->next_packet_number, 2U);
}

// The anti-amplification bound, byte-exact: what the server put on the wire before
// authentication equals its own count, and never exceeds 3× what it counted in.
void expect_amplification_bound(const Outcome& r) {
  EXPECT_EQ(r.server_pre_auth_on_wire, r.server_pre_auth_sent);
  EXPECT_LE(r.server_pre_auth_sent, wire::kAmplificationFactor * r.server_received);
}

// Steps a fresh pair through the hello, the server's flight and the client's AUTH at
// `now`, up to the server's AuthRequest (taken); returns the AUTH datagrams as sent.
std::vector<Bytes> up_to_auth_request(UdpClientHandshake& c, UdpServerHandshake& s, Instant now) {
  c.start(now);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, now);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  std::vector<Bytes> auth = c.take_datagrams();
  for (Bytes d : auth) s.on_datagram(d, now);
  EXPECT_TRUE(s.take_event().has_value());
  return auth;
}

// From the server's cached flight (taken here) to a finished handshake at `now`: the flight
// to the client, its AUTH to the server, the verdict, AUTH OK back.
void finish_from_flight(UdpClientHandshake& c, UdpServerHandshake& s, const test::Harness& h,
                        Instant now) {
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, now);
  ASSERT_TRUE(s.take_event().has_value());
  s.accept(h.auth_ok);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  EXPECT_EQ(c.state(), State::kDone);
}

TEST(UdpHandshake, CleanPath) {
  Sim sim;
  Outcome r = sim.run();
  expect_working_tunnel(r);
  expect_amplification_bound(r);
  EXPECT_LT(r.elapsed, Millis(500));  // no retransmission needed
  // the cookie marker, 2 hello fragments, AUTH, capabilities
  EXPECT_EQ(r.client_datagrams, 1U + 2U + 1U + 1U);
}

TEST(UdpHandshake, QuicShapeAndObfs) {
  Sim sim;
  wire::UdpObfs key("profile psk");
  sim.client.quic = true;
  sim.client.obfs = &key;
  sim.server.obfs = &key;
  Outcome r = sim.run();
  expect_working_tunnel(r);
  expect_amplification_bound(r);
  EXPECT_TRUE(r.server_session->envelope.quic);  // auto-detected
  EXPECT_TRUE(r.client_session->envelope.quic);
  EXPECT_EQ(r.client_session->server_cid, r.server_session->envelope.cid);
}

TEST(UdpHandshake, WrongObfsKeyNeverAnswers) {
  Sim sim;
  wire::UdpObfs a("a"), b("b");
  sim.client.obfs = &a;
  sim.server.obfs = &b;
  Outcome r = sim.run();
  EXPECT_EQ(r.client, State::kFailed);
  EXPECT_EQ(r.client_failure, Failure::kTimeout);
  EXPECT_EQ(r.server_pre_auth_sent, 0U);
}

TEST(UdpHandshake, JunkBeforeHelloIsDropped) {
  Sim sim;
  sim.client.junk = {5, 40, 2000};  // jmax above a chunk is clamped to 1163
  Outcome r = sim.run();
  expect_working_tunnel(r);
  expect_amplification_bound(r);
  EXPECT_EQ(r.client_datagrams, 5U + 1U + 2U + 1U + 1U);
  EXPECT_LE(r.largest_datagram, wire::kFragHeaderSize + wire::kFragMaxChunk);
}

TEST(UdpHandshake, DropEveryNthDatagram) {
  for (std::size_t n : {2UL, 3UL, 4UL}) {
    SCOPED_TRACE(n);
    Sim sim;
    sim.c2s.drop_every = n;
    sim.s2c.drop_every = n;
    Outcome r = sim.run();
    expect_working_tunnel(r);
    expect_amplification_bound(r);
    // Every 2nd/3rd loses a hello or flight piece: recovered by a retransmit. (Every 4th
    // may only hit the capability frame, which is data, not handshake.)
    if (n <= 3) {
      EXPECT_GT(r.elapsed, Millis(1000));
    }
  }
}

TEST(UdpHandshake, TenPercentRandomLoss) {
  int done = 0, retransmitted = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Sim sim(seed);
    sim.gen.seed(static_cast<std::mt19937::result_type>(seed * 7919));
    sim.c2s.loss = 0.10;
    sim.s2c.loss = 0.10;
    Outcome r = sim.run();
    expect_amplification_bound(r);
    if (r.client == State::kDone && r.server == State::kDone) {
      expect_working_tunnel(r);
      ++done;
    }
    if (r.elapsed > Millis(1000)) ++retransmitted;
  }
  EXPECT_EQ(done, 10);
  EXPECT_GE(retransmitted, 1);  // the loss really hit the handshake
}

TEST(UdpHandshake, ReorderAndDuplicate) {
  Sim sim;
  sim.c2s.reorder = sim.s2c.reorder = true;
  sim.c2s.duplicate = sim.s2c.duplicate = true;
  Outcome r = sim.run();
  expect_working_tunnel(r);
  expect_amplification_bound(r);
}

// An MTU-1280 path: with QUIC shape + obfs (the largest envelope) no datagram exceeds
// 1280 − 40 (IPv6) − 8 (UDP) = 1232 bytes of UDP payload, so IPv4 (1252) fits as well —
// even with an AUTH OK large enough to need msg 6 fragments.
TEST(UdpHandshake, Mtu1280PathNeedsNoIpFragments) {
  Sim sim;
  wire::UdpObfs key("psk");
  sim.client.quic = true;
  sim.client.obfs = &key;
  sim.server.obfs = &key;
  for (int i = 0; i < 60; ++i) {
    sim.h.auth_ok.routes.push_back({"10." + std::to_string(i) + ".0.0/16", "10.8.0.1", 100});
  }
  Outcome r = sim.run();
  expect_working_tunnel(r);
  EXPECT_EQ(r.client_session->session.auth_ok->routes.size(), 62U);
  constexpr std::size_t kIpv6Payload =
      wire::kIpv6MinMtu - wire::kIpv6HeaderSize - wire::kUdpHeaderSize;
  EXPECT_EQ(kIpv6Payload, 1232U);
  EXPECT_LE(r.largest_datagram, kIpv6Payload);
  EXPECT_EQ(r.largest_datagram, 1200U);  // 6 + 1163 + 18 + 13: a full fragment
}

TEST(UdpHandshake, ServerNeverAnswersAShortStranger) {
  test::Harness h(Mode::kFakeTls);
  UdpServerConfig cfg;
  cfg.inner = h.server_cfg;
  UdpServerHandshake s(cfg, h.server_rng);
  // One short datagram of every kind: nothing comes back.
  for (Bytes d : {Bytes{0x01}, Bytes{0xf0, 0x9b, 0x71, 0x01, 0x00, 0x01, 0x16, 0x03},
                  Bytes{0x17, 0x03, 0x03, 0x00, 0x01, 0x00}, Bytes(60, 0xc3)}) {
    s.on_datagram(d, Instant{});
    EXPECT_TRUE(s.take_datagrams().empty());
  }
  EXPECT_EQ(s.pre_auth_bytes_sent(), 0U);
  EXPECT_EQ(s.state(), State::kFailed);  // the complete 2-byte "hello" is under 1200
  EXPECT_EQ(s.failure(), Failure::kHelloTooSmall);
}

TEST(UdpHandshake, HelloUnder1200IsNeverAnswered) {
  test::Harness h(Mode::kFakeTls);
  ClientConfig cc = h.client_cfg;
  cc.pad_to_min = 0;
  ClientHandshake inner(cc, h.client_rng);
  inner.start(Instant{});
  Bytes hello = inner.take_output().at(0).bytes;
  ASSERT_GE(hello.size(), 1200U);  // the real hello is large (ML-KEM ek) ...
  hello.resize(1199);              // ... so cut one down to test the gate itself
  UdpServerConfig cfg;
  cfg.inner = h.server_cfg;
  UdpServerHandshake s(cfg, h.server_rng);
  std::vector<Bytes> frags = wire::fragment_message(wire::udp_msg::kClientHello, hello).value();
  for (Bytes& f : frags) {
    s.on_datagram(f, Instant{});
  }
  EXPECT_TRUE(s.take_datagrams().empty());
  EXPECT_EQ(s.failure(), Failure::kHelloTooSmall);
}

// A spoofed source replaying a captured hello: every re-emission is paid for by the
// replayed bytes, never beyond 3× (checked after every datagram).
TEST(UdpHandshake, ReplayedHelloStaysWithinBudget) {
  test::Harness h(Mode::kFakeTls);
  UdpClientHandshake c(client_of(h), h.client_rng);
  c.start(Instant{});
  const std::vector<Bytes> hello = hello_fragments(c.take_datagrams());
  ASSERT_EQ(hello.size(), 2U);
  UdpServerConfig cfg;
  cfg.inner = h.server_cfg;
  UdpServerHandshake s(cfg, h.server_rng);
  std::size_t sent = 0, emissions = 0, flight = 0;
  for (int round = 0; round < 20; ++round) {
    for (const Bytes& f : hello) {
      Bytes d = f;
      s.on_datagram(d, Instant{} + Millis(round));
      std::size_t n = 0;
      for (const Bytes& o : s.take_datagrams()) n += o.size();
      if (n != 0) {
        if (flight == 0) flight = n;
        EXPECT_EQ(n, flight);  // the cached reply (rotated), the same bytes every time
        ++emissions;
      }
      sent += n;
      EXPECT_EQ(sent, s.pre_auth_bytes_sent());
      EXPECT_LE(sent, wire::kAmplificationFactor * s.bytes_received());
    }
  }
  EXPECT_EQ(s.state(), State::kRunning);
  EXPECT_GT(emissions, 1U);
  // Exactly as many emissions as the budget allowed at each completed hello.
  const std::size_t per_hello = hello[0].size() + hello[1].size();
  std::size_t expect_sent = 0, received = 0;
  for (int round = 0; round < 20; ++round) {
    received += per_hello;
    if (expect_sent + flight <= 3 * received) expect_sent += flight;
  }
  EXPECT_EQ(sent, expect_sent);
}

TEST(UdpHandshake, AuthOkReemittedAtMostFiveTimes) {
  // Step by hand to get at the AUTH datagram.
  test::Harness h(Mode::kFakeTls);
  UdpClientConfig ccfg;
  ccfg.inner = h.client_cfg;
  UdpServerConfig scfg;
  scfg.inner = h.server_cfg;
  UdpClientHandshake c(ccfg, h.client_rng);
  UdpServerHandshake s(scfg, h.server_rng);
  Instant now{};
  const std::vector<Bytes> auth = up_to_auth_request(c, s, now);
  ASSERT_EQ(auth.size(), 1U);
  // While the password is being checked, a retransmitted AUTH gets nothing.
  Bytes a = auth[0];
  s.on_datagram(a, now);
  EXPECT_TRUE(s.take_datagrams().empty());
  s.accept(h.auth_ok);
  const std::vector<Bytes> ok = s.take_datagrams();
  ASSERT_FALSE(ok.empty());
  int answered = 0;
  for (int i = 0; i < 8; ++i) {
    a = auth[0];
    s.on_datagram(a, now);
    auto again = s.take_datagrams();
    if (!again.empty()) {
      EXPECT_EQ(again, ok);  // byte-identical re-emission
      ++answered;
    }
  }
  EXPECT_EQ(answered, wire::kMaxAuthOkReemits);
  // The budget travels with the session (the engine answers later retransmits with it).
  UdpServerSession session = s.take_session();
  EXPECT_EQ(session.resender.reemits_left(), 0);
  for (Bytes d : ok) c.on_datagram(d, now);
  EXPECT_EQ(c.state(), State::kDone);
}

TEST(UdpHandshake, ClientRetransmitScheduleAndTimeout) {
  test::Harness h(Mode::kFakeTls);
  UdpClientConfig cfg;
  cfg.inner = h.client_cfg;
  cfg.inner.timeout = Seconds(10);
  UdpClientHandshake c(cfg, h.client_rng);
  const Instant t0{};
  c.start(t0);
  const std::vector<Bytes> sent = c.take_datagrams();
  ASSERT_EQ(sent.size(), 3U);  // the cookie marker, then the hello
  EXPECT_TRUE(wire::parse_cookie_marker(sent[0]).ok());
  const std::vector<Bytes> first(sent.begin() + 1, sent.end());
  std::size_t padded = 0;
  for (const Bytes& d : first) padded += d.size() - wire::kFragHeaderSize;
  EXPECT_GE(padded, wire::kUdpClientHelloMin);
  Instant now = t0;
  int retransmits = 0;
  std::vector<Bytes> rotated = first;
  while (c.state() == State::kRunning) {
    const Instant next = c.deadline().value();
    const Duration gap = next - now;
    now = next;
    c.on_timer(now);
    auto again = c.take_datagrams();
    if (again.empty()) continue;
    // The marker (the same), then the same datagrams, rotated by one every second
    // transmission (three datagrams each: see send_hello).
    if (retransmits % 2 == 1) std::rotate(rotated.begin(), rotated.begin() + 1, rotated.end());
    ASSERT_EQ(again.size(), 3U);
    EXPECT_EQ(wire::parse_cookie_marker(again[0]).value(),
              wire::parse_cookie_marker(sent[0]).value());
    EXPECT_EQ(std::vector<Bytes>(again.begin() + 1, again.end()), rotated);
    EXPECT_GE(gap, Millis(1000));
    EXPECT_LE(gap, Millis(1250));
    ++retransmits;
  }
  EXPECT_EQ(c.failure(), Failure::kTimeout);
  EXPECT_GE(retransmits, 7);
  EXPECT_LE(retransmits, 10);
}

// A server handshake that waits for its first datagram has no clock: no deadline, and a
// timer at any time (a real clock is far from Instant{}) does not time it out. It used to
// report Instant{} + timeout, so a caller polling before the hello arrived failed it at once.
TEST(UdpHandshake, ServerHasNoTimerBeforeItsFirstDatagram) {
  test::Harness h(Mode::kFakeTls);
  UdpServerConfig scfg;
  scfg.inner = h.server_cfg;
  scfg.inner.timeout = Seconds(10);
  UdpServerHandshake s(scfg, h.server_rng);
  EXPECT_FALSE(s.deadline().has_value());
  const Instant late = Instant{} + std::chrono::hours(24 * 365);
  s.on_timer(late);
  ASSERT_EQ(s.state(), State::kRunning);

  UdpClientHandshake c(client_of(h), h.client_rng);
  c.start(late);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, late);
  ASSERT_TRUE(s.deadline().has_value());
  EXPECT_LE(*s.deadline(), late + Seconds(10));
  finish_from_flight(c, s, h, late);
  EXPECT_EQ(s.state(), State::kDone);
  // ... and from then on its clock is the first datagram's: it times out 10 s later.
  UdpServerHandshake idle(scfg, h.server_rng);
  UdpClientHandshake lone(client_of(h), h.client_rng);
  lone.start(late);
  for (Bytes& d : lone.take_datagrams()) idle.on_datagram(d, late);
  idle.on_timer(late + Seconds(9));
  EXPECT_EQ(idle.state(), State::kRunning);
  idle.on_timer(late + Seconds(11));
  EXPECT_EQ(idle.state(), State::kFailed);
}

// How long the AUTH has waited: nothing before it went out, the time since its first send
// (retransmits do not restart it), nothing once answered.
TEST(UdpHandshake, ClientTimesItsUnansweredAuth) {
  test::Harness h(Mode::kFakeTls);
  UdpServerHandshake s(server_of(h), h.server_rng);
  UdpClientHandshake c(client_of(h), h.client_rng);
  const Instant t0 = Instant{} + std::chrono::hours(1);
  c.start(t0);
  EXPECT_EQ(c.auth_unanswered_for(t0 + Seconds(3)), Duration::zero());
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, t0);
  const Instant t1 = t0 + Millis(200);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, t1);
  ASSERT_TRUE(c.auth_sent());
  const std::vector<Bytes> auth = c.take_datagrams();
  EXPECT_EQ(c.auth_unanswered_for(t1 + Seconds(4)), Seconds(4));
  c.on_timer(t1 + Seconds(2));  // a retransmit of the AUTH
  EXPECT_FALSE(c.take_datagrams().empty());
  EXPECT_EQ(c.auth_unanswered_for(t1 + Seconds(6)), Seconds(6));
  for (Bytes d : auth) s.on_datagram(d, t1 + Seconds(6));
  ASSERT_TRUE(s.take_event().has_value());
  s.accept(h.auth_ok);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, t1 + Seconds(6));
  ASSERT_EQ(c.state(), State::kDone);
  EXPECT_EQ(c.auth_unanswered_for(t1 + Seconds(7)), Duration::zero());
}

// auth_patience: an AUTH that goes out late (the server admitted the hello late) is still
// waited for that long past the timeout, and answered then; without AUTH the attempt ends
// at its timeout; a silent AUTH ends it once the patience is over.
TEST(UdpHandshake, ASentAuthIsWaitedForItsPatience) {
  test::Harness h(Mode::kFakeTls);
  const Instant t0 = Instant{} + std::chrono::hours(1);
  UdpClientConfig ccfg = client_of(h);
  ccfg.inner.timeout = Seconds(10);
  ccfg.auth_patience = Seconds(5);

  UdpClientHandshake lone(ccfg, h.client_rng);  // no answer at all
  lone.start(t0);
  (void)lone.take_datagrams();
  lone.on_timer(t0 + Millis(9999));
  EXPECT_EQ(lone.state(), State::kRunning);
  lone.on_timer(t0 + Seconds(10));
  EXPECT_EQ(lone.state(), State::kFailed);
  EXPECT_EQ(lone.failure(), Failure::kTimeout);

  for (const bool answered : {true, false}) {
    SCOPED_TRACE(answered ? "answered late" : "never answered");
    UdpServerHandshake s(server_of(h), h.server_rng);
    UdpClientHandshake c(ccfg, h.client_rng);
    c.start(t0);
    const Instant late = t0 + Millis(9500);  // the hello admitted just before the timeout
    for (Bytes& d : c.take_datagrams()) s.on_datagram(d, late);
    for (Bytes& d : s.take_datagrams()) c.on_datagram(d, late);
    ASSERT_TRUE(c.auth_sent());
    const std::vector<Bytes> auth = c.take_datagrams();
    c.on_timer(t0 + Seconds(12));
    (void)c.take_datagrams();
    ASSERT_EQ(c.state(), State::kRunning) << "past the timeout, inside the patience";
    if (answered) {
      for (Bytes d : auth) s.on_datagram(d, t0 + Seconds(13));
      ASSERT_TRUE(s.take_event().has_value());
      s.accept(h.auth_ok);
      for (Bytes& d : s.take_datagrams()) c.on_datagram(d, t0 + Seconds(14));
      EXPECT_EQ(c.state(), State::kDone);
    } else {
      EXPECT_LE(c.deadline().value(), late + Seconds(5));
      c.on_timer(late + Seconds(5));
      EXPECT_EQ(c.state(), State::kFailed);
      EXPECT_EQ(c.failure(), Failure::kTimeout);
      EXPECT_EQ(c.auth_unanswered_for(late + Seconds(5)), Seconds(5));
    }
  }
}

// A client that restarts behind the same source address (a new hello while the server
// still waits for the old AUTH) gets a fresh handshake, not the stale cached flight.
TEST(UdpHandshake, NewHelloFromTheSameSourceRestarts) {
  test::Harness h(Mode::kFakeTls);
  UdpServerHandshake s(server_of(h), h.server_rng);
  UdpClientConfig ccfg;
  ccfg.inner = h.client_cfg;
  Instant now{};
  UdpClientHandshake first(ccfg, h.client_rng);
  first.start(now);
  for (Bytes& d : first.take_datagrams()) s.on_datagram(d, now);
  const std::vector<Bytes> stale = s.take_datagrams();
  ASSERT_FALSE(stale.empty());

  UdpClientHandshake second(ccfg, h.client_rng);
  now += Seconds(2);
  second.start(now);
  for (Bytes& d : second.take_datagrams()) s.on_datagram(d, now);
  std::vector<Bytes> fresh = s.take_datagrams();
  ASSERT_FALSE(fresh.empty());
  EXPECT_NE(fresh, stale);
  for (Bytes& d : fresh) second.on_datagram(d, now);
  for (Bytes& d : second.take_datagrams()) s.on_datagram(d, now);
  ASSERT_TRUE(s.take_event().has_value());
  s.accept(h.auth_ok);
  for (Bytes& d : s.take_datagrams()) second.on_datagram(d, now);
  EXPECT_EQ(second.state(), State::kDone);
  EXPECT_LE(s.pre_auth_bytes_sent(), wire::kAmplificationFactor * s.bytes_received());
}

// Anyone can send a datagram: a forged record while AUTH or AUTH OK is awaited is dropped
// by both ends, and the real handshake still completes.
TEST(UdpHandshake, ForgedRecordsDoNotKillTheHandshake) {
  test::Harness h(Mode::kFakeTls);
  UdpServerHandshake s(server_of(h), h.server_rng);
  UdpClientHandshake c(client_of(h), h.client_rng);
  Instant now{};
  Bytes forged(100, 0x42);
  forged[0] = 0x17;
  forged[1] = forged[2] = 0x03;
  forged[3] = 0x00;
  forged[4] = 95;
  c.start(now);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, now);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  Bytes f = forged;
  s.on_datagram(f, now);  // before the real AUTH
  EXPECT_FALSE(s.take_event().has_value());
  EXPECT_EQ(s.state(), State::kRunning);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, now);
  ASSERT_TRUE(s.take_event().has_value());
  f = forged;
  c.on_datagram(f, now);  // before the real AUTH OK
  EXPECT_EQ(c.state(), State::kRunning);
  EXPECT_GE(c.dropped(), 1U);
  s.accept(h.auth_ok);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  EXPECT_EQ(c.state(), State::kDone);
  EXPECT_EQ(s.state(), State::kDone);
}

// The admit_hello gate (the server's rate limits) is asked once per distinct complete
// hello, before any key agreement; a refused hello gets nothing back and leaves the
// handshake without a hello, and the client's retransmit asks again.
TEST(UdpHandshake, RefusedHelloGetsNothingAndItsRetransmitAsksAgain) {
  test::Harness h(Mode::kFakeTls);
  int asked = 0;
  bool allow = false;
  UdpServerConfig scfg;
  scfg.inner = h.server_cfg;
  scfg.admit_hello = [&](Instant, bool) {
    ++asked;
    return allow ? HelloVerdict::admit() : HelloVerdict::refuse();
  };
  UdpServerHandshake s(scfg, h.server_rng);
  UdpClientHandshake c(client_of(h), h.client_rng);
  Instant now{};
  c.start(now);
  const std::vector<Bytes> hello = c.take_datagrams();
  ASSERT_EQ(hello.size(), 3U);  // the cookie marker, the hello
  for (Bytes d : hello) s.on_datagram(d, now);
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(s.idle());  // nothing kept for the source, the marker included
  EXPECT_EQ(s.refused(), 1U);
  EXPECT_FALSE(s.has_hello());
  EXPECT_TRUE(s.take_datagrams().empty());
  EXPECT_EQ(s.pre_auth_bytes_sent(), 0U);

  allow = true;
  now += Seconds(1);
  for (Bytes d : hello) s.on_datagram(d, now);  // the client's retransmit
  EXPECT_EQ(asked, 2);
  EXPECT_TRUE(s.has_hello());
  const std::vector<Bytes> flight = s.take_datagrams();
  ASSERT_FALSE(flight.empty());
  for (Bytes d : hello) s.on_datagram(d, now);  // a retransmit of an answered hello...
  EXPECT_EQ(asked, 2);                          // ...never asks (and never costs crypto)
  for (Bytes d : flight) c.on_datagram(d, now);
  for (Bytes& d : c.take_datagrams()) s.on_datagram(d, now);
  ASSERT_TRUE(s.take_event().has_value());
  s.accept(h.auth_ok);
  for (Bytes& d : s.take_datagrams()) c.on_datagram(d, now);
  EXPECT_EQ(c.state(), State::kDone);
}

// After the handshake the session answers AUTH retransmits (UdpAuthOkResender) by
// comparing raw datagrams: under the obfs seal and the QUIC shape the client re-sends
// the same sealed bytes, and a data datagram costs a size compare, not a copy or an open.
TEST(UdpHandshake, AuthResendCheckCostsOneSizeCompareForData) {
  test::Harness h(Mode::kFakeTls);
  wire::UdpObfs key("profile psk");
  UdpServerConfig scfg;
  scfg.inner = h.server_cfg;
  scfg.obfs = &key;
  UdpClientConfig ccfg;
  ccfg.inner = h.client_cfg;
  ccfg.obfs = &key;
  ccfg.quic = true;
  UdpClientHandshake c(ccfg, h.client_rng);
  UdpServerHandshake s(scfg, h.server_rng);
  Instant now{};
  const std::vector<Bytes> auth = up_to_auth_request(c, s, now);
  ASSERT_EQ(auth.size(), 1U);
  s.accept(h.auth_ok);
  const std::vector<Bytes> ok = s.take_datagrams();
  ASSERT_FALSE(ok.empty());
  // The client's retransmit timer fires before AUTH OK arrives: the very same bytes.
  c.on_timer(now + Seconds(2));
  std::vector<Bytes> again = c.take_datagrams();
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0], auth[0]);

  UdpServerSession session = s.take_session();
  UdpAuthOkResender& r = session.resender;
  // Data datagrams of other sizes: no byte compared.
  for (std::size_t n :
       {std::size_t{60}, auth[0].size() - 1, auth[0].size() + 1, std::size_t{1400}}) {
    const Bytes data(n, 0x5A);
    EXPECT_TRUE(r.on_datagram(data).empty());
  }
  EXPECT_EQ(r.compared(), 0U);
  // A data datagram of exactly the AUTH's size: one memcmp, no answer.
  Bytes same_size = auth[0];
  same_size.back() ^= 1;
  EXPECT_TRUE(r.on_datagram(same_size).empty());
  EXPECT_EQ(r.compared(), 1U);
  // The retransmitted AUTH: the cached AUTH OK, byte for byte.
  EXPECT_EQ(r.on_datagram(again[0]), ok);
  EXPECT_EQ(r.compared(), 2U);
  EXPECT_EQ(r.reemits_left(), wire::kMaxAuthOkReemits - 1);
  for (Bytes d : ok) c.on_datagram(d, now);
  EXPECT_EQ(c.state(), State::kDone);
}

// Return routability (docs/PROTOCOL.md §11): a server short of login slots for unverified
// sources challenges a hello that came after a marker; the client echoes the cookie and
// sends the very same hello again at once (the key agreement does not restart), the
// server (told by its caller that the echo proved the source) admits it, and the
// handshake completes. A second challenge in the same period only renews the cookie; a
// challenge naming another nonce, or malformed, is dropped.
TEST(UdpHandshake, AChallengedClientEchoesItsCookieAndResendsTheSameHello) {
  test::Harness h(Mode::kFakeTls);
  UdpClientHandshake c(client_of(h), h.client_rng);
  Instant now{};
  c.start(now);
  const std::vector<Bytes> first = c.take_datagrams();
  ASSERT_EQ(first.size(), 3U);
  const wire::CookieNonce nonce = wire::parse_cookie_marker(first[0]).value();
  const std::vector<Bytes> hello(first.begin() + 1, first.end());

  wire::Cookie cookie{};
  cookie.fill(0xC5);
  int asked = 0;
  bool verified = false;
  std::vector<std::optional<wire::Cookie>> echoes;
  UdpServerConfig scfg = server_of(h);
  scfg.admit_hello = [&](Instant, bool challengeable) {
    ++asked;
    EXPECT_EQ(challengeable, !verified);  // the echo replaced the marker
    return verified ? HelloVerdict::admit() : HelloVerdict::challenge(cookie);
  };
  scfg.on_cookie = [&](std::optional<wire::Cookie> k, Instant) {
    echoes.push_back(k);
    verified = k == cookie;
  };
  UdpServerHandshake s(scfg, h.server_rng);
  for (Bytes d : first) s.on_datagram(d, now);
  const std::vector<Bytes> challenge = s.take_datagrams();
  ASSERT_EQ(challenge.size(), 1U);
  EXPECT_EQ(challenge[0].size(), 30U);  // vs ~2.4 KB of hello: no amplification
  EXPECT_EQ(wire::parse_cookie_challenge(challenge[0]).value().nonce, nonce);
  EXPECT_EQ(s.challenged(), 1U);
  EXPECT_EQ(s.refused(), 1U);
  EXPECT_FALSE(s.has_hello());
  EXPECT_TRUE(s.idle());  // stateless: the server may forget the source now
  EXPECT_EQ(s.pre_auth_bytes_sent(), 30U);

  // Spoofed or broken challenges first: dropped, nothing sent.
  const std::size_t dropped = c.dropped();
  wire::CookieNonce other = nonce;
  other[0] ^= 1;
  Bytes spoofed = wire::build_cookie_challenge({other, cookie});
  c.on_datagram(spoofed, now);
  Bytes cut = challenge[0];
  cut.pop_back();
  c.on_datagram(cut, now);
  EXPECT_TRUE(c.take_datagrams().empty());
  EXPECT_EQ(c.dropped(), dropped + 2);
  EXPECT_EQ(c.challenges(), 0U);

  // The real one: the echo, then the same hello datagrams, at once.
  Bytes ch = challenge[0];
  c.on_datagram(ch, now);
  EXPECT_EQ(c.challenges(), 1U);
  const std::vector<Bytes> answer = c.take_datagrams();
  ASSERT_EQ(answer.size(), 3U);
  EXPECT_EQ(wire::parse_cookie_echo(answer[0]).value(), cookie);
  EXPECT_EQ(std::vector<Bytes>(answer.begin() + 1, answer.end()), hello);

  // Another challenge in the same period: the cookie is renewed, nothing sent now; the
  // next timed retransmit echoes the newest cookie before the same hello.
  wire::Cookie newer{};
  newer.fill(0x5C);
  Bytes renewal = wire::build_cookie_challenge({nonce, newer});
  c.on_datagram(renewal, now);
  EXPECT_TRUE(c.take_datagrams().empty());
  c.on_timer(c.deadline().value());
  const std::vector<Bytes> again = c.take_datagrams();
  ASSERT_EQ(again.size(), 3U);
  EXPECT_EQ(wire::parse_cookie_echo(again[0]).value(), newer);
  EXPECT_EQ(hello_fragments(again).size(), 2U);

  // The server gets the first answer: the echo proves the source, the hello is admitted.
  for (Bytes d : answer) s.on_datagram(d, now);
  ASSERT_EQ(echoes.size(), 1U);
  EXPECT_EQ(echoes[0], cookie);
  EXPECT_EQ(asked, 2);
  EXPECT_TRUE(s.has_hello());
  finish_from_flight(c, s, h, now);
  EXPECT_LE(s.pre_auth_bytes_sent(), wire::kAmplificationFactor * s.bytes_received());
  (void)c.take_datagrams();  // the capability frame
  // After the flight a challenge is no business of the client's.
  Bytes late = wire::build_cookie_challenge({nonce, cookie});
  c.on_datagram(late, now);
  EXPECT_TRUE(c.take_datagrams().empty());
}

// A client without extensions (as 0.7.16, which would abort on a msg 7) sends no marker,
// so the gate learns it cannot be challenged and a challenge verdict sends nothing; a
// malformed echo is dropped and reported as such.
TEST(UdpHandshake, OnlyAClientThatSentAMarkerIsChallenged) {
  test::Harness h(Mode::kFakeTls);
  UdpClientConfig legacy = client_of(h);
  legacy.inner.extensions = 0;
  UdpClientHandshake c(legacy, h.client_rng);
  c.start(Instant{});
  const std::vector<Bytes> sent = c.take_datagrams();
  EXPECT_EQ(sent.size(), 2U);  // the hello only
  EXPECT_EQ(hello_fragments(sent).size(), 2U);

  std::vector<bool> challengeable;
  std::vector<std::optional<wire::Cookie>> echoes;
  UdpServerConfig scfg = server_of(h);
  scfg.admit_hello = [&](Instant, bool ch) {
    challengeable.push_back(ch);
    return HelloVerdict::challenge(wire::Cookie{});
  };
  scfg.on_cookie = [&](std::optional<wire::Cookie> k, Instant) { echoes.push_back(k); };
  UdpServerHandshake s(scfg, h.server_rng);
  for (Bytes d : sent) s.on_datagram(d, Instant{});
  EXPECT_EQ(challengeable, std::vector<bool>{false});
  EXPECT_TRUE(s.take_datagrams().empty());
  EXPECT_EQ(s.challenged(), 0U);
  EXPECT_EQ(s.pre_auth_bytes_sent(), 0U);

  // A marker alone is kept (until the hello's verdict) and answered by nothing; a
  // malformed echo goes to the caller as such, counted as dropped, never fatal.
  UdpServerHandshake lone(scfg, h.server_rng);
  Bytes marker = wire::build_cookie_marker(wire::CookieNonce{});
  lone.on_datagram(marker, Instant{});
  EXPECT_FALSE(lone.idle());
  EXPECT_TRUE(lone.take_datagrams().empty());
  Bytes echo = wire::build_cookie_echo(wire::Cookie{});
  echo.push_back(0);  // malformed
  const std::size_t dropped = lone.dropped();
  lone.on_datagram(echo, Instant{});
  ASSERT_EQ(echoes.size(), 1U);
  EXPECT_FALSE(echoes[0].has_value());
  EXPECT_EQ(lone.dropped(), dropped + 1);
  EXPECT_EQ(lone.state(), State::kRunning);
}

}  // namespace
}  // namespace qeli::handshake
