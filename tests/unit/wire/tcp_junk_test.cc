// AWG junk records on TCP (reference §3.7): the plan's gate and clamps, the record
// layout, and the reader consuming exactly `count` records from any split.
#include "wire/tcp_junk.h"

#include <gtest/gtest.h>

namespace qeli::wire {
namespace {

TEST(TcpJunk, PlanGatesAndClampsLike0716) {
  EXPECT_EQ(JunkPlan::from_config(false, 5, 40, 300).count, 0U);
  EXPECT_EQ(JunkPlan::from_config(true, 500, 40, 300).count, 128U);
  const auto p = JunkPlan::from_config(true, 3, 2000, 5000);
  EXPECT_EQ(p.max_len, 1400);
  EXPECT_EQ(p.min_len, 1400);
  const auto q = JunkPlan::from_config(true, 3, 50, 60);
  crypto::DeterministicRng rng(1);
  for (int i = 0; i < 200; ++i) {
    const auto n = q.pick_len(rng);
    EXPECT_GE(n, 50U);
    EXPECT_LE(n, 60U);
  }
}

TEST(TcpJunk, RecordsAreLengthPrefixedAndTheReaderStopsAfterCount) {
  crypto::DeterministicRng rng(2);
  const JunkPlan plan = JunkPlan::from_config(true, 4, 1, 300);
  Bytes junk = build_tcp_junk(plan, rng);
  std::size_t off = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t len = (std::size_t{junk[off]} << 8) | junk[off + 1];
    EXPECT_GE(len, 1U);
    EXPECT_LE(len, 300U);
    off += 2 + len;
  }
  EXPECT_EQ(off, junk.size());
  const Bytes tail{1, 2, 3};
  append(junk, tail);
  // Any split: byte by byte, and in odd pieces.
  for (std::size_t step : {1U, 7U, 1000U}) {
    TcpJunkReader r(4);
    std::size_t used = 0;
    for (std::size_t at = 0; at < junk.size(); at += step) {
      const ByteSpan piece = ByteSpan(junk).subspan(at, std::min(step, junk.size() - at));
      const std::size_t u = r.feed(piece);
      used += u;
      if (u < piece.size()) break;
    }
    EXPECT_TRUE(r.done());
    EXPECT_EQ(used, junk.size() - tail.size()) << step;
  }
}

TEST(TcpJunk, AnOverlongRecordIsAnError) {
  TcpJunkReader r(2);
  const Bytes bad{0x05, 0x79};  // 1401
  r.feed(bad);
  EXPECT_TRUE(r.error());
  EXPECT_FALSE(r.done());
  EXPECT_EQ(r.feed(bad), 0U);
  TcpJunkReader ok(1);
  const Bytes max = [] {
    Bytes b{0x05, 0x78};
    b.resize(2 + 1400);
    return b;
  }();
  EXPECT_EQ(ok.feed(max), max.size());
  EXPECT_TRUE(ok.done());
}

}  // namespace
}  // namespace qeli::wire
