// ClientHello parser: any input; a hello that parses must be exactly one whole record
// and re-parse identically when rebuilt from its fields.
#include <cstdlib>

#include "crypto/random.h"
#include "wire/faketls_client_hello.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  auto ch = wire::parse_client_hello(in);
  if (!ch.ok()) return 0;
  if (size < 5 || size != 5U + ((std::size_t{data[3]} << 8) | data[4])) std::abort();
  wire::ClientHelloParams p;
  p.random = ch->random;
  p.session_id = ch->session_id;
  p.x25519 = ch->x25519;
  p.mlkem_ek = ch->mlkem_ek;
  if (ch->sni && ch->sni->size() <= 255) p.sni = {wire::Sni::Kind::kHost, *ch->sni};
  crypto::DeterministicRng rng(1);
  auto again = wire::parse_client_hello(wire::build_client_hello(p, rng));
  if (!again.ok() || again->x25519 != ch->x25519 || again->mlkem_ek != ch->mlkem_ek) std::abort();
  return 0;
}
