// The TLS 1.3 key schedule against RFC 8448 §3 end to end: the transcript hashes are
// computed from the trace's own messages (which also checks our Transcript), then every
// secret, key, IV, Finished and the resumption PSK are compared with the trace. The
// SHA-384 and exporter paths are checked against OpenSSL in client_openssl_test.cc.
#include "tls/key_schedule.h"

#include <gtest/gtest.h>

#include "crypto/x25519.h"
#include "tls/transcript.h"
#include "tls_test_util.h"

namespace qeli::tls {
namespace {

using test::hex;
using test::rfc8448;
using test::rfc8448_bytes;

std::string sec(const char* k) { return rfc8448()["secrets"][k].get<std::string>(); }
std::string key(const char* k) { return rfc8448()["keys"][k].get<std::string>(); }

TEST(TlsKeySchedule, Rfc8448SimpleHandshakeEndToEnd) {
  constexpr auto kSuite = CipherSuite::kAes128GcmSha256;
  // X25519 of the trace's keys gives the trace's shared secret.
  const Bytes cpriv = rfc8448_bytes("client_private");
  const Bytes spub = rfc8448_bytes("server_public");
  auto shared = crypto::x25519(std::span<const std::uint8_t, 32>(cpriv.data(), 32),
                               std::span<const std::uint8_t, 32>(spub.data(), 32));
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(to_hex(shared->span()), rfc8448()["shared"]);

  Transcript t;
  t.add(rfc8448_bytes("client_hello"));  // before the suite is known, like a client
  t.set_algorithm(hash_of(kSuite));
  t.add(rfc8448_bytes("server_hello"));
  EXPECT_EQ(to_hex(t.hash().span()), rfc8448()["hello_hash"]);

  KeySchedule ks(kSuite);
  EXPECT_EQ(to_hex(ks.early_secret().span()), sec("early"));
  ks.with_shared_secret(shared->span());
  EXPECT_EQ(to_hex(ks.handshake_secret().span()), sec("handshake"));
  const HandshakeSecrets hs = ks.handshake_secrets(t.hash().span());
  EXPECT_EQ(to_hex(hs.client.span()), sec("c_hs_traffic"));
  EXPECT_EQ(to_hex(hs.server.span()), sec("s_hs_traffic"));
  EXPECT_EQ(to_hex(ks.master_secret().span()), sec("master"));

  const TrafficKeys shk = traffic_keys(kSuite, hs.server);
  EXPECT_EQ(to_hex(shk.key_span()), key("s_hs_key"));
  EXPECT_EQ(to_hex(shk.iv), key("s_hs_iv"));
  const TrafficKeys chk = traffic_keys(kSuite, hs.client);
  EXPECT_EQ(to_hex(chk.key_span()), key("c_hs_key"));
  EXPECT_EQ(to_hex(chk.iv), key("c_hs_iv"));

  t.add(rfc8448_bytes("encrypted_extensions"));
  t.add(rfc8448_bytes("certificate"));
  t.add(rfc8448_bytes("certificate_verify"));
  const auto sf = finished_verify_data(kSuite, hs.server, t.hash().span());
  EXPECT_EQ("14000020" + to_hex(sf.span()), rfc8448()["server_finished"]);
  t.add(rfc8448_bytes("server_finished"));

  const ApplicationSecrets ap = ks.application_secrets(t.hash().span());
  EXPECT_EQ(to_hex(ap.client.span()), sec("c_ap_traffic"));
  EXPECT_EQ(to_hex(ap.server.span()), sec("s_ap_traffic"));
  EXPECT_EQ(to_hex(ap.exporter_master.span()), sec("exp_master"));
  EXPECT_EQ(to_hex(traffic_keys(kSuite, ap.server).key_span()), key("s_ap_key"));
  EXPECT_EQ(to_hex(traffic_keys(kSuite, ap.server).iv), key("s_ap_iv"));
  EXPECT_EQ(to_hex(traffic_keys(kSuite, ap.client).key_span()), key("c_ap_key"));
  EXPECT_EQ(to_hex(traffic_keys(kSuite, ap.client).iv), key("c_ap_iv"));

  const auto cf = finished_verify_data(kSuite, hs.client, t.hash().span());
  EXPECT_EQ("14000020" + to_hex(cf.span()), rfc8448()["client_finished"]);
  t.add(rfc8448_bytes("client_finished"));
  const Secret res = ks.resumption_master(t.hash().span());
  EXPECT_EQ(to_hex(res.span()), sec("res_master"));
  const std::uint8_t nonce[2] = {0, 0};
  EXPECT_EQ(to_hex(ticket_psk(kSuite, res, nonce).span()), sec("ticket_psk_nonce_0000"));
}

TEST(TlsKeySchedule, TrafficUpdateAndExporterAreDeterministicAndDistinct) {
  for (CipherSuite s : {CipherSuite::kAes128GcmSha256, CipherSuite::kAes256GcmSha384,
                        CipherSuite::kChaCha20Poly1305Sha256}) {
    const Secret base = Secret(Bytes(crypto::digest_size(hash_of(s)), 0x42));
    const Secret next = next_traffic_secret(s, base);
    EXPECT_EQ(next.size(), base.size());
    EXPECT_NE(to_hex(next.span()), to_hex(base.span()));
    EXPECT_EQ(to_hex(next_traffic_secret(s, base).span()), to_hex(next.span()));
    std::uint8_t a[32], b[32], c[32];
    ASSERT_TRUE(export_keying_material(s, base, "EXPORTER-qeli", {}, a));
    ASSERT_TRUE(export_keying_material(s, base, "EXPORTER-qeli", {}, b));
    const std::uint8_t ctx[1] = {1};
    ASSERT_TRUE(export_keying_material(s, base, "EXPORTER-qeli", ctx, c));
    EXPECT_EQ(to_hex(a), to_hex(b));
    EXPECT_NE(to_hex(a), to_hex(c));
    std::uint8_t none[1];
    EXPECT_FALSE(export_keying_material(s, base, std::string(250, 'x'), {}, none));
  }
}

TEST(TlsTranscript, HelloRetryRequestUsesMessageHash) {
  // §4.4.1: after an HRR the transcript restarts with 0xFE 00 00 Hash.length ‖ Hash(CH1).
  const Bytes ch1 = rfc8448_bytes("client_hello");
  Transcript t;
  t.add(ch1);
  t.set_algorithm(crypto::DigestAlgorithm::kSha256);
  t.restart_after_hrr();
  const auto h = crypto::digest(crypto::DigestAlgorithm::kSha256, ch1);
  Bytes synthetic = {0xFE, 0x00, 0x00, 0x20};
  append(synthetic, h.span());
  EXPECT_EQ(to_hex(t.hash().span()),
            to_hex(crypto::digest(crypto::DigestAlgorithm::kSha256, synthetic).span()));
}

}  // namespace
}  // namespace qeli::tls
