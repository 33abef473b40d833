// AUTH and JOIN plaintexts: a parsed AUTH rebuilds to exactly the input bytes.
#include <cstdlib>

#include "handshake/auth_message.h"

using namespace qeli;
using namespace qeli::handshake;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  if (auto j = parse_join(in)) {
    if (build_join(*j) != Bytes(data, data + size)) std::abort();
  }
  auto a = parse_auth(in);
  if (!a.ok()) return 0;
  auto b = build_auth(*a);
  if (!b || *b != Bytes(data, data + size)) std::abort();
  return 0;
}
