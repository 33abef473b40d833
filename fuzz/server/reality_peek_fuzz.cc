// The REALITY gate's decision on any bytes (tls/hello_peek.h, server/reality_auth.h): the
// peek classifier never asks for more than one capped record, and a complete record goes
// through the token check without crashing; random bytes are never accepted.
#include <cstdlib>

#include "crypto/random.h"
#include "server/reality_auth.h"
#include "tls/hello_peek.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const crypto::X25519KeyPair identity = [] {
    crypto::DeterministicRng rng(9);
    return crypto::x25519_generate(rng);
  }();
  const ByteSpan in(data, size);
  // Every prefix classifies consistently with the whole.
  const tls::PeekResult whole = tls::peek_client_hello(in);
  if (whole.verdict == tls::PeekVerdict::kComplete &&
      (whole.size > tls::kPeekMaxRecord || whole.size > size || whole.size < 6)) {
    std::abort();
  }
  for (std::size_t n = 0; n < std::min<std::size_t>(size, 8); ++n) {
    const tls::PeekResult p = tls::peek_client_hello(in.first(n));
    if (p.verdict == tls::PeekVerdict::kNotTls && whole.verdict != tls::PeekVerdict::kNotTls)
      std::abort();
  }
  if (whole.verdict != tls::PeekVerdict::kComplete) return 0;
  server::RealityPolicy policy;
  policy.identity = &identity;
  policy.shared_ids.push_back(config::ShortId{1, 2, 3, 4, 5, 6, 7, 8});
  const auto d = server::authenticate_hello(in.first(whole.size), policy, 1'800'000'000);
  if (d.verdict == server::RealityVerdict::kAccepted) std::abort();  // forging needs the key
  return 0;
}
