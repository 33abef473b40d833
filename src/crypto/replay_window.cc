#include "crypto/replay_window.h"

namespace qeli::crypto {

bool ReplayWindow::bit(std::uint64_t counter) const {
  const std::uint64_t i = counter % kWindowSize;
  return (bits_[i / 64] >> (i % 64)) & 1U;
}

void ReplayWindow::set_bit(std::uint64_t counter) {
  const std::uint64_t i = counter % kWindowSize;
  bits_[i / 64] |= std::uint64_t{1} << (i % 64);
}

// Clears the ring positions of counters (from, to]; those positions held counters that
// are now older than the window. Requires to - from < kWindowSize.
void ReplayWindow::clear_range(std::uint64_t from, std::uint64_t to) {
  std::uint64_t c = from + 1;
  // Bit by bit up to a word boundary, then whole words, then the tail.
  while (c != to + 1 && (c % 64) != 0) {
    const std::uint64_t i = c % kWindowSize;
    bits_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
    ++c;
  }
  while (to - c + 1 >= 64 && c != to + 1) {
    bits_[(c % kWindowSize) / 64] = 0;
    c += 64;
  }
  while (c != to + 1) {
    const std::uint64_t i = c % kWindowSize;
    bits_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
    ++c;
  }
}

bool ReplayWindow::check(std::uint64_t counter) const {
  if (!initialised_ || counter > top_) return true;
  if (top_ - counter >= kWindowSize) return false;
  return !bit(counter);
}

bool ReplayWindow::accept(std::uint64_t counter) {
  if (!initialised_) {
    initialised_ = true;
    top_ = counter;
    bits_.fill(0);
    set_bit(counter);
    return true;
  }
  if (counter > top_) {
    if (counter - top_ >= kWindowSize) {
      bits_.fill(0);
    } else {
      clear_range(top_, counter);
    }
    top_ = counter;
    set_bit(counter);
    return true;
  }
  if (top_ - counter >= kWindowSize || bit(counter)) return false;
  set_bit(counter);
  return true;
}

void ReplayWindow::reset() {
  bits_.fill(0);
  top_ = 0;
  initialised_ = false;
}

}  // namespace qeli::crypto
