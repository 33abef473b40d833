// Our client against our terminator, in memory: every suite and both groups, shapes that
// split, coalesce, pad and compress like real targets, the 0.7.16 realtls hello, data
// and KeyUpdates both ways afterwards, tickets as the shape says. And the terminator's
// flight against the shape it mirrors: record count and sizes, EE, certificate bytes.
#include "tls/terminator.h"

#include <gtest/gtest.h>

#include "crypto/random.h"
#include "tls/cert_compression.h"
#include "tls/certificate.h"
#include "tls/client_handshake.h"
#include "tls/handshake_messages.h"
#include "tls/shape_extractor.h"

namespace qeli::tls {
namespace {

struct Pair {
  ClientHandshake client;
  Terminator server;
  Bytes server_wire;  // every byte the terminator sent
};

std::shared_ptr<const TargetShape> shape_with(std::function<void(TargetShape&)> edit) {
  crypto::DeterministicRng rng(77);
  TargetShape s = fallback_shape("www.example.com", "test", rng);
  if (edit) edit(s);
  return std::make_shared<const TargetShape>(std::move(s));
}

BuiltClientHello hello(std::uint64_t seed, HelloProfile profile = HelloProfile::kChromium156) {
  crypto::DeterministicRng rng(seed);
  ClientHelloParams p;
  p.profile = profile;
  p.server_name = "www.example.com";
  rng.fill(p.session_id);
  return build_client_hello(p, rng);
}

// Runs both machines against each other until neither has output.
void run(ClientHandshake& c, Terminator& s, Bytes* server_wire = nullptr) {
  c.start(Instant{});
  s.start(Instant{});
  for (int i = 0; i < 20; ++i) {
    Bytes a = c.take_output();
    if (!a.empty()) s.on_bytes(a, Instant{});
    Bytes b = s.take_output();
    if (server_wire) append(*server_wire, b);
    if (!b.empty()) c.on_bytes(b, Instant{});
    if (a.empty() && b.empty()) break;
  }
}

// Seals `text` with `tx`, opens it with `rx`, returns what came out.
std::string pass(RecordSender& tx, RecordReceiver& rx, const std::string& text) {
  Bytes out;
  if (tx.key_update_due()) {
    Bytes ku(kKeyUpdateRecordSize);
    auto n = tx.seal_key_update(ku);
    EXPECT_TRUE(n.ok());
    ku.resize(*n);
    append(out, ku);
  }
  Bytes rec(kRecordHead + text.size() + kRecordTail);
  std::copy(text.begin(), text.end(), rec.begin() + kRecordHead);
  auto n = tx.seal(rec, text.size());
  EXPECT_TRUE(n.ok());
  rec.resize(*n);
  append(out, rec);
  EXPECT_TRUE(rx.buffer().append(out).ok());
  std::string got;
  for (;;) {
    auto in = rx.next();
    EXPECT_TRUE(in.ok()) << (in.ok() ? "" : to_string(in.error()));
    if (!in || in->kind != InboundKind::kData) break;
    got.append(reinterpret_cast<const char*>(in->data.data()), in->data.size());
  }
  return got;
}

struct Case {
  CipherSuite suite;
  std::uint16_t group;
};

class TerminatorRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(TerminatorRoundTrip, HandshakeDataAndKeyUpdatesBothWays) {
  const Case c = GetParam();
  auto shape = shape_with([&](TargetShape& s) {
    s.suite = c.suite;
    s.group = c.group;
  });
  crypto::DeterministicRng srng(9);
  ClientHandshake client(hello(1), {});
  Terminator server({shape}, srng);
  run(client, server);
  ASSERT_EQ(client.state(), ClientHandshake::State::kDone) << client.failure_detail();
  ASSERT_EQ(server.state(), Terminator::State::kDone) << server.failure_detail();
  ClientEstablished ce = client.into_established();
  ServerEstablished se = server.into_established();
  EXPECT_EQ(ce.suite, c.suite);
  EXPECT_EQ(ce.group, c.group);
  EXPECT_EQ(se.client_family, HelloFamily::kChromium156);
  EXPECT_EQ(ce.alpn, std::optional<std::string>("h2"));

