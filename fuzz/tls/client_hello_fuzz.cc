// ClientHello parsing and everything computed from a parsed hello (JA3/JA4, the hello
// classifier), on one whole record or a bare message. Invariant: what parses keeps its
// views inside the input.
#include <cstdlib>

#include "tls/client_hello.h"
#include "tls/fingerprint.h"
#include "tls/hello_classifier.h"

using namespace qeli;
using namespace qeli::tls;

namespace {
bool inside(ByteSpan v, ByteSpan in) {
  return v.empty() || (v.data() >= in.data() && v.data() + v.size() <= in.data() + in.size());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  (void)classify_hello_record(in);
  auto ch = parse_client_hello(in);
  if (!ch) return 0;
  if (!inside(ch->random, in) || !inside(ch->session_id, in) || ch->random.size() != 32)
    std::abort();
  for (const Extension& e : ch->extensions) {
    if (!inside(e.data, in)) std::abort();
  }
  for (const KeyShareEntry& k : ch->key_shares) {
    if (!inside(k.key_exchange, in)) std::abort();
  }
  (void)ja3(*ch);
  (void)ja4(*ch);
  (void)ja4_ro(*ch);
  (void)classify_hello(*ch);
  return 0;
}
