// reality_hello — prints (hex) one fake-TLS ClientHello record as a qeli client would send
// it to a `reality` server, with the REALITY token sealed for SERVER_KEY and SHORT_ID at
// now + OFFSET seconds: a valid hello (offset 0), an expired one (offset ±300), one with
// a wrong or revoked short id. The e2e test (tests/e2e/reality.sh) sends it raw to check
// the gate's verdicts, and sends the same bytes twice to check the replay cache.
// Usage: reality_hello SERVER_KEY_HEX SHORT_ID OFFSET_SECS SNI
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/bytes.h"
#include "config/short_id.h"
#include "crypto/random.h"
#include "handshake/client_handshake.h"

int main(int argc, char** argv) {
  using namespace qeli;
  if (argc != 5) {
    std::fprintf(stderr, "usage: reality_hello SERVER_KEY_HEX SHORT_ID OFFSET_SECS SNI\n");
    return 2;
  }
  handshake::X25519Public key{};
  if (!from_hex_into(argv[1], key)) return 2;
  const auto id = config::parse_short_id(argv[2]);
  if (!id) return 2;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  handshake::ClientConfig cfg;
  cfg.pinned_server_key = key;
  cfg.sni = wire::Sni{wire::Sni::Kind::kHost, argv[4]};
  cfg.reality = handshake::ClientConfig::RealityToken{
      *id, static_cast<std::uint64_t>(now + std::atoll(argv[3]))};
  handshake::ClientHandshake hs(cfg, crypto::system_rng());
  hs.start(std::chrono::steady_clock::now());
  const auto out = hs.take_output();
  if (out.empty()) return 1;
  std::printf("%s\n", to_hex(out.front().bytes).c_str());
  return 0;
}
