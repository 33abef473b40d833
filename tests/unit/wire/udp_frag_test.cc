// Edge cases of the UDP handshake fragments beyond the reference vectors.
#include "wire/udp_frag.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "crypto/random.h"

namespace qeli::wire {
namespace {

using Progress = Reassembler::Progress;

Bytes pattern(std::size_t n, std::uint8_t seed = 1) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + seed);
  return b;
}

Bytes frag(std::uint8_t msg, std::uint8_t idx, std::uint8_t count, ByteSpan chunk) {
  Bytes d(kFragHeaderSize + chunk.size());
  EXPECT_EQ(write_fragment(msg, idx, count, chunk, d), d.size());
  return d;
}

TEST(UdpFrag, ParseLimits) {
  const Bytes c1200 = pattern(1200), c1201 = pattern(1201);
  EXPECT_TRUE(parse_fragment(frag(1, 0, 1, c1200)).ok());
  EXPECT_EQ(parse_fragment(frag(1, 0, 1, c1201)).error(), FragError::kChunkTooLarge);
  EXPECT_EQ(parse_fragment(frag(1, 0, 0, {})).error(), FragError::kZeroCount);
  EXPECT_TRUE(parse_fragment(frag(1, 23, 24, c1200)).ok());
  EXPECT_EQ(parse_fragment(frag(1, 24, 24, {})).error(), FragError::kIndexOutOfRange);
  EXPECT_EQ(parse_fragment(frag(1, 0, 25, {})).error(), FragError::kTooManyFragments);
  const Bytes header_only = frag(2, 0, 1, {});
  auto f = parse_fragment(header_only);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->chunk.empty());
  for (std::size_t n = 0; n < kFragHeaderSize; ++n) {
    EXPECT_EQ(parse_fragment(ByteSpan(header_only).first(n)).error(), FragError::kNotFragment);
  }
}

TEST(UdpFrag, ClassifyEveryKind) {
  EXPECT_EQ(classify_datagram(frag(1, 0, 2, pattern(3))), DatagramKind::kClientHelloFragment);
  EXPECT_EQ(classify_datagram(frag(2, 0, 2, pattern(3))), DatagramKind::kServerFlightFragment);
  EXPECT_EQ(classify_datagram(frag(9, 0, 1, {})), DatagramKind::kUnknownFragment);
  const Bytes data{0x17, 0x03, 0x03, 0x00, 0x26};
  EXPECT_EQ(classify_datagram(data), DatagramKind::kDataRecord);
  const Bytes hello{0x16, 0x03, 0x03, 0x04, 0xb0};
  EXPECT_EQ(classify_datagram(hello), DatagramKind::kHandshakeRecord);
  EXPECT_EQ(classify_datagram(ByteSpan(data).first(4)), DatagramKind::kOther);
  EXPECT_EQ(classify_datagram({}), DatagramKind::kOther);
  EXPECT_FALSE(is_fragment(DatagramKind::kDataRecord));
}

TEST(UdpFrag, FragmentSizes) {
  EXPECT_EQ(fragment_message(1, {}).error(), FragError::kEmptyMessage);
  EXPECT_EQ(fragment_message(1, pattern(10), 0).error(), FragError::kBadChunkLimit);
  EXPECT_EQ(fragment_message(1, pattern(10), kFragMaxChunk + 1).error(), FragError::kBadChunkLimit);
  auto max = fragment_message(2, pattern(kFragMaxMessage));
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->size(), kFragMaxCount);
  for (const Bytes& f : *max) EXPECT_EQ(f.size(), kFragHeaderSize + kFragMaxChunk);
  // A smaller chunk limit (a narrower path) gives more, smaller fragments.
  auto small = fragment_message(1, pattern(1300), 500);
  ASSERT_TRUE(small.ok());
  ASSERT_EQ(small->size(), 3U);
  EXPECT_EQ((*small)[2].size(), kFragHeaderSize + 300);
  EXPECT_EQ(fragment_message(1, pattern(25 * 100), 100).error(), FragError::kMessageTooLarge);
}

