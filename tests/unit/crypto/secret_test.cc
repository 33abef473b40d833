#include <gtest/gtest.h>

#include <set>

#include "base/bytes.h"
#include "crypto/ct.h"
#include "crypto/nonce_prp.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "crypto/sha256.h"

namespace qeli::crypto {
namespace {

TEST(ConstantTime, Equality) {
  const Bytes a = {1, 2, 3};
  const Bytes b = {1, 2, 3};
  const Bytes c = {1, 2, 4};
  const Bytes d = {1, 2};
  EXPECT_TRUE(ct_equal(a, b));
  EXPECT_FALSE(ct_equal(a, c));
  EXPECT_FALSE(ct_equal(a, d));
  EXPECT_TRUE(ct_equal(Bytes{}, Bytes{}));
  EXPECT_TRUE(ct_is_zero(Bytes(32, 0)));
  Bytes z(32, 0);
  z[31] = 0x80;
  EXPECT_FALSE(ct_is_zero(z));
}

TEST(SecretBytes, MoveWipesTheSource) {
  SecretBytes<8> a;
  for (std::size_t i = 0; i < 8; ++i) a[i] = static_cast<std::uint8_t>(i + 1);
  SecretBytes<8> b(std::move(a));
  EXPECT_TRUE(ct_is_zero(a.span()));  // NOLINT(bugprone-use-after-move): the point
  EXPECT_EQ(b[7], 8);
  SecretBytes<8> c = b.clone();
  EXPECT_EQ(to_hex(c.span()), to_hex(b.span()));
}

TEST(Sha256, Fips180KnownAnswers) {
  EXPECT_EQ(to_hex(sha256(as_bytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256(as_bytes(""))),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 h;
  h.update(as_bytes("a"));
  const auto mid = h.digest();
  h.update(as_bytes("bc"));
  EXPECT_EQ(to_hex(mid), to_hex(sha256(as_bytes("a"))));
  EXPECT_EQ(to_hex(h.digest()), to_hex(sha256(as_bytes("abc"))));
}

TEST(Hmac, Rfc4231TestCase2) {
  EXPECT_EQ(to_hex(hmac_sha256(as_bytes("Jefe"), as_bytes("what do ya want for nothing?"))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(NoncePrp, IsAPermutationOnSampledBlocks) {
  const Key32 key;
  NoncePrp prp(key.span());
  std::set<std::string> seen;
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  for (std::uint64_t c = 0; c < 4096; ++c) seen.insert(to_hex(prp.permute(seed, c)));
  EXPECT_EQ(seen.size(), 4096U);
}

TEST(DeterministicRng, IsReproducibleAndSeedDependent) {
  DeterministicRng a(7), b(7), c(8);
  Bytes x(64), y(64), z(64);
  a.fill(x);
  b.fill(y);
  c.fill(z);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  for (int i = 0; i < 1000; ++i) {
    const auto v = a.uniform(10, 20);
    EXPECT_GE(v, 10U);
    EXPECT_LE(v, 20U);
  }
}

}  // namespace
}  // namespace qeli::crypto
