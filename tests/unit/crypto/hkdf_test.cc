// HKDF-SHA256 known-answer tests: RFC 5869 Appendix A.1 and A.3.
#include "crypto/hkdf.h"

#include <gtest/gtest.h>

#include "base/bytes.h"

namespace qeli::crypto {
namespace {

Bytes hex(std::string_view s) { return from_hex(s).value(); }

TEST(Hkdf, Rfc5869A1) {
  const Bytes ikm(22, 0x0b);
  const Bytes salt = hex("000102030405060708090a0b0c");
  const Bytes info = hex("f0f1f2f3f4f5f6f7f8f9");
  const Key32 prk = hkdf_extract(salt, ikm);
  EXPECT_EQ(to_hex(prk.span()), "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
  Bytes okm(42);
  ASSERT_TRUE(hkdf_expand(prk.span(), info, okm));
  EXPECT_EQ(to_hex(okm),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST(Hkdf, Rfc5869A3EmptySaltAndInfo) {
  const Bytes ikm(22, 0x0b);
  const Key32 prk = hkdf_extract({}, ikm);
  EXPECT_EQ(to_hex(prk.span()), "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04");
  Bytes okm(42);
  ASSERT_TRUE(hkdf(Bytes{}, ikm, Bytes{}, okm));
  EXPECT_EQ(to_hex(okm),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

TEST(Hkdf, ExpandRejectsBadLengths) {
  const Key32 prk;
  Bytes too_long(255 * 32 + 1);
  EXPECT_FALSE(hkdf_expand(prk.span(), {}, too_long));
  std::span<std::uint8_t> empty;
  EXPECT_FALSE(hkdf_expand(prk.span(), {}, empty));
  Bytes max(255 * 32);
  EXPECT_TRUE(hkdf_expand(prk.span(), {}, max));
}

TEST(Hkdf, ExpandLabelRejectsOversizedLabel) {
  const Key32 secret;
  Bytes out(32);
  EXPECT_FALSE(hkdf_expand_label(secret.span(), std::string(250, 'a'), {}, out));
  EXPECT_TRUE(hkdf_expand_label(secret.span(), std::string(249, 'a'), {}, out));
}

}  // namespace
}  // namespace qeli::crypto
