// The terminator fed a hostile client. Mode 0: the input is the client's bytes. Mode 1: a
// real Chromium ClientHello first, then the input (hostile CCS, records, fake Finished).
// Mode 2 (past the crypto gate): a full handshake with our client, then the input cut
// into records sealed under the client's application key, into the established receiver
// (KeyUpdate, tickets the client may not send, alerts, empty-record floods).
// Invariant: no crash; without the client's keys the terminator never reaches kDone.
#include <cstdlib>

#include "crypto/random.h"
#include "tls/client_handshake.h"
#include "tls/terminator.h"

using namespace qeli;
using namespace qeli::tls;

namespace {

std::shared_ptr<const TargetShape> shape() {
  static const std::shared_ptr<const TargetShape> s = [] {
    crypto::DeterministicRng rng(3);
    return std::make_shared<const TargetShape>(fallback_shape("fuzz.example", "fuzz", rng));
  }();
  return s;
}

BuiltClientHello hello() {
  crypto::DeterministicRng rng(8);
  ClientHelloParams hp;
  hp.server_name = "fuzz.example";
  rng.fill(hp.session_id);
  return build_client_hello(hp, rng);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const ByteSpan in(data + 1, size - 1);
  crypto::DeterministicRng srng(9);
  Terminator t({shape()}, srng);
  t.start(Instant{});
  const int mode = data[0] % 3;
  if (mode == 0) {
    t.on_bytes(in, Instant{});
    if (t.state() == Terminator::State::kDone) std::abort();
    return 0;
  }
  ClientHandshake c(hello(), {});
  c.start(Instant{});
  t.on_bytes(c.take_output(), Instant{});
  if (mode == 1) {
    t.on_bytes(in, Instant{});
    if (t.state() == Terminator::State::kDone) std::abort();
    return 0;
  }
  c.on_bytes(t.take_output(), Instant{});
  t.on_bytes(c.take_output(), Instant{});
  if (t.state() != Terminator::State::kDone || c.state() != ClientHandshake::State::kDone)
    std::abort();
  ServerEstablished se = t.into_established();
  ClientEstablished ce = c.into_established();
  RecordProtection seal(ce.suite, ce.client_traffic);
  for (std::size_t p = 0; p + 2 <= in.size();) {
    const auto type = static_cast<ContentType>(21 + in[p] % 3);
    std::size_t n = in[p + 1];
    p += 2;
    n = std::min(n, in.size() - p);
    Bytes rec(5 + n + seal_tail(0));
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(p),
              in.begin() + static_cast<std::ptrdiff_t>(p + n), rec.begin() + 5);
    p += n;
    auto sealed = seal.seal(rec, n, type);
    if (!sealed) break;
    rec.resize(*sealed);
    if (!se.receiver->buffer().append(rec)) break;
    bool dead = false;
    for (;;) {
      auto r = se.receiver->next();
      if (!r) {
        dead = true;
        break;
      }
      if (r->kind != InboundKind::kData) break;
    }
    if (dead) break;
  }
  return 0;
}
