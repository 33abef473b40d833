// bench/handshake_bench: one complete in-memory handshake (both sides' CPU cost).
// Reproduce: build/release/bench/handshake/handshake_bench --benchmark_repetitions=3
//            --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <variant>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/client_handshake.h"
#include "handshake/server_handshake.h"

namespace qeli::handshake {
namespace {

void BM_Handshake(benchmark::State& state, Mode mode) {
  crypto::Rng& rng = crypto::system_rng();
  const crypto::X25519KeyPair id = crypto::x25519_generate(rng);
  ClientConfig cc;
  cc.mode = mode;
  cc.pinned_server_key = id.public_key;
  cc.user = "alice";
  cc.password = "pw";
  ServerConfig sc;
  sc.mode = mode;
  sc.identity = &id;
  AuthOk ok;
  ok.client_ip = "10.8.0.2";
  for (auto _ : state) {
    ClientHandshake c(cc, rng);
    ServerHandshake s(sc, rng);
    c.start(Instant{});
    s.start(Instant{});
    for (int i = 0; i < 4 && c.state() == State::kRunning; ++i) {
      for (auto& o : c.take_output()) s.on_bytes(o.bytes, Instant{});
      if (s.take_event()) s.accept(ok);
      for (auto& o : s.take_output()) c.on_bytes(o.bytes, Instant{});
    }
    if (c.state() != State::kDone) state.SkipWithError("handshake failed");
  }
}
BENCHMARK_CAPTURE(BM_Handshake, plain, Mode::kPlain);
BENCHMARK_CAPTURE(BM_Handshake, fake_tls, Mode::kFakeTls);

}  // namespace
}  // namespace qeli::handshake

BENCHMARK_MAIN();
