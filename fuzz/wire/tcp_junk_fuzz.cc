// The TCP junk reader (wire/tcp_junk.h) on any bytes and any split (the first byte picks
// the count and the piece size): it never takes more than it is given, never claims
// done with an error, and the same bytes give the same result at every split.
#include <algorithm>
#include <cstdlib>

#include "wire/tcp_junk.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint32_t count = data[0] % 8;
  const std::size_t step = 1 + data[1] % 64;
  const ByteSpan in(data + 2, size - 2);
  wire::TcpJunkReader whole(count), pieces(count);
  const std::size_t used_whole = whole.feed(in);
  if (used_whole > in.size()) std::abort();
  std::size_t used = 0;
  for (std::size_t at = 0; at < in.size(); at += step) {
    const ByteSpan p = in.subspan(at, std::min(step, in.size() - at));
    const std::size_t u = pieces.feed(p);
    if (u > p.size()) std::abort();
    used += u;
    if (u < p.size()) break;
  }
  if (whole.done() && whole.error()) std::abort();
  if (whole.done() != pieces.done() || whole.error() != pieces.error()) std::abort();
  if (whole.done() && used != used_whole) std::abort();
  return 0;
}
