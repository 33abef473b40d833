// In-memory client↔server handshakes (plain and fake-tls), then records both ways.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/endian.h"
#include "crypto/ct.h"
#include "handshake/key_schedule.h"
#include "harness.h"
#include "wire/control_frame.h"
#include "wire/record_reader.h"

namespace qeli::handshake {
namespace {

using test::Harness;
using test::Outcome;

Bytes pattern(std::size_t n, std::uint8_t salt) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + salt);
  return b;
}

// Seals `data` with `tx` and opens it with `rx`; true iff the data came back.
bool exchange(wire::PacketCodec& tx, wire::PacketCodec& rx, const Bytes& data,
              std::size_t pad = 0) {
  Bytes rec(wire::record_size(tx.framing(), data.size(), pad));
  if (!tx.seal(data, pad, rec).ok()) return false;
  auto r = rx.open_in_place(rec);
  return r.ok() && Bytes(r->data.begin(), r->data.end()) == data;
}

void expect_success(const Outcome& r) {
  ASSERT_EQ(r.client_state, State::kDone) << to_string(r.client_failure);
  ASSERT_EQ(r.server_state, State::kDone) << to_string(r.server_failure);
}

void expect_records_both_ways(Outcome& r) {
  for (std::size_t len : {0UL, 1UL, 20UL, 1400UL, wire::kMaxTunnelMtu}) {
    EXPECT_TRUE(exchange(r.client->send, r.server->recv, pattern(len, 1))) << len;
    EXPECT_TRUE(exchange(r.server->send, r.client->recv, pattern(len, 2), len == 20 ? 100 : 0))
        << len;
  }
}

class EveryMode : public ::testing::TestWithParam<Mode> {};
INSTANTIATE_TEST_SUITE_P(handshake, EveryMode, ::testing::Values(Mode::kPlain, Mode::kFakeTls),
                         [](const auto& p) {
                           return std::string(p.param == Mode::kPlain ? "plain" : "fake_tls");
                         });

TEST_P(EveryMode, full_handshake_then_records_both_ways) {
  Harness h(GetParam());
  Outcome r = h.run();
  expect_success(r);
  ASSERT_EQ(r.auth_requests.size(), 1U);
  EXPECT_EQ(r.auth_requests[0].user, "alice");
  EXPECT_EQ(r.auth_requests[0].password, "s3cret:pw");  // split at the FIRST ':'
  EXPECT_EQ(r.auth_requests[0].device_id, h.client_cfg.device_id);
  EXPECT_TRUE(r.auth_requests[0].key_proof_ok);
  EXPECT_EQ(r.client->server_key, h.identity.public_key);
  EXPECT_TRUE(r.client->server_key_was_pinned);
  ASSERT_TRUE(r.client->auth_ok.has_value());
  const AuthOk& ok = *r.client->auth_ok;
  EXPECT_EQ(ok.client_ip, "10.8.0.2");
  EXPECT_EQ(ok.server_ip, "10.8.0.1");
  EXPECT_EQ(ok.mtu, 1400);
  EXPECT_EQ(ok.routes.size(), 2U);
  EXPECT_EQ(ok.routes[1].metric, 50U);
  EXPECT_EQ(ok.session_token, h.auth_ok.session_token);
  EXPECT_EQ(ok.max_streams, 4);
  EXPECT_TRUE(ok.multipath_adaptive);
  EXPECT_EQ(ok.obfuscation_json, R"({"heartbeat":{"enabled":true,"interval_ms":15000}})");
  const wire::Framing f = GetParam() == Mode::kPlain ? wire::Framing::kRaw : wire::Framing::kTls;
  EXPECT_EQ(r.client->send.framing(), f);
  EXPECT_EQ(r.server->recv.framing(), f);
  if (GetParam() == Mode::kPlain) {
    // plain: server_pub(32), then a Raw record carrying static_pub ‖ proof (64 bytes).
    EXPECT_EQ(load_be16(r.s2c.data() + 32), wire::kRecordOverhead + 64);
  } else {
    // fake-tls: ServerHello (1217 bytes) then the CCS record.
    ASSERT_GT(r.s2c.size(), 1223U);
    EXPECT_EQ(to_hex(ByteSpan(r.s2c).subspan(1217, 6)), "140303000101");
    EXPECT_EQ(r.c2s[0], 0x16);
  }
  // Extensions on both ends (the default): negotiated, and the client's capability frame
  // reaches the server's data plane.
  EXPECT_EQ(r.client->negotiated_caps, caps::kCapabilityExchange);
  EXPECT_EQ(r.server->advertised_caps, caps::kCapabilityExchange);
  wire::RecordReader reader(f, wire::kMaxRecordPayload);
  ASSERT_EQ(reader.feed(r.c2s_after_done), r.c2s_after_done.size());
  auto next = reader.next();
  ASSERT_EQ(next.status, wire::RecordReader::Status::kRecord);
  auto opened = r.server->recv.open_in_place(next.record);
  ASSERT_TRUE(opened.ok());
  auto frame = wire::parse_control_frame(opened->data);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(wire::parse_capabilities(*frame).value(), caps::kCapabilityExchange);
  expect_records_both_ways(r);
}