  // Exporters agree (the binding the inner qeli handshake relies on).
  std::uint8_t a[32], b[32];
  ASSERT_TRUE(export_keying_material(ce.suite, ce.exporter_master, "EXPORTER-x", {}, a));
  ASSERT_TRUE(export_keying_material(se.suite, se.exporter_master, "EXPORTER-x", {}, b));
  EXPECT_EQ(to_hex(a), to_hex(b));

  auto csig = std::make_shared<KeyUpdateSignal>();
  RecordSender ctx(ce.suite, ce.client_traffic.clone(), csig, true);
  RecordReceiver crx(ce.suite, ce.server_traffic.clone(), csig);
  ASSERT_TRUE(crx.buffer().append(ce.leftover).ok());
  // The tickets came with the leftover; no data.
  auto first = crx.next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->kind, InboundKind::kNeedMore);
  EXPECT_EQ(crx.tickets_received(), shape->ticket_records.size());

  EXPECT_EQ(pass(ctx, *se.receiver, "up"), "up");
  EXPECT_EQ(pass(*se.sender, crx, "down"), "down");
  // Client asks for an update; the server's receiver notes it, its sender answers.
  Bytes ku(kKeyUpdateRecordSize);
  auto n = ctx.seal_key_update(ku, KeyUpdateRequest::kRequested);
  ASSERT_TRUE(n.ok());
  ASSERT_TRUE(se.receiver->buffer().append(ByteSpan(ku).first(*n)).ok());
  EXPECT_EQ(pass(ctx, *se.receiver, "after"), "after");
  EXPECT_TRUE(se.sender->key_update_due());
  EXPECT_EQ(pass(*se.sender, crx, "answered"), "answered");
  EXPECT_EQ(se.sender->key_updates_sent(), 1u);
  EXPECT_EQ(crx.key_updates_received(), 1u);
  EXPECT_FALSE(se.sender->key_update_due());
}

INSTANTIATE_TEST_SUITE_P(SuitesAndGroups, TerminatorRoundTrip,
                         ::testing::Values(Case{CipherSuite::kAes128GcmSha256, 0x001D},
                                           Case{CipherSuite::kAes128GcmSha256, 0x11EC},
                                           Case{CipherSuite::kAes256GcmSha384, 0x001D},
                                           Case{CipherSuite::kAes256GcmSha384, 0x11EC},
                                           Case{CipherSuite::kChaCha20Poly1305Sha256, 0x001D},
                                           Case{CipherSuite::kChaCha20Poly1305Sha256, 0x11EC}));

// Parses the terminator's output into records: (outer type, wire size).
std::vector<std::pair<int, std::size_t>> records_of(const Bytes& wire) {
  std::vector<std::pair<int, std::size_t>> out;
  std::size_t p = 0;
  while (p + 5 <= wire.size()) {
    const std::size_t n = 5 + ((wire[p + 3] << 8) | wire[p + 4]);
    out.emplace_back(wire[p], n);
    p += n;
  }
  EXPECT_EQ(p, wire.size());
  return out;
}

TEST(Terminator, FlightFollowsTheShapesRecordsAndTheClientSeesTheShapesBytes) {
  // A coalesced flight (one record, like BoringSSL) with padding, and a split one.
  for (bool coalesce : {false, true}) {
    auto shape = shape_with([&](TargetShape& s) {
      s.signature_scheme = sigscheme::kRsaPssRsaeSha256;  // fixed-size signatures
      s.signature_size = 256;
      const std::size_t total = s.flight_size();
      if (coalesce) {
        s.flight_records = {{total, 37}};
      } else {
        const std::size_t ee = s.encrypted_extensions.size();
        const std::size_t cert = s.certificate_message_size();
        s.flight_records = {{ee, 0}, {ee + cert, 5}, {ee + cert + 4 + 4 + 256, 0}, {total, 0}};
      }
    });
    crypto::DeterministicRng srng(10);
    ClientHandshake client(hello(2), {});
    Terminator server({shape}, srng);
    Bytes wire;
    run(client, server, &wire);
    ASSERT_EQ(client.state(), ClientHandshake::State::kDone) << client.failure_detail();
    ASSERT_EQ(server.state(), Terminator::State::kDone) << server.failure_detail();

    // Wire: ServerHello, CCS, the flight records, then the tickets.
    const auto recs = records_of(wire);
    ASSERT_EQ(recs.size(), 2 + shape->flight_records.size() + shape->ticket_records.size() +
                               shape->unprompted_records.size());
    EXPECT_EQ(recs[0].first, 22);
    EXPECT_EQ(recs[1], (std::pair<int, std::size_t>{20, 6}));
    std::size_t prev = 0;
    for (std::size_t i = 0; i < shape->flight_records.size(); ++i) {
      const auto& fr = shape->flight_records[i];
      EXPECT_EQ(recs[2 + i].second, 5 + (fr.content_end - prev) + 1 + fr.padding + 16) << i;
      prev = fr.content_end;
    }
    // What the client received is the shape's EE and chain, byte for byte.
    const ServerFlight& f = client.server_flight();
    EXPECT_EQ(to_hex(f.encrypted_extensions), to_hex(shape->encrypted_extensions));
    EXPECT_EQ(to_hex(f.certificate_body), to_hex(shape->certificate_body));
    // And a shape extracted from that flight reproduces the input shape's layout.
    ClientEstablished ce = client.into_established();
    RecordReceiver rx(ce.suite, ce.server_traffic.clone(), nullptr);
    ASSERT_TRUE(rx.buffer().append(ce.leftover).ok());
    ASSERT_TRUE(rx.next().ok());
    auto got = extract_shape(f, rx.control_records(), {}, "test");
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->flight_records.size(), shape->flight_records.size());
    for (std::size_t i = 0; i < shape->flight_records.size(); ++i) {
      EXPECT_EQ(got->flight_records[i].content_end, shape->flight_records[i].content_end);
      EXPECT_EQ(got->flight_records[i].padding, shape->flight_records[i].padding);
    }
    EXPECT_EQ(got->ticket_records.size(), shape->ticket_records.size());
    EXPECT_EQ(got->signature_scheme, shape->signature_scheme);
    EXPECT_EQ(got->signature_size, 256u);
    EXPECT_EQ(got->server_hello_extensions, shape->server_hello_extensions);
  }
}

