// X25519 known answers beyond §6.1: RFC 7748 §5.2's second vector (whose u-coordinate has
// its top bit set, which X25519 must ignore) and the iterated test after 1 and 1,000
// iterations (the 1,000,000-iteration value is too slow for CI and is not run).
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/x25519.h"

namespace qeli::crypto {
namespace {

std::array<std::uint8_t, 32> hex32(std::string_view s) {
  std::array<std::uint8_t, 32> out{};
  EXPECT_TRUE(from_hex_into(s, out)) << s;
  return out;
}

TEST(X25519Kat, Rfc7748Section5_2SecondVector) {
  const auto scalar = hex32("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d");
  const auto u = hex32("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493");
  const auto out = x25519(scalar, u);
  ASSERT_TRUE(out);
  EXPECT_EQ(to_hex(out->span()),
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");

  // RFC 7748 §5: the top bit of u is masked, so clearing it changes nothing.
  auto u_masked = u;
  u_masked[31] &= 0x7f;
  const auto out2 = x25519(scalar, u_masked);
  ASSERT_TRUE(out2);
  EXPECT_EQ(to_hex(out2->span()), to_hex(out->span()));
}

// RFC 7748 §5.2: k = u = 9; repeat { k, u = X25519(k, u), k }.
std::string iterate(int n) {
  std::array<std::uint8_t, 32> k{};
  k[0] = 9;
  std::array<std::uint8_t, 32> u = k;
  for (int i = 0; i < n; ++i) {
    const auto r = x25519(k, u);
    if (!r) {
      ADD_FAILURE() << "all-zero output at iteration " << i;
      return {};
    }
    u = k;
    std::copy(r->span().begin(), r->span().end(), k.begin());
  }
  return to_hex(k);
}

TEST(X25519Kat, Rfc7748Section5_2IteratedOnce) {
  EXPECT_EQ(iterate(1), "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
}

TEST(X25519Kat, Rfc7748Section5_2Iterated1000Times) {
  EXPECT_EQ(iterate(1000), "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
}

}  // namespace
}  // namespace qeli::crypto
