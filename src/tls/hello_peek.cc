#include "tls/hello_peek.h"

#include <algorithm>

namespace qeli::tls {

PeekResult peek_client_hello(ByteSpan buf) {
  if (!buf.empty() && buf[0] != 0x16) return {PeekVerdict::kNotTls, 0};
  if (buf.size() >= 6 && buf[5] != 0x01) return {PeekVerdict::kNotTls, 0};
  if (buf.size() < 6) return {PeekVerdict::kNeedMore, 0};
  const std::size_t len = (std::size_t{buf[3]} << 8) | buf[4];
  if (len < 4) return {PeekVerdict::kNotTls, 0};  // no room for a handshake header
  const std::size_t want = 5 + std::min<std::size_t>(len, kPeekMaxRecord - 5);
  if (buf.size() < want) return {PeekVerdict::kNeedMore, 0};
  return {PeekVerdict::kComplete, want};
}

}  // namespace qeli::tls
