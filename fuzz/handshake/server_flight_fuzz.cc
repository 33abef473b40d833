// The client state machine reading a server flight: any bytes, split at positions chosen
// by the first input byte. Checks: no crash; a failed machine has a reason and emits
// nothing more; a completed one (impossible without the server's keys) would abort.
#include <cstdlib>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/client_handshake.h"

using namespace qeli;
using namespace qeli::handshake;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  crypto::DeterministicRng rng(7);
  ClientConfig cfg;
  cfg.mode = (data[0] & 0x80) ? Mode::kPlain : Mode::kFakeTls;
  cfg.bind_static = (data[0] & 0x40) != 0;
  cfg.pinned_server_key = crypto::x25519_generate(rng).public_key;
  cfg.user = "u";
  cfg.password = "p";
  ClientHandshake c(cfg, rng);
  c.start(Instant{});
  (void)c.take_output();
  const std::size_t step = (data[0] & 0x3F) + 1;
  ByteSpan in(data + 1, size - 1);
  while (!in.empty() && c.state() == State::kRunning) {
    const std::size_t n = std::min(step, in.size());
    c.on_bytes(in.first(n), Instant{});
    in = in.subspan(n);
  }
  if (c.state() == State::kDone) std::abort();  // would mean a forged server proof
  if (c.state() == State::kFailed && (c.failure() == Failure::kNone || !c.take_output().empty())) {
    std::abort();
  }
  return 0;
}