// reality-tls channel binding (handshake/tls_binding.h): the same exporter on both ends
// binds; another exporter (TLS terminated in between) fails the client; without the bit
// on one side nothing changes.
TEST(TlsBinding, SameExporterBindsAnotherFailsTheClientOneSidedIsIgnored) {
  TlsExporter a{}, b{};
  a.fill(0x11);
  b.fill(0x22);
  auto run = [&](std::optional<TlsExporter> client, std::optional<TlsExporter> server) {
    test::Harness h(Mode::kFakeTls);
    if (client) {
      h.client_cfg.extensions |= caps::kTlsBinding;
      h.client_cfg.tls_exporter = client;
    }
    if (server) {
      h.server_cfg.extensions |= caps::kTlsBinding;
      h.server_cfg.tls_exporter = server;
    }
    return h.run();
  };
  auto bound = run(a, a);
  ASSERT_EQ(bound.client_state, State::kDone);
  EXPECT_TRUE(bound.client->tls_bound);
  EXPECT_NE(bound.client->negotiated_caps & caps::kTlsBinding, 0U);
  // The capability frame (with the bit), then the client's proof.
  wire::RecordReader reader(wire::Framing::kTls, wire::kMaxRecordPayload);
  ASSERT_EQ(reader.feed(bound.c2s_after_done), bound.c2s_after_done.size());
  std::vector<std::uint8_t> types;
  Bytes proof;
  for (auto next = reader.next(); next.status == wire::RecordReader::Status::kRecord;
       next = reader.next()) {
    auto opened = bound.server->recv.open_in_place(next.record);
    ASSERT_TRUE(opened.ok());
    auto frame = wire::parse_control_frame(opened->data);
    ASSERT_TRUE(frame.ok());
    types.push_back(frame->type);
    if (frame->type == wire::kCtrlTlsBinding) proof.assign(frame->body.begin(), frame->body.end());
  }
  EXPECT_EQ(types, (std::vector<std::uint8_t>{wire::kCtrlCapabilities, wire::kCtrlTlsBinding}));
  EXPECT_EQ(to_hex(proof), to_hex(tls_binding_proof(a, BindingSide::kClient)));

  auto mitm = run(a, b);
  EXPECT_EQ(mitm.client_state, State::kFailed);
  EXPECT_EQ(mitm.client_failure, Failure::kTlsBindingMismatch);

  auto old_server = run(a, std::nullopt);
  ASSERT_EQ(old_server.client_state, State::kDone);
  EXPECT_FALSE(old_server.client->tls_bound);
  auto old_client = run(std::nullopt, a);
  ASSERT_EQ(old_client.client_state, State::kDone);
  EXPECT_FALSE(old_client.client->tls_bound);
}

}  // namespace
}  // namespace qeli::handshake

