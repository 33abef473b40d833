#include "crypto/chacha20.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "base/bytes.h"
#include "crypto/chacha20_stream.h"

namespace qeli::crypto {
namespace {

std::array<std::uint8_t, 32> counting_key() {
  std::array<std::uint8_t, 32> k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i);
  return k;
}

// RFC 8439 §2.4.2: key 00..1f, nonce 00 00 00 00 00 00 00 4a 00 00 00 00, counter 1.
TEST(ChaCha20, Rfc8439Section242) {
  const auto key = counting_key();
  const std::array<std::uint8_t, 12> nonce{0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const std::string pt =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  Bytes buf(pt.begin(), pt.end());
  ChaCha20 c(key);
  c.xor_in_place(nonce, 1, buf);
  EXPECT_EQ(to_hex(buf),
            "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f"
            "593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc"
            "514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d");
  c.xor_in_place(nonce, 1, buf);  // the inverse is the same call
  EXPECT_EQ(std::string(buf.begin(), buf.end()), pt);
}

// Block counter c starts exactly 64·c bytes into the keystream of counter 0.
TEST(ChaCha20, CounterSkipsWholeBlocks) {
  const auto key = counting_key();
  const std::array<std::uint8_t, 12> nonce{1, 2, 3};
  ChaCha20 c(key);
  Bytes from0(200, 0), from2(200 - 128, 0);
  c.xor_in_place(nonce, 0, from0);
  c.xor_in_place(nonce, 2, from2);
  EXPECT_EQ(to_hex(ByteSpan(from0).subspan(128)), to_hex(from2));
  Bytes empty;
  c.xor_in_place(nonce, 0, empty);  // no-op, no crash
  EXPECT_TRUE(empty.empty());
  // The key survives a move; a new nonce restarts the keystream.
  ChaCha20 moved(std::move(c));
  Bytes again(200, 0);
  moved.xor_in_place(nonce, 0, again);
  EXPECT_EQ(again, from0);
}

// The continuous stream (chacha20_stream.h) against one pass from block 0, cut into calls
// of random sizes: short ones (served from the keystream generated ahead), long ones
// (straight through EVP) and empty ones, in every mix and across the buffer's edges.
TEST(ChaCha20Stream, AnySplitGivesTheOnePassKeystream) {
  const auto key = counting_key();
  const std::array<std::uint8_t, 12> nonce{7, 7, 7};
  std::mt19937_64 gen(8439);
  for (int round = 0; round < 40; ++round) {
    Bytes data(20000 + gen() % 5000);
    for (auto& b : data) b = static_cast<std::uint8_t>(gen());
    Bytes expect = data;
    ChaCha20(key).xor_in_place(nonce, 0, expect);
    ChaCha20Stream s(key, nonce);
    for (std::size_t at = 0; at < data.size();) {
      const std::size_t pick = gen() % 5;
      std::size_t n = pick == 0   ? 0
                      : pick == 1 ? 1 + gen() % 8
                      : pick == 2 ? 200 + gen() % 120  // around the 256-byte buffer
                      : pick == 3 ? gen() % 64
                                  : gen() % 5000;
      n = std::min(n, data.size() - at);
      ASSERT_TRUE(s.apply(std::span<std::uint8_t>(data).subspan(at, n)));
      at += n;
    }
    EXPECT_EQ(data, expect) << round;
    EXPECT_EQ(s.position(), data.size());
  }
}

TEST(ChaCha20Stream, TheLimitHoldsWhateverWasGeneratedAhead) {
  const auto key = counting_key();
  const std::array<std::uint8_t, 12> nonce{};
  ChaCha20Stream s(key, nonce, 100);
  Bytes a(5, 0), b(95, 0), c(1, 0x55), over(96, 0);
  ASSERT_TRUE(s.apply(a));      // 256 bytes generated ahead, 5 used
  EXPECT_FALSE(s.apply(over));  // past the limit: refused, untouched
  EXPECT_EQ(over, Bytes(96, 0));
  ASSERT_TRUE(s.apply(b));   // exactly up to it
  EXPECT_FALSE(s.apply(c));  // nothing more, and the data untouched
  EXPECT_EQ(c[0], 0x55);
  EXPECT_EQ(s.position(), 100U);
  Bytes expect(100, 0);
  ChaCha20(key).xor_in_place(nonce, 0, expect);
  a.insert(a.end(), b.begin(), b.end());
  EXPECT_EQ(a, expect);
}

}  // namespace
}  // namespace qeli::crypto
