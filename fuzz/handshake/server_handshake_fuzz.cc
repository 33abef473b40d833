// The server state machine reading a client: any bytes (ClientHello or plain key, then
// records), split at positions chosen by the first input byte. Checks: no crash; a failed
// machine has a reason and writes nothing; no event without a decrypted AUTH.
#include <cstdlib>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/server_handshake.h"

using namespace qeli;
using namespace qeli::handshake;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  crypto::DeterministicRng rng(9);
  static const crypto::X25519KeyPair identity = [] {
    crypto::DeterministicRng r(1);
    return crypto::x25519_generate(r);
  }();
  ServerConfig cfg;
  cfg.mode = (data[0] & 0x80) ? Mode::kPlain : Mode::kFakeTls;
  cfg.identity = &identity;
  cfg.require_client_key_proof = (data[0] & 0x40) != 0;
  ServerHandshake s(cfg, rng);
  s.start(Instant{});
  const std::size_t step = (data[0] & 0x3F) + 1;
  ByteSpan in(data + 1, size - 1);
  while (!in.empty() && s.state() == State::kRunning) {
    const std::size_t n = std::min(step, in.size());
    s.on_bytes(in.first(n), Instant{});
    in = in.subspan(n);
    (void)s.take_output();
    if (s.take_event()) std::abort();  // an AUTH cannot be forged without the keys
  }
  if (s.state() == State::kFailed && (s.failure() == Failure::kNone || !s.take_output().empty())) {
    std::abort();
  }
  return 0;
}
