#include "tunio/checksum.h"

#include <gtest/gtest.h>

#include <random>

#include "fakes/packet_builder.h"

namespace qeli::tunio {
namespace {

// The fast sum against the one-word-at-a-time reference, every length 0..300 and random
// contents (odd lengths exercise the padded last byte).
TEST(Checksum, MatchesReferenceForAllLengths) {
  std::mt19937 rng(7);
  for (std::size_t len = 0; len <= 300; ++len) {
    std::vector<std::uint8_t> d(len);
    for (auto& b : d) b = static_cast<std::uint8_t>(rng());
    EXPECT_EQ(checksum_fold(checksum_add(d)), test::ref_fold(test::ref_sum(d.data(), len)))
        << "len " << len;
    EXPECT_EQ(checksum_fold(checksum_add(d, 0x1234)),
              test::ref_fold(test::ref_sum(d.data(), len, 0x1234)));
  }
}

TEST(Checksum, Rfc1071Example) {
  // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
  const std::uint8_t d[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(checksum_fold(checksum_add(d)), 0xddf2);
}

TEST(Checksum, AllOnesDoesNotOverflow) {
  std::vector<std::uint8_t> d(65535, 0xff);
  EXPECT_EQ(checksum_fold(checksum_add(d)), test::ref_fold(test::ref_sum(d.data(), d.size())));
}

TEST(Checksum, PseudoHeaderMatchesReference) {
  auto p4 = test::udp4(100);
  EXPECT_EQ(checksum_fold(pseudo_header_sum(ByteSpan(p4).subspan(12, 4),
                                            ByteSpan(p4).subspan(16, 4), 17, 108)),
            test::ref_pseudo(p4.data(), 17, 108));
  auto p6 = test::tcp6(1, 100);
  EXPECT_EQ(checksum_fold(pseudo_header_sum(ByteSpan(p6).subspan(8, 16),
                                            ByteSpan(p6).subspan(24, 16), 6, 70000)),
            test::ref_pseudo(p6.data(), 6, 70000));
}

// Checklist 3: completing a NEEDS_CSUM checksum gives the independently computed full
// checksum; the packet then verifies (sum == 0xFFFF).
TEST(Checksum, CompletesPartialUdp4AndTcp6) {
  for (bool v6 : {false, true}) {
    test::PacketSpec s;
    s.proto = v6 ? 6 : 17;
    s.payload = 100;
    if (v6) s = test::v6(s);
    auto full = test::build_packet(s);
    s.partial_csum = true;
    auto partial = test::build_packet(s);
    ASSERT_NE(full, partial);
    const std::size_t iph = v6 ? 40 : 20;
    ASSERT_TRUE(complete_partial_checksum(partial, iph, v6 ? 16 : 6, !v6));
    EXPECT_EQ(partial, full);
    EXPECT_TRUE(test::ref_checksums_ok(partial));
    EXPECT_TRUE(l4_checksum_ok(partial, iph, v6 ? kIpProtoTcp : kIpProtoUdp));
  }
}

TEST(Checksum, CompletionRefusesFieldOutsidePacket) {
  auto p = test::udp4(4);
  const auto before = p;
  EXPECT_FALSE(complete_partial_checksum(p, 20, 11, true));  // field at 31..32, len 32
  EXPECT_FALSE(complete_partial_checksum(p, 40, 0, true));
  EXPECT_EQ(p, before);
}

// RFC 768: a computed UDP checksum of 0 is sent as 0xFFFF.
TEST(Checksum, UdpZeroBecomesFfff) {
  // Search payload seeds for one whose checksum comes out as 0 (~sum == 0).
  bool found = false;
  for (int seed = 0; seed < 65536 && !found; ++seed) {
    auto p = test::udp4(2, 1, 0);
    p[28] = static_cast<std::uint8_t>(seed >> 8);
    p[29] = static_cast<std::uint8_t>(seed);
    test::wr16(&p[26], 0);
    const std::uint32_t l4 = static_cast<std::uint32_t>(p.size() - 20);
    const auto s = test::ref_fold(test::ref_sum(&p[20], l4, test::ref_pseudo(p.data(), 17, l4)));
    if (static_cast<std::uint16_t>(~s) != 0) continue;
    found = true;
    write_l4_checksum(p, 20, kIpProtoUdp);
    EXPECT_EQ(test::rd16(&p[26]), 0xffff);
    EXPECT_TRUE(l4_checksum_ok(p, 20, kIpProtoUdp));
  }
  EXPECT_TRUE(found);
}

TEST(Checksum, DetectsCorruption) {
  auto p = test::tcp4(1, 100);
  EXPECT_TRUE(l4_checksum_ok(p, 20, kIpProtoTcp));
  EXPECT_TRUE(ipv4_header_checksum_ok(p.data(), 20));
  p[60] ^= 1;
  EXPECT_FALSE(l4_checksum_ok(p, 20, kIpProtoTcp));
  p[60] ^= 1;
  p[8] ^= 1;  // TTL
  EXPECT_FALSE(ipv4_header_checksum_ok(p.data(), 20));
}

}  // namespace
}  // namespace qeli::tunio