TEST(Terminator, CompressedChainIsReplayedWhenTheClientOfferedItsAlgorithm) {
  auto shape = shape_with([&](TargetShape& s) {
    auto comp = compress_certificate(certcomp::kBrotli, s.certificate_body);
    ASSERT_TRUE(comp.has_value());
    s.compressed_certificate.clear();
    append_handshake(
        s.compressed_certificate, HandshakeType::kCompressedCertificate,
        build_compressed_certificate(certcomp::kBrotli,
                                     static_cast<std::uint32_t>(s.certificate_body.size()), *comp));
    s.certificate_compression = certcomp::kBrotli;
    const std::size_t ee = s.encrypted_extensions.size();
    const std::size_t cert = s.compressed_certificate.size();
    s.flight_records = {{ee, 0}, {ee + cert, 0}, {ee + cert + 8 + 71, 0}, {s.flight_size(), 0}};
  });
  crypto::DeterministicRng srng(11);
  ClientHandshake client(hello(3), {});
  Terminator server({shape}, srng);
  run(client, server);
  ASSERT_EQ(client.state(), ClientHandshake::State::kDone) << client.failure_detail();
  EXPECT_EQ(client.server_flight().certificate_compression, certcomp::kBrotli);
  EXPECT_EQ(to_hex(client.server_flight().certificate), to_hex(shape->compressed_certificate));
  EXPECT_EQ(to_hex(client.server_flight().certificate_body), to_hex(shape->certificate_body));
}

TEST(Terminator, Qeli0716RealtlsClientNeverGetsChaCha) {
  auto shape = shape_with([](TargetShape& s) {
    s.suite = CipherSuite::kChaCha20Poly1305Sha256;
    s.group = 0x11EC;
  });
  crypto::DeterministicRng srng(12);
  ClientHandshake client(hello(4, HelloProfile::kQeli0716), {});
  Terminator server({shape}, srng);
  run(client, server);
  ASSERT_EQ(client.state(), ClientHandshake::State::kDone) << client.failure_detail();
  const ServerEstablished se = server.into_established();
  EXPECT_EQ(se.client_family, HelloFamily::kQeli0716Realtls);
  EXPECT_EQ(se.suite, CipherSuite::kAes128GcmSha256);
  EXPECT_EQ(se.group, 0x11EC);  // the hybrid works: its X25519 half is the client's one key
}

