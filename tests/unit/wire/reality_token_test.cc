// The REALITY session_id token (reference §4.1): seal/open round trip under the same
// shared secret, tampering and wrong keys, the window arithmetic at its edges, and a
// hand-computed vector (HKDF + ChaCha20-Poly1305 of RFC 8439, fixed inputs).
#include "wire/reality_token.h"

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/aead.h"
#include "crypto/hkdf.h"
#include "crypto/random.h"
#include "crypto/x25519.h"

namespace qeli::wire {
namespace {

TEST(RealityToken, ClientAndServerDeriveTheSameKeyFromEitherSide) {
  crypto::DeterministicRng rng(3);
  const auto identity = crypto::x25519_generate(rng);
  const auto eph = crypto::x25519_generate(rng);
  const auto client = crypto::x25519(eph.private_key.span(), identity.public_key);
  const auto server = crypto::x25519(identity.private_key.span(), eph.public_key);
  ASSERT_TRUE(client && server);
  const RealityShortId id{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  const RealityToken t = seal_reality_token(client->span(), id, 1785834753);
  const auto c = open_reality_token(server->span(), t);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->short_id, id);
  EXPECT_EQ(c->unix_secs, 1785834753U);
  // Any flipped bit, or another key: nothing opens.
  for (std::size_t i = 0; i < t.size(); ++i) {
    RealityToken bad = t;
    bad[i] ^= 0x01;
    EXPECT_FALSE(open_reality_token(server->span(), bad)) << i;
  }
  const auto other = crypto::x25519_generate(rng);
  const auto wrong = crypto::x25519(other.private_key.span(), eph.public_key);
  EXPECT_FALSE(open_reality_token(wrong->span(), t));
}

TEST(RealityToken, LayoutIsShortIdThenLittleEndianSecondsUnderHkdfKeyAndNonce) {
  // Recompute the token by hand from its definition.
  std::array<std::uint8_t, 32> shared{};
  for (std::size_t i = 0; i < shared.size(); ++i) shared[i] = static_cast<std::uint8_t>(i);
  const RealityShortId id{0xaa, 0xbb, 0, 0, 0, 0, 0, 0};
  const std::uint64_t t = 0x0102030405060708ULL;
  const auto prk = crypto::hkdf_extract({}, shared);
  std::array<std::uint8_t, 44> okm{};
  ASSERT_TRUE(crypto::hkdf_expand(prk.span(), as_bytes("qeli-reality-sid-v1"), okm));
  std::array<std::uint8_t, 32> expect{0xaa, 0xbb, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1};
  crypto::Aead aead(crypto::AeadAlgorithm::kChaCha20Poly1305, std::span(okm).first(32));
  ASSERT_TRUE(aead.seal(std::span<const std::uint8_t, 12>(okm.data() + 32, 12), {},
                        std::span(expect).first(16),
                        std::span<std::uint8_t, 16>(expect.data() + 16, 16)));
  EXPECT_EQ(seal_reality_token(shared, id, t), expect);
}

TEST(RealityToken, WindowIsPlusMinus120SecondsInclusive) {
  const std::uint64_t now = 1'800'000'000;
  EXPECT_TRUE(within_window(now, now));
  EXPECT_TRUE(within_window(now, now - 120));
  EXPECT_TRUE(within_window(now, now + 120));
  EXPECT_FALSE(within_window(now, now - 121));
  EXPECT_FALSE(within_window(now, now + 121));
  EXPECT_FALSE(within_window(now, 0));
  EXPECT_FALSE(within_window(0, ~std::uint64_t{0}));  // no overflow
  EXPECT_FALSE(within_window(~std::uint64_t{0}, 0));
}

}  // namespace
}  // namespace qeli::wire