namespace qeli::handshake {
namespace {

TEST_P(EveryMode, one_byte_per_read_gives_the_same_bytes) {
  Harness whole(GetParam(), 5);
  Outcome a = whole.run();
  Harness bytewise(GetParam(), 5);
  bytewise.chunk = 1;
  Outcome b = bytewise.run();
  expect_success(a);
  expect_success(b);
  EXPECT_EQ(a.c2s, b.c2s);
  EXPECT_EQ(a.s2c, b.s2c);
  for (int i = 0; i < 3; ++i) {
    Bytes ra(wire::record_size(a.server->send.framing(), 10, 0)), rb(ra.size());
    ASSERT_TRUE(a.server->send.seal(pattern(10, 3), 0, ra).ok());
    ASSERT_TRUE(b.server->send.seal(pattern(10, 3), 0, rb).ok());
    EXPECT_EQ(ra, rb);  // same keys, same seed, same counter
  }
}

TEST_P(EveryMode, other_chunk_sizes) {
  for (std::size_t chunk : {2UL, 3UL, 7UL, 100UL, 1217UL}) {
    Harness h(GetParam(), 6);
    h.chunk = chunk;
    Outcome r = h.run();
    expect_success(r);
  }
}

TEST(handshake, padding_variant_pads_the_client_hello) {
  Harness base(Mode::kFakeTls, 7);
  Outcome rb = base.run();
  const std::size_t unpadded = 5 + load_be16(rb.c2s.data() + 3);
  for (std::size_t min : {1200UL, 2000UL, 4096UL}) {
    Harness h(Mode::kFakeTls, 7);
    h.client_cfg.pad_to_min = min;
    Outcome r = h.run();
    expect_success(r);
    ASSERT_GT(r.c2s.size(), 5U);
    const std::size_t ch = 5 + load_be16(r.c2s.data() + 3);
    EXPECT_EQ(ch, min > unpadded + 4 ? min : unpadded) << min;
    expect_records_both_ways(r);
  }
}

TEST(handshake, fragmented_server_hello_with_jitter) {
  Harness h(Mode::kFakeTls, 8);
  h.server_cfg.fragmentation = {true, 40, 120, 12};
  h.server_cfg.max_jitter = std::chrono::milliseconds(11);
  h.chunk = 1;
  Outcome r = h.run();
  expect_success(r);
  // 12 ServerHello pieces (the last takes the rest), CCS, Cert|Fin in two, NST ‖ proof,
  // then the AUTH OK record.
  ASSERT_EQ(r.server_chunks.size(), 12U + 1 + 2 + 1 + 1);
  std::size_t sh = 0;
  for (std::size_t i = 0; i < 12; ++i) sh += r.server_chunks[i].bytes.size();
  EXPECT_EQ(sh, 1217U);
  EXPECT_LE(r.server_chunks[0].delay, std::chrono::milliseconds(11));
  for (std::size_t i = 1; i < 12; ++i) {
    EXPECT_GE(r.server_chunks[i].bytes.size(), i < 11 ? 40U : 1U);
    EXPECT_EQ(r.server_chunks[i].delay, std::chrono::milliseconds(2));
  }
  EXPECT_EQ(to_hex(r.server_chunks[12].bytes), "140303000101");
  expect_records_both_ways(r);
}

TEST(handshake, bonded_join_with_the_issued_token) {
  Harness first(Mode::kFakeTls, 9);
  Outcome a = first.run();
  expect_success(a);
  ASSERT_TRUE(a.client->auth_ok->session_token.has_value());
  Harness second(Mode::kFakeTls, 10);
  second.client_cfg.join = JoinMessage{*a.client->auth_ok->session_token, 1, std::nullopt};
  Outcome b = second.run();
  expect_success(b);
  EXPECT_TRUE(b.auth_requests.empty());
  ASSERT_EQ(b.join_requests.size(), 1U);
  EXPECT_EQ(b.join_requests[0].stream_index, 1);
  EXPECT_FALSE(b.client->auth_ok.has_value());
  EXPECT_TRUE(b.server->joined);
  expect_records_both_ways(b);
  // A wrong token is refused: silent close on both sides.
  Harness third(Mode::kFakeTls, 11);
  JoinToken bad = *a.client->auth_ok->session_token;
  bad[0] ^= 1;
  third.client_cfg.join = JoinMessage{bad, 2, std::nullopt};
  Outcome c = third.run();
  EXPECT_EQ(c.server_failure, Failure::kRejected);
  EXPECT_EQ(c.client_failure, Failure::kRejected);
}

TEST(handshake, join_proof_binds_the_session_and_the_connection) {
  Harness first(Mode::kFakeTls, 21);
  Outcome a = first.run();
  expect_success(a);
  ASSERT_EQ(a.auth_requests.size(), 1U);
  ASSERT_TRUE(a.auth_requests[0].join_secret);
  const crypto::Key32& secret = *a.auth_requests[0].join_secret;
  // Both ends of the AUTH connection derived the same join secret.
  EXPECT_EQ(to_hex(a.client->join_secret.span()), to_hex(secret.span()));

  Harness second(Mode::kFakeTls, 22);
  second.client_cfg.join = JoinMessage{*a.client->auth_ok->session_token, 1, std::nullopt};
  second.client_cfg.join_secret =
      std::make_shared<const crypto::Key32>(a.client->join_secret.clone());
  Outcome b = second.run();
  expect_success(b);
  ASSERT_EQ(b.join_requests.size(), 1U);
  const JoinRequest& j = b.join_requests[0];
  ASSERT_TRUE(j.proof.has_value());
  EXPECT_EQ(to_hex(join_proof(secret, j.transcript).span()), to_hex(*j.proof));
  // Bound to the session: another session's secret gives another proof.
  Harness other(Mode::kFakeTls, 23);
  Outcome o = other.run();
  expect_success(o);
  EXPECT_NE(to_hex(join_proof(o.client->join_secret, j.transcript).span()), to_hex(*j.proof));
  // Bound to the connection: the same secret over another transcript differs.
  crypto::Digest32 t2 = j.transcript;
  t2[0] ^= 1;
  EXPECT_NE(to_hex(join_proof(secret, t2).span()), to_hex(*j.proof));
  // Without a secret the JOIN is the 0.7.16 one.
  Harness legacy(Mode::kFakeTls, 24);
  legacy.client_cfg.join = JoinMessage{*a.client->auth_ok->session_token, 2, std::nullopt};
  Outcome l = legacy.run();
  expect_success(l);
  ASSERT_EQ(l.join_requests.size(), 1U);
  EXPECT_FALSE(l.join_requests[0].proof.has_value());
}

TEST_P(EveryMode, wrong_password_is_a_silent_close) {
  Harness h(GetParam(), 12);
  h.client_cfg.password = "wrong";
  Outcome r = h.run();
  EXPECT_EQ(r.server_state, State::kFailed);
  EXPECT_EQ(r.server_failure, Failure::kRejected);
  EXPECT_EQ(r.client_failure, Failure::kRejected);
  ASSERT_EQ(r.auth_requests.size(), 1U);
  // Nothing after the proof record: the server's bytes equal those of a good run up to
  // the point where the OK record would start.
  Harness good(GetParam(), 12);
  Outcome g = good.run();
  EXPECT_LT(r.s2c.size(), g.s2c.size());
  EXPECT_TRUE(std::equal(r.s2c.begin(), r.s2c.end(), g.s2c.begin()));
}

TEST_P(EveryMode, changed_server_key_is_server_key_mismatch) {
  for (bool bind : {true, false}) {
    Harness h(GetParam(), 13);
    h.client_cfg.bind_static = bind;
    h.server_cfg.bind_static = bind;
    crypto::DeterministicRng other(99);
    h.client_cfg.pinned_server_key = crypto::x25519_generate(other).public_key;
    Outcome r = h.run();
    EXPECT_EQ(r.client_failure, Failure::kServerKeyMismatch) << bind;
    EXPECT_STREQ(to_string(r.client_failure), "SERVER KEY MISMATCH");
    EXPECT_TRUE(r.auth_requests.empty());  // credentials never left the client
  }
}

TEST_P(EveryMode, tofu_learns_the_key_and_bound_mode_requires_a_pin) {
  Harness h(GetParam(), 14);
  h.client_cfg.pinned_server_key.reset();
  h.client_cfg.bind_static = false;
  h.server_cfg.bind_static = false;
  Outcome r = h.run();
  expect_success(r);
  EXPECT_FALSE(r.client->server_key_was_pinned);
  EXPECT_EQ(r.client->server_key, h.identity.public_key);
  EXPECT_FALSE(r.auth_requests[0].key_proof_ok);  // nothing pinned: zero proof

  Harness b(GetParam(), 15);
  b.client_cfg.pinned_server_key.reset();
  Outcome rb = b.run();
  EXPECT_EQ(rb.client_failure, Failure::kPinRequired);
  EXPECT_TRUE(rb.c2s.empty());  // refused before sending anything
}

TEST_P(EveryMode, bind_mismatch_fails_without_a_downgrade) {
  Harness h(GetParam(), 16);
  h.server_cfg.bind_static = false;  // client binds, server does not
  Outcome r = h.run();
  EXPECT_EQ(r.client_state, State::kFailed);
  EXPECT_TRUE(r.auth_requests.empty());
}

TEST_P(EveryMode, hidden_identity_with_and_without_pin) {
  Harness h(GetParam(), 17);
  h.server_cfg.require_client_key_proof = true;
  Outcome r = h.run();
  expect_success(r);
  EXPECT_TRUE(r.auth_requests[0].key_proof_ok);
  // The static key never appears on the wire in hidden mode (proof record is 32 bytes of
  // plaintext: payload = 38 + 32).
  const auto& pub = h.identity.public_key;
  EXPECT_EQ(std::search(r.s2c.begin(), r.s2c.end(), pub.begin(), pub.end()), r.s2c.end());
  if (GetParam() == Mode::kPlain) {
    EXPECT_EQ(load_be16(r.s2c.data() + 32), wire::kRecordOverhead + 32);
  }

  for (bool bind : {true, false}) {
    Harness n(GetParam(), 18);
    n.server_cfg.require_client_key_proof = true;
    n.server_cfg.bind_static = bind;
    n.client_cfg.bind_static = bind;
    n.client_cfg.pinned_server_key.reset();
    Outcome rn = n.run();
    EXPECT_EQ(rn.client_failure, Failure::kPinRequired) << bind;
    EXPECT_TRUE(rn.auth_requests.empty());
  }
  // A wrong pin against a hidden server.
  Harness w(GetParam(), 19);
  w.server_cfg.require_client_key_proof = true;
  w.server_cfg.bind_static = w.client_cfg.bind_static = false;
  crypto::DeterministicRng other(98);
  w.client_cfg.pinned_server_key = crypto::x25519_generate(other).public_key;
  Outcome rw = w.run();
  EXPECT_EQ(rw.client_failure, Failure::kServerKeyMismatch);
}

TEST(handshake, legacy_auth_without_device_id) {
  Harness h(Mode::kFakeTls, 20);
  h.client_cfg.device_id.reset();
  Outcome r = h.run();
  expect_success(r);
  EXPECT_FALSE(r.auth_requests[0].device_id.has_value());
}

TEST_P(EveryMode, a_server_flight_from_another_session_is_rejected) {
  Harness a(GetParam(), 21);
  Outcome ra = a.run();
  expect_success(ra);
  // Session B's client gets session A's complete server flight (proof included).
  Harness b(GetParam(), 22);
  const std::size_t flight_end = ra.server_chunks.empty() ? 0 : ra.server_chunks[0].bytes.size();
  b.replace_server_output = Bytes(ra.s2c.begin(), ra.s2c.begin() + static_cast<long>(flight_end));
  Outcome rb = b.run();
  EXPECT_EQ(rb.client_state, State::kFailed);
  EXPECT_TRUE(rb.auth_requests.empty());
}

TEST(handshake, proof_is_bound_to_the_transcript) {
  crypto::Key32 es, ee;
  es[0] = 1, ee[0] = 2;
  crypto::Digest32 t1{}, t2{};
  t2[31] = 1;
  const crypto::Key32 p1 = server_auth_proof(es, ee, t1);
  EXPECT_FALSE(crypto::ct_equal(p1.span(), server_auth_proof(es, ee, t2).span()));
  EXPECT_FALSE(crypto::ct_equal(p1.span(), client_key_proof(es, ee, t1).span()));
  EXPECT_TRUE(crypto::ct_equal(p1.span(), server_auth_proof(es, ee, t1).span()));
}

TEST(handshake, over_long_record_closes_with_a_reason) {
  const std::uint8_t big[] = {0x16, 0x03, 0x03, 0x41, 0x25};  // 16677 > 16676
  crypto::DeterministicRng rng(1);
  crypto::X25519KeyPair id = crypto::x25519_generate(rng);
  ServerConfig sc;
  sc.identity = &id;
  ServerHandshake server(sc, rng);
  server.start(Instant{});
  server.on_bytes(big, Instant{});
  EXPECT_EQ(server.failure(), Failure::kRecordFraming);
  EXPECT_TRUE(server.take_output().empty());

  ClientConfig cc;
  cc.pinned_server_key = id.public_key;
  cc.user = "a", cc.password = "b";
  ClientHandshake client(cc, rng);
  client.start(Instant{});
  (void)client.take_output();
  for (std::uint8_t b : big) client.on_bytes(ByteSpan(&b, 1), Instant{});
  EXPECT_EQ(client.failure(), Failure::kRecordFraming);
}

TEST(handshake, deadlines) {
  crypto::DeterministicRng rng(1);
  crypto::X25519KeyPair id = crypto::x25519_generate(rng);
  ServerConfig sc;
  sc.identity = &id;
  sc.timeout = std::chrono::seconds(5);
  ServerHandshake server(sc, rng);
  const Instant t0{};
  server.start(t0);
  ASSERT_TRUE(server.deadline().has_value());
  EXPECT_EQ(*server.deadline(), t0 + std::chrono::seconds(5));
  server.on_timer(t0 + std::chrono::seconds(4));
  EXPECT_EQ(server.state(), State::kRunning);
  server.on_timer(t0 + std::chrono::seconds(5));
  EXPECT_EQ(server.failure(), Failure::kTimeout);
  EXPECT_FALSE(server.deadline().has_value());
}

TEST(handshake, a_client_hello_without_the_hybrid_share_is_refused) {
  Harness h(Mode::kFakeTls, 23);
  crypto::DeterministicRng rng(2);
  ServerHandshake server(h.server_cfg, rng);
  ClientHandshake client(h.client_cfg, h.client_rng);
  client.start(Instant{});
  Bytes ch = client.take_output().at(0).bytes;
  const std::uint8_t pat[] = {0x11, 0xEC, 0x04, 0xC0};
  auto it = std::search(ch.begin(), ch.end(), std::begin(pat), std::end(pat));
  ASSERT_NE(it, ch.end());
  it[0] = 0x00, it[1] = 0x17;
  server.start(Instant{});
  server.on_bytes(ch, Instant{});
  EXPECT_EQ(server.failure(), Failure::kBadClientHello);
  EXPECT_TRUE(server.take_output().empty());
}

// --- capability exchange with an "old" (extension off, 0.7.16-identical) peer ---------

TEST_P(EveryMode, old_client_with_new_server_interoperates) {
  Harness h(GetParam(), 24);
  h.client_cfg.extensions = 0;
  Outcome r = h.run();
  expect_success(r);
  EXPECT_EQ(r.client->negotiated_caps, 0U);
  EXPECT_FALSE(r.client->auth_ok->x_caps.has_value());  // ignored like an unknown key
  EXPECT_TRUE(r.c2s_after_done.empty());                // no capability frame sent
  expect_records_both_ways(r);
}

TEST_P(EveryMode, new_client_with_old_server_interoperates) {
  Harness h(GetParam(), 25);
  h.server_cfg.extensions = 0;
  Outcome r = h.run();
  expect_success(r);
  EXPECT_EQ(r.client->negotiated_caps, 0U);
  EXPECT_EQ(r.server->advertised_caps, 0U);
  EXPECT_TRUE(r.c2s_after_done.empty());
  expect_records_both_ways(r);
}

// caps::kAesGcm (docs/PROTOCOL.md §18): two of our ends with this build's extensions
// negotiate it (on a CPU with AES-GCM instructions) and then seal with AES-256-GCM; an end
// with extensions off (0.7.16 on the wire) never does; QELI_DISABLE_AESGCM=1 drops the bit.
TEST(AesGcmCaps, OurEndsNegotiateItAnOldEndDoesNot) {
  ::unsetenv("QELI_DISABLE_EXTENSIONS");
  ::unsetenv("QELI_DISABLE_AESGCM");
  const std::uint32_t ours = our_extensions(Carrier::kStream);
  ASSERT_EQ(our_extensions(Carrier::kDatagram) & caps::kAesGcm, ours & caps::kAesGcm);
  ::setenv("QELI_DISABLE_AESGCM", "1", 1);
  EXPECT_EQ(our_extensions(Carrier::kStream), ours & ~caps::kAesGcm);
  ::unsetenv("QELI_DISABLE_AESGCM");
  ::setenv("QELI_DISABLE_EXTENSIONS", "1", 1);
  EXPECT_EQ(our_extensions(Carrier::kDatagram), 0U);
  ::unsetenv("QELI_DISABLE_EXTENSIONS");
  if ((ours & caps::kAesGcm) == 0) GTEST_SKIP() << "this CPU has no AES-GCM instructions";

  for (const Mode mode : {Mode::kPlain, Mode::kFakeTls}) {
    Harness h(mode, 40);
    h.client_cfg.extensions = ours;
    h.server_cfg.extensions = ours;
    Outcome r = h.run();
    expect_success(r);
    EXPECT_NE(r.client->negotiated_caps & caps::kAesGcm, 0U);
    // The capability frame carries the bit to the server.
    wire::RecordReader reader(r.client->send.framing(), wire::kMaxRecordPayload);
    ASSERT_EQ(reader.feed(r.c2s_after_done), r.c2s_after_done.size());
    auto next = reader.next();
    ASSERT_EQ(next.status, wire::RecordReader::Status::kRecord);
    // The handshakes set the codecs up: the client seals AES after its capability frame,
    // both receivers take AES records; the server's sender waits for that frame.
    EXPECT_EQ(r.client->send.send_aead(), wire::RecordAeadKind::kAes256Gcm);
    EXPECT_TRUE(r.client->recv.recv_accepts_aes());
    EXPECT_TRUE(r.server->recv.recv_accepts_aes());
    EXPECT_EQ(r.server->send.send_aead(), wire::RecordAeadKind::kChaCha20Poly1305);
    auto opened = r.server->recv.open_in_place(next.record);
    ASSERT_TRUE(opened.ok());
    auto frame = wire::parse_control_frame(opened->data);
    ASSERT_TRUE(frame.ok());
    EXPECT_NE(wire::parse_capabilities(*frame).value() & caps::kAesGcm, 0U);
    // Then the server switches, as its data plane does on that frame: records cross.
    r.server->send.set_send_aes();
    expect_records_both_ways(r);
    EXPECT_TRUE(r.server->recv.recv_aes_seen());
    EXPECT_TRUE(r.client->recv.recv_aes_seen());
  }
  // A 0.7.16-like client (extensions off) with our server, and the other way round.
  for (const bool old_client : {true, false}) {
    Harness h(Mode::kFakeTls, 41);
    h.client_cfg.extensions = old_client ? 0 : ours;
    h.server_cfg.extensions = old_client ? ours : 0;
    Outcome r = h.run();
    expect_success(r);
    EXPECT_EQ(r.client->negotiated_caps & caps::kAesGcm, 0U);
    EXPECT_TRUE(r.c2s_after_done.empty()) << "no capability frame";
    EXPECT_EQ(r.client->send.send_aead(), wire::RecordAeadKind::kChaCha20Poly1305);
    EXPECT_FALSE(r.client->recv.recv_accepts_aes());
    // Our server offered it to the old client (its receiver is ready) but never switches.
    EXPECT_EQ(r.server->recv.recv_accepts_aes(), old_client);
    expect_records_both_ways(r);
    EXPECT_FALSE(r.server->recv.recv_aes_seen());
  }
}

// caps::kIpv6Inside (docs/PROTOCOL.md §21): negotiated only when the server offers it with
// the addresses and the client supports it; the server never sends the addresses
// without the offer.
TEST(Ipv6InsideCaps, NegotiatedOnlyWithOfferAddressAndSupport) {
  const std::uint32_t base = caps::kCapabilityExchange;
  struct Row {
    std::uint32_t server, client;
    bool addresses;
    bool negotiated, client_sees_addresses;
  };
  for (const Row& row : {
           Row{base | caps::kIpv6Inside, base | caps::kIpv6Inside, true, true, true},
           Row{base, base | caps::kIpv6Inside, true, false, false},  // stripped by the server
           Row{base | caps::kIpv6Inside, base | caps::kIpv6Inside, false, false, false},
           Row{base | caps::kIpv6Inside, base, true, false, true},  // a client without IPv6
           Row{0, base | caps::kIpv6Inside, true, false, false},    // extensions off
       }) {
    Harness h(Mode::kFakeTls, 61);
    h.server_cfg.extensions = row.server;
    h.client_cfg.extensions = row.client;
    if (row.addresses) {
      h.auth_ok.x_ip6 = "fd00:9::2/64";
      h.auth_ok.x_server_ip6 = "fd00:9::1";
    }
    h.auth_ok.x_dns6 = "fd00:9::1";  // the IPv6 resolver goes (and is stripped) with them
    Outcome r = h.run();
    expect_success(r);
    EXPECT_EQ((r.client->negotiated_caps & caps::kIpv6Inside) != 0, row.negotiated);
    ASSERT_TRUE(r.client->auth_ok.has_value());
    EXPECT_EQ(r.client->auth_ok->x_ip6.has_value(), row.client_sees_addresses);
    EXPECT_EQ(r.client->auth_ok->x_dns6.has_value(), row.client_sees_addresses);
  }
}

// caps::kResume (docs/PROTOCOL.md §22): taken only with the grace period in AUTH OK; the
// server sends that only with the bit offered.
TEST(ResumeCaps, NegotiatedOnlyWithTheGracePeriod) {
  const std::uint32_t base = caps::kCapabilityExchange;
  for (const bool secs : {true, false}) {
    for (const bool offered : {true, false}) {
      Harness h(Mode::kFakeTls, 62);
      h.server_cfg.extensions = offered ? base | caps::kResume : base;
      h.client_cfg.extensions = base | caps::kResume;
      if (secs) h.auth_ok.x_resume_secs = 30;
      Outcome r = h.run();
      expect_success(r);
      EXPECT_EQ((r.client->negotiated_caps & caps::kResume) != 0, secs && offered);
      EXPECT_EQ(r.client->auth_ok->x_resume_secs.has_value(), secs && offered);
    }
  }
}

TEST(handshake, old_server_auth_ok_has_no_extension_key) {
  AuthOk ok = test::sample_auth_ok();
  const Bytes plain = build_auth_ok(ok);
  EXPECT_EQ(std::string(plain.begin(), plain.end()).find("x_caps"), std::string::npos);
  ok.x_caps = 1;
  const Bytes ext = build_auth_ok(ok);
  EXPECT_NE(std::string(ext.begin(), ext.end()).find("\"x_caps\":1"), std::string::npos);
  // An old peer's data plane skips the capability control frame by its length.
  const Bytes frame = wire::build_capabilities(caps::kCapabilityExchange);
  auto f = wire::parse_control_frame(frame);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(wire::parse_mtu_report(*f).ok());
  EXPECT_FALSE(wire::parse_client_info(*f).ok());
}

TEST_P(EveryMode, leftover_bytes_are_handed_over) {
  // The server's first data record arrives in the same read as AUTH OK.
  Harness h(GetParam(), 26);
  h.server_data_after_ok = pattern(300, 9);
  Outcome r = h.run();
  expect_success(r);
  ASSERT_EQ(r.client->leftover.size(), wire::record_size(r.client->recv.framing(), 300, 0));
  auto opened = r.client->recv.open_in_place(r.client->leftover);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(Bytes(opened->data.begin(), opened->data.end()), pattern(300, 9));
  EXPECT_TRUE(r.server->leftover.empty());
  // The same, one byte per read: the record is split; the rest stays with the caller.
  Harness b(GetParam(), 26);
  b.server_data_after_ok = pattern(300, 9);
  b.chunk = 1;
  Outcome rb = b.run();
  expect_success(rb);
  EXPECT_LT(rb.client->leftover.size(), wire::record_size(rb.client->recv.framing(), 300, 0));
}

}  // namespace
}  // namespace qeli::handshake
