// The request head meter (panel/request_head_meter.h) on any bytes, fed whole and in two
// pieces cut where the first byte says: the same verdict and the same head either way; a
// head it accepts ends with an empty line and is within kMaxHead; it never counts past
// kMaxHead + 1 bytes; a line-length refusal has a line past kMaxHeadLine before it.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "panel/request_head_meter.h"

using qeli::panel::RequestHeadMeter;
using V = RequestHeadMeter::Verdict;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 1, size - 1);
  RequestHeadMeter whole;
  std::size_t used = 0;
  const V v = whole.feed(all, &used);
  if (whole.size() > qeli::panel::kMaxHead + 1) std::abort();
  if (v == V::kDone) {
    const std::string_view head = all.substr(0, used);
    if (head.size() > qeli::panel::kMaxHead || !head.ends_with("\r\n")) std::abort();
    if (head.size() < 3 || head[head.size() - 3] != '\n') std::abort();  // an empty line
  }
  if (v == V::kLineTooLong) {
    std::size_t line = 0, longest = 0;
    for (const char c : all.substr(0, whole.size())) {
      line = c == '\n' ? 0 : line + 1;
      longest = std::max(longest, line);
    }
    if (longest + 1 < qeli::panel::kMaxHeadLine) std::abort();
  }
  // The same bytes in two pieces.
  const std::size_t cut = std::min<std::size_t>(data[0] * (all.size() / 256 + 1), all.size());
  RequestHeadMeter split;
  std::size_t u1 = 0, u2 = 0;
  V s = split.feed(all.substr(0, cut), &u1);
  if (s == V::kMore) {
    s = split.feed(all.substr(cut), &u2);
    u1 += u2;
  }
  if (s != v || (v == V::kDone && u1 != used)) std::abort();
  return 0;
}