TEST(UdpFrag, ReassembleAnyPermutation) {
  const Bytes msg = pattern(3000);
  auto frags = fragment_message(1, msg, 700).value();  // 5 fragments
  std::vector<std::size_t> order(frags.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  int perms = 0;
  do {
    Reassembler re(1);
    for (std::size_t k = 0; k < order.size(); ++k) {
      auto p = re.add(frags[order[k]], Instant{});
      ASSERT_TRUE(p.ok());
      ASSERT_EQ(*p, k + 1 == order.size() ? Progress::kComplete : Progress::kPartial);
    }
    ASSERT_EQ(Bytes(re.message().begin(), re.message().end()), msg);
    ++perms;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(perms, 120);
}

TEST(UdpFrag, ConflictingFragmentRestarts) {
  Reassembler re(2);
  EXPECT_EQ(*re.add(frag(2, 0, 2, pattern(10, 1)), Instant{}), Progress::kPartial);
  // Same index, other bytes: the partial message is dropped, the new copy kept.
  EXPECT_EQ(re.add(frag(2, 0, 2, pattern(10, 2)), Instant{}).error(), FragError::kChunkMismatch);
  EXPECT_EQ(*re.add(frag(2, 1, 2, pattern(4, 3)), Instant{}), Progress::kComplete);
  Bytes want = pattern(10, 2);
  append(want, pattern(4, 3));
  EXPECT_EQ(Bytes(re.message().begin(), re.message().end()), want);

  // Another count: likewise.
  EXPECT_EQ(*re.add(frag(2, 0, 3, pattern(5)), Instant{}), Progress::kPartial);
  EXPECT_EQ(re.add(frag(2, 1, 2, pattern(5, 9)), Instant{}).error(), FragError::kCountMismatch);
  EXPECT_EQ(*re.add(frag(2, 0, 2, pattern(5)), Instant{}), Progress::kComplete);

  // Wrong message id: refused, partial state untouched.
  EXPECT_EQ(*re.add(frag(2, 0, 2, pattern(5)), Instant{}), Progress::kPartial);
  EXPECT_EQ(re.add(frag(1, 1, 2, pattern(5)), Instant{}).error(), FragError::kWrongMessage);
  EXPECT_EQ(*re.add(frag(2, 1, 2, pattern(5)), Instant{}), Progress::kComplete);
}

TEST(UdpFrag, TimeoutDiscardsPartial) {
  const Instant t0{};
  Reassembler re(1);
  EXPECT_FALSE(re.deadline().has_value());
  EXPECT_EQ(*re.add(frag(1, 0, 2, pattern(5)), t0), Progress::kPartial);
  ASSERT_TRUE(re.deadline().has_value());
  EXPECT_EQ(*re.deadline(), t0 + kFragReassemblyTimeout);
  EXPECT_FALSE(re.expire(t0 + kFragReassemblyTimeout - Millis(1)));
  // Just before the timeout the message still completes ...
  EXPECT_EQ(*re.add(frag(1, 1, 2, pattern(5)), t0 + Seconds(9)), Progress::kComplete);
  // ... at the timeout the old half is gone and the late fragment starts a new message.
  EXPECT_EQ(*re.add(frag(1, 0, 2, pattern(5)), t0), Progress::kPartial);
  EXPECT_EQ(*re.add(frag(1, 1, 2, pattern(5)), t0 + kFragReassemblyTimeout), Progress::kPartial);
  EXPECT_TRUE(re.expire(t0 + 2 * kFragReassemblyTimeout));
  EXPECT_EQ(re.held_bytes(), 0U);
  EXPECT_FALSE(re.deadline().has_value());
}

TEST(UdpFrag, MemoryBound) {
  Reassembler re(1, 2000);
  EXPECT_EQ(*re.add(frag(1, 0, 24, pattern(1200)), Instant{}), Progress::kPartial);
  EXPECT_EQ(re.held_bytes(), 1200U);
  EXPECT_EQ(re.add(frag(1, 1, 24, pattern(1200)), Instant{}).error(), FragError::kMessageTooLarge);
  EXPECT_EQ(re.held_bytes(), 0U);
  // The default bound: 24 full chunks at the accept limit fit, never more.
  Reassembler big(2);
  for (std::uint8_t i = 0; i < 24; ++i) {
    auto p = big.add(frag(2, i, 24, pattern(1200, i)), Instant{});
    ASSERT_TRUE(p.ok());
    EXPECT_LE(big.held_bytes(), kFragMaxCount * kFragMaxChunkAccept);
  }
  EXPECT_EQ(big.message().size(), kFragMaxCount * kFragMaxChunkAccept);
}

TEST(UdpFrag, DuplicatesDoNotGrowMemory) {
  Reassembler re(1);
  const Bytes f = frag(1, 0, 2, pattern(1000));
  EXPECT_EQ(*re.add(f, Instant{}), Progress::kPartial);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(*re.add(f, Instant{}), Progress::kDuplicate);
  EXPECT_EQ(re.held_bytes(), 1000U);
}

TEST(UdpFrag, MtuProbeRoundTrip) {
  crypto::DeterministicRng rng(5);
  const Bytes probe = build_mtu_probe({0xbeef, 1400}, 1372, rng);
  EXPECT_EQ(probe.size(), 1372U);
  EXPECT_EQ(classify_datagram(probe), DatagramKind::kMtuProbe);
  EXPECT_EQ(to_hex(ByteSpan(probe).first(10)), "f09b71040001efbe7805");
  auto p = parse_mtu_probe(probe);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->is_ack);
  EXPECT_EQ(p->probe.id, 0xbeef);
  EXPECT_EQ(p->probe.outer_size, 1400);
  // Probes larger than the chunk accept limit are fine: they are never reassembled.
  EXPECT_TRUE(parse_mtu_probe(build_mtu_probe({1, 9000}, 8900, rng)).ok());
  EXPECT_EQ(build_mtu_probe({1, 2}, 0, rng).size(), 10U);

  const Bytes ack = build_mtu_probe_ack(p->probe);
  EXPECT_EQ(to_hex(ack), "f09b71050001efbe7805");
  auto a = parse_mtu_probe(ack);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->is_ack);
  EXPECT_EQ(a->probe.outer_size, 1400);

  EXPECT_EQ(parse_mtu_probe(ByteSpan(ack).first(9)).error(), FragError::kBadProbe);
  EXPECT_EQ(parse_mtu_probe(frag(6, 0, 1, pattern(4))).error(), FragError::kBadProbe);
  EXPECT_EQ(parse_mtu_probe(pattern(12)).error(), FragError::kNotFragment);
}

TEST(UdpFrag, JunkLengthClamped) {
  crypto::DeterministicRng rng(9);
  EXPECT_EQ(build_junk(0, rng).size(), kFragHeaderSize + 1);
  EXPECT_EQ(build_junk(40, rng).size(), kFragHeaderSize + 40);
  EXPECT_EQ(build_junk(1400, rng).size(), kFragHeaderSize + kFragMaxChunk);
  EXPECT_EQ(classify_datagram(build_junk(300, rng)), DatagramKind::kJunk);
}

}  // namespace
}  // namespace qeli::wire
