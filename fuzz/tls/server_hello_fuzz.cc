// ServerHello / HelloRetryRequest parsing; a parsed hello re-encodes to the same bytes.
#include <cstdlib>

#include "tls/server_hello.h"

using namespace qeli;
using namespace qeli::tls;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  auto sh = parse_server_hello(in);
  if (!sh) return 0;
  ServerHelloParams p;
  std::copy(sh->random.begin(), sh->random.end(), p.random.begin());
  p.session_id = sh->session_id;
  p.cipher_suite = sh->cipher_suite;
  for (const Extension& e : sh->extensions)
    p.extensions.push_back({e.type, Bytes(e.data.begin(), e.data.end())});
  if (sh->legacy_version == 0x0303 && build_server_hello(p) != Bytes(in.begin(), in.end()))
    std::abort();
  return 0;
}