// A 0.7.16 realtls server computes the hybrid's X25519 half with our stand-alone key;
// our Chromium hello has two keys, so the client must find that out by itself.
TEST(ClientHandshake, ChromiumHelloCompletesWithAQeli0716ServersHybridKeyChoice) {
  for (const bool emulate : {false, true}) {
    auto shape = shape_with([](TargetShape& s) { s.group = 0x11EC; });
    crypto::DeterministicRng srng(14);
    ClientHandshake client(hello(5), {});
    TerminatorConfig tc{shape};
    tc.emulate_qeli0716_hybrid = emulate;
    Terminator server(tc, srng);
    run(client, server);
    ASSERT_EQ(client.state(), ClientHandshake::State::kDone) << client.failure_detail();
    ASSERT_EQ(server.state(), Terminator::State::kDone) << server.failure_detail();
    EXPECT_EQ(client.server_reused_x25519_key(), emulate);
    ClientEstablished ce = client.into_established();
    ServerEstablished se = server.into_established();
    EXPECT_EQ(ce.group, 0x11EC);
    auto csig = std::make_shared<KeyUpdateSignal>();
    RecordSender ctx(ce.suite, ce.client_traffic.clone(), csig, true);
    EXPECT_EQ(pass(ctx, *se.receiver, "up"), "up");
  }
}

TEST(Terminator, WrongClientFinishedFailsAndDoesNotEstablish) {
  auto shape = shape_with(nullptr);
  crypto::DeterministicRng srng(13);
  ClientHandshake client(hello(5), {});
  Terminator server({shape}, srng);
  client.start(Instant{});
  server.start(Instant{});
  server.on_bytes(client.take_output(), Instant{});
  client.on_bytes(server.take_output(), Instant{});
  ASSERT_EQ(client.state(), ClientHandshake::State::kDone);
  Bytes fin = client.take_output();
  fin[fin.size() - 1] ^= 1;  // the tag of the encrypted Finished
  server.on_bytes(fin, Instant{});
  EXPECT_EQ(server.state(), Terminator::State::kFailed);
  EXPECT_EQ(server.failure(), TlsError::kBadRecordMac);
  // It answers with an alert under its handshake key (a record of type 23).
  const Bytes alert = server.take_output();
  ASSERT_FALSE(alert.empty());
  EXPECT_EQ(alert[0], 0x17);
}

TEST(ClientHandshake, RefusesTamperedServerAnswers) {
  auto shape = shape_with(nullptr);
  // Tamper with each byte class of the server's first flight; the client must fail.
  struct Tamper {
    const char* what;
    std::size_t offset;  // into the server output
  };
  const Tamper cases[] = {
      {"ServerHello session id echo", 5 + 4 + 2 + 32 + 1},
      {"ServerHello cipher suite", 5 + 4 + 2 + 32 + 1 + 32},
      {"ServerHello key share", 5 + 4 + 2 + 32 + 1 + 32 + 2 + 1 + 2 + 6 + 8},
      {"encrypted flight", 5 + 90 + 6 + 30},
  };
  for (const Tamper& t : cases) {
    crypto::DeterministicRng srng(14);
    ClientHandshake client(hello(6), {});
    Terminator server({shape}, srng);
    client.start(Instant{});
    server.start(Instant{});
    server.on_bytes(client.take_output(), Instant{});
    Bytes out = server.take_output();
    ASSERT_LT(t.offset, out.size());
    out[t.offset] ^= 0x40;
    client.on_bytes(out, Instant{});
    EXPECT_EQ(client.state(), ClientHandshake::State::kFailed) << t.what;
  }
}

TEST(ClientHandshake, TimesOutAndReportsPeerAlerts) {
  ClientHandshake c(hello(7), {});
  c.start(Instant{});
  c.on_timer(Instant{} + std::chrono::seconds(14));
  EXPECT_EQ(c.state(), ClientHandshake::State::kRunning);
  c.on_timer(Instant{} + std::chrono::seconds(15));
  EXPECT_EQ(c.state(), ClientHandshake::State::kFailed);
  EXPECT_EQ(c.failure(), TlsError::kTimeout);

  ClientHandshake d(hello(8), {});
  d.start(Instant{});
  const std::uint8_t alert[] = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28};
  d.on_bytes(alert, Instant{});
  EXPECT_EQ(d.failure(), TlsError::kPeerAlert);
  EXPECT_NE(d.failure_detail().find("handshake_failure"), std::string::npos);
}

}  // namespace
}  // namespace qeli::tls
