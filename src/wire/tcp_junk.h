// AmneziaWG-style junk records before TCP obfs's nonce exchange (qeli 0.7.16 `obfs.rs`
// F2; reference §3.7; docs/PROTOCOL.md "obfs junk"). Without the WebSocket front each
// record is
//
//   len(u16 BE) ‖ len random bytes        len uniform in [jmin, jmax]
//
// (with the front: one binary WebSocket frame of `len` random bytes each). The client
// sends its jc records, then reads and discards the server's jc; the server reads first,
// then sends. Both ends must use the same jc: the wire does not say how many follow.
// Limits: jc ≤ 128, a record ≤ 1400 bytes (a longer one read is an error), jmin clamped
// to ≤ jmax.
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "crypto/random.h"
#include "wire/limits.h"

namespace qeli::wire {

/// The junk parameters of one connection, already gated and clamped like 0.7.16's
/// AwgParams::effective_jc / clamp_window.
struct JunkPlan {
  std::uint32_t count = 0;
  std::uint16_t min_len = 40;
  std::uint16_t max_len = 300;
  /// enabled ? min(jc, 128) : 0, and jmax ≤ 1400, jmin ≤ jmax.
  static JunkPlan from_config(bool enabled, std::uint32_t jc, std::uint32_t jmin,
                              std::uint32_t jmax);
  /// One record length, uniform in [min_len, max_len].
  std::size_t pick_len(crypto::Rng& rng) const;
};

/// `count` raw records (len ‖ random), concatenated.
Bytes build_tcp_junk(const JunkPlan& plan, crypto::Rng& rng);

/// Reads and discards `count` raw junk records from bytes split anywhere.
class TcpJunkReader {
 public:
  explicit TcpJunkReader(std::uint32_t count) : left_(count) {}
  /// Consumes junk bytes from the front of `in`; returns how many it took (the rest
  /// belongs to what follows the junk). After an error it takes nothing.
  std::size_t feed(ByteSpan in);
  bool done() const { return left_ == 0 && !error_; }
  /// A record announced more than kJunkMaxLen bytes.
  bool error() const { return error_; }

 private:
  std::uint32_t left_;
  std::uint8_t len_bytes_ = 0;  // 0..2 bytes of the current length read
  std::uint16_t len_ = 0;
  std::size_t body_left_ = 0;
  bool error_ = false;
};

}  // namespace qeli::wire
