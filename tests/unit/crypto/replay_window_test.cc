// Differential test of the 2048-packet replay window against a naive set-based oracle.
#include "crypto/replay_window.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace qeli::crypto {
namespace {

// The oracle: remembers every accepted counter; accepts c iff unseen and within
// 2048 of the highest counter accepted so far.
class NaiveWindow {
 public:
  bool accept(std::uint64_t c) {
    if (!seen_.empty()) {
      const std::uint64_t top = *seen_.rbegin();
      if (c <= top && (top - c >= ReplayWindow::kWindowSize || seen_.count(c))) return false;
    }
    seen_.insert(c);
    return true;
  }

 private:
  std::set<std::uint64_t> seen_;
};

TEST(ReplayWindow, MatchesNaiveOracleOnRandomSequences) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    ReplayWindow w;
    NaiveWindow oracle;
    std::uint64_t base = (trial % 3 == 0) ? 0 : rng() >> (trial % 60);
    for (int step = 0; step < 2000; ++step) {
      std::uint64_t c;
      switch (rng() % 6) {
        case 0: c = base + rng() % 4096; break;       // around the edge
        case 1: c = base + 2048 + rng() % 64; break;  // slide a little
        case 2:
          base += rng() % 3000;
          c = base;
          break;                                                    // jump forward
        case 3: c = base > 100 ? base - rng() % 100 : base; break;  // recent replay
        case 4: c = base + (rng() % 2); break;
        default: c = base + rng() % 70000; break;  // long jumps
      }
      ASSERT_EQ(w.accept(c), oracle.accept(c))
          << "trial " << trial << " step " << step << " counter " << c;
    }
  }
}

TEST(ReplayWindow, CheckDoesNotRecord) {
  ReplayWindow w;
  EXPECT_TRUE(w.check(5));
  EXPECT_TRUE(w.check(5));
  EXPECT_TRUE(w.accept(5));
  EXPECT_FALSE(w.check(5));
  EXPECT_TRUE(w.check(6));
  EXPECT_TRUE(w.check(5 + 2048));
  w.reset();
  EXPECT_TRUE(w.accept(5));
}

TEST(ReplayWindow, ExactEdgeOfTheWindow) {
  ReplayWindow w;
  EXPECT_TRUE(w.accept(10000));
  EXPECT_TRUE(w.accept(10000 - 2047));
  EXPECT_FALSE(w.accept(10000 - 2048));
  EXPECT_FALSE(w.accept(10000 - 2047));
}

}  // namespace
}  // namespace qeli::crypto
