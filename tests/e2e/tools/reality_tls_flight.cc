// reality_tls_flight — runs one real TLS 1.3 handshake (our Chromium hello) against
// HOST:PORT and prints, as one JSON object, how the server answered (tls::TargetShape:
// suite, group, ServerHello extension order, EncryptedExtensions, the certificate chain's
// SHA-256, CertificateVerify, the flight's record boundaries, tickets). With SERVER_KEY
// and SHORT_ID the hello carries a REALITY token sealed now + OFFSET seconds, so a
// reality-tls server answers with its terminator; without, it bridges to its target.
// tests/e2e/reality_tls.sh compares the two answers and nginx's own.
// Usage: reality_tls_flight HOST PORT SNI [SERVER_KEY_HEX SHORT_ID OFFSET_SECS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "config/short_id.h"
#include "crypto/random.h"
#include "crypto/sha256.h"
#include "transport/reality_tls_hello.h"
#include "transport/tls_target_probe.h"

int main(int argc, char** argv) {
  using namespace qeli;
  if (argc != 4 && argc != 7) {
    std::fprintf(stderr,
                 "usage: reality_tls_flight HOST PORT SNI [SERVER_KEY_HEX SHORT_ID OFFSET_SECS]\n");
    return 2;
  }
  transport::TargetProbeConfig pc;
  pc.host = argv[1];
  pc.port = static_cast<std::uint16_t>(std::atoi(argv[2]));
  pc.sni = argv[3];
  if (argc == 7) {
    transport::RealityTlsHelloParams hp;
    hp.server_name = pc.sni;
    if (!from_hex_into(argv[4], hp.server_key)) return 2;
    const auto id = config::parse_short_id(argv[5]);
    if (!id) return 2;
    hp.short_id = *id;
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    hp.unix_secs = static_cast<std::uint64_t>(now + std::atoll(argv[6]));
    pc.hello = [hp](crypto::Rng& rng) {
      auto h = transport::build_reality_tls_hello(hp, rng);
      if (!h) std::abort();
      return std::move(*h);
    };
  }
  auto shape = transport::probe_target(pc, crypto::system_rng());
  if (!shape) {
    std::printf("{\"error\": %s}\n", nlohmann::json(shape.error()).dump().c_str());
    return 1;
  }
  const tls::TargetShape& s = *shape;
  nlohmann::json j;
  j["suite"] = tls::to_string(s.suite);
  j["group"] = s.group;
  j["server_hello_extensions"] = s.server_hello_extensions;
  j["change_cipher_spec"] = s.change_cipher_spec;
  j["encrypted_extensions"] = to_hex(s.encrypted_extensions);
  j["certificate_sha256"] = to_hex(crypto::sha256(ByteSpan(s.certificate_body)));
  j["certificate_compression"] = s.certificate_compression;
  j["signature_scheme"] = s.signature_scheme;
  j["signature_size"] = s.signature_size;
  nlohmann::json recs = nlohmann::json::array();
  for (const auto& r : s.flight_records) recs.push_back({r.content_end, r.padding});
  j["flight_records"] = recs;
  nlohmann::json tickets = nlohmann::json::array();
  for (const auto& r : s.ticket_records) {
    nlohmann::json t = nlohmann::json::array();
    for (const auto& k : r.tickets) t.push_back({k.lifetime, k.ticket_size});
    tickets.push_back(t);
  }
  j["ticket_records"] = tickets;
  j["unprompted_records"] = s.unprompted_records;
  j["describe"] = tls::describe(s);
  std::printf("%s\n", j.dump().c_str());
  return 0;
}
