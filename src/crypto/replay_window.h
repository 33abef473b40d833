// The data-plane anti-replay window: 2048 packets, exact per counter (qeli 0.7.16
// `packet.rs`; vectors: fixtures/qeli-conformance/replay-window.json).
//
// Semantics: the first counter seen initialises the window. A counter greater than the
// highest seen (`top`) is accepted and slides the window; a counter c ≤ top is accepted
// iff top − c < 2048 and c was not seen before. Counters are unsigned 64-bit: a jump to
// 2^64 − 1 is just a forward jump. Apply only to packets that authenticated.
#pragma once

#include <array>
#include <cstdint>

namespace qeli::crypto {

class ReplayWindow {
 public:
  static constexpr std::uint64_t kWindowSize = 2048;

  /// Checks `counter` and, if acceptable, records it. Returns false for a replay or a
  /// counter older than the window.
  bool accept(std::uint64_t counter);

  /// Would `counter` be accepted? Does not record it.
  bool check(std::uint64_t counter) const;

  void reset();

  /// The highest counter accepted so far (0 before the first).
  std::uint64_t top() const { return top_; }

 private:
  static constexpr std::size_t kWords = kWindowSize / 64;
  bool bit(std::uint64_t counter) const;
  void set_bit(std::uint64_t counter);
  void clear_range(std::uint64_t from, std::uint64_t to);  // counters (from, to]

  std::array<std::uint64_t, kWords> bits_{};
  std::uint64_t top_ = 0;
  bool initialised_ = false;
};

}  // namespace qeli::crypto
