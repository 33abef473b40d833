// The first test of the REALITY gate (reference §4.2): do the bytes a stranger sent so
// far start a TLS handshake record carrying a ClientHello, and is the whole record here?
//
//   16 xx xx LL LL 01 …   (content type handshake, any version, length LLLL, then the
//                          handshake type client_hello)
//
// 0.7.16 peeks 6 bytes, then 5 + min(LLLL, 16384). Sans-I/O, for the gate's reads and
// the fuzzer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"

namespace qeli::tls {

/// The largest record the gate waits for: a TLS record of 2^14 bytes plus its header.
inline constexpr std::size_t kPeekMaxRecord = 5 + 16384;

enum class PeekVerdict : std::uint8_t {
  kNeedMore,  ///< a prefix of a ClientHello record so far
  kNotTls,    ///< not a handshake record with a ClientHello (or one too short to hold its
              ///< 4-byte header): a stranger
  kComplete,  ///< `size` bytes hold the (possibly capped) record
};

struct PeekResult {
  PeekVerdict verdict = PeekVerdict::kNeedMore;
  std::size_t size = 0;  ///< kComplete: 5 + min(length, 16384)
};

PeekResult peek_client_hello(ByteSpan buf);

}  // namespace qeli::tls
