// GSO chunk frames (our extension): prefix layout, parse limits, in-order reassembly.
#include "wire/gso_chunk.h"

#include <gtest/gtest.h>

#include <random>

namespace qeli::wire {
namespace {

Bytes chunk_plaintext(const GsoChunkHeader& h, ByteSpan data) {
  Bytes p(kGsoChunkPrefix + data.size());
  write_gso_chunk_prefix(h, p.data());
  std::copy(data.begin(), data.end(), p.begin() + kGsoChunkPrefix);
  return p;
}

TEST(GsoChunk, PrefixLayoutIsFixed) {
  GsoChunkHeader h{1, true, 1368, 52, 20, 16, 64776, 16620};
  Bytes data = {0xaa};
  const Bytes p = chunk_plaintext(h, data);
  EXPECT_EQ(to_hex(ByteSpan(p).first(kGsoChunkPrefix)), "c19b410e01010558003400140010fd0840ec");
  auto c = parse_gso_chunk(p);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->header.gso_size, 1368);
  EXPECT_EQ(c->header.total_len, 64776);
  EXPECT_EQ(c->header.offset, 16620);
  EXPECT_TRUE(c->header.needs_csum);
  EXPECT_EQ(c->data.size(), 1U);
}

TEST(GsoChunk, RejectsInconsistentFrames) {
  Bytes data(100, 1);
  GsoChunkHeader ok{1, false, 1000, 40, 20, 16, 200, 0};
  EXPECT_TRUE(parse_gso_chunk(chunk_plaintext(ok, data)));
  auto bad = ok;
  bad.gso_type = 5;
  EXPECT_FALSE(parse_gso_chunk(chunk_plaintext(bad, data)));
  bad = ok;
  bad.total_len = 0;
  EXPECT_FALSE(parse_gso_chunk(chunk_plaintext(bad, data)));
  bad = ok;
  bad.offset = 150;  // 150 + 100 > 200
  EXPECT_FALSE(parse_gso_chunk(chunk_plaintext(bad, data)));
  Bytes p = chunk_plaintext(ok, data);
  p[5] = 2;  // unknown flag bit
  EXPECT_FALSE(parse_gso_chunk(p));
  p = chunk_plaintext(ok, data);
  p[3] = 13;  // wrong body length
  EXPECT_FALSE(parse_gso_chunk(p));
  EXPECT_FALSE(parse_gso_chunk(ByteSpan(chunk_plaintext(ok, data)).first(kGsoChunkPrefix)));
}

TEST(GsoChunk, AssemblerRebuildsInOrderAndRejectsGapsAndRestarts) {
  std::mt19937 rng(1);
  Bytes whole(65000);
  for (auto& b : whole) b = static_cast<std::uint8_t>(rng());
  GsoAssembler a;
  GsoChunkHeader h{1, true, 1400, 40, 20, 16, static_cast<std::uint16_t>(whole.size()), 0};
  std::vector<Bytes> frames;
  for (std::size_t off = 0; off < whole.size(); off += kMaxGsoChunk) {
    h.offset = static_cast<std::uint16_t>(off);
    const std::size_t n = std::min(kMaxGsoChunk, whole.size() - off);
    frames.push_back(chunk_plaintext(h, ByteSpan(whole).subspan(off, n)));
  }
  ASSERT_EQ(frames.size(), 4U);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto r = a.add(*parse_gso_chunk(frames[i]));
    EXPECT_EQ(r, i + 1 == frames.size() ? GsoAssembler::Result::kComplete
                                        : GsoAssembler::Result::kPartial);
  }
  EXPECT_TRUE(std::equal(whole.begin(), whole.end(), a.packet().begin(), a.packet().end()));

  // A gap (chunk 2 missing) is an error, and the next super-packet starts cleanly.
  EXPECT_EQ(a.add(*parse_gso_chunk(frames[0])), GsoAssembler::Result::kPartial);
  EXPECT_EQ(a.add(*parse_gso_chunk(frames[2])), GsoAssembler::Result::kError);
  EXPECT_EQ(a.add(*parse_gso_chunk(frames[1])), GsoAssembler::Result::kError);
  for (std::size_t i = 0; i < frames.size(); ++i) (void)a.add(*parse_gso_chunk(frames[i]));
  EXPECT_EQ(a.packet().size(), whole.size());
}

}  // namespace
}  // namespace qeli::wire
