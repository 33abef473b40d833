// HOTP/TOTP against the RFCs' own vectors (RFC 4226 Appendix D, RFC 6238 Appendix B for
// SHA-1) and Base32 against RFC 4648 §10.
#include <gtest/gtest.h>

#include <string>

#include "crypto/base32.h"
#include "crypto/totp.h"

namespace qeli::crypto {
namespace {

const std::string kRfcSecret = "12345678901234567890";

TEST(Hotp, Rfc4226AppendixD) {
  const std::uint32_t want[] = {755224, 287082, 359152, 969429, 338314,
                                254676, 287922, 162583, 399871, 520489};
  for (std::uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(hotp(as_bytes(kRfcSecret), i), want[i]) << "counter " << i;
  }
}

TEST(Totp, Rfc6238AppendixBSha1EightDigits) {
  const struct {
    std::int64_t t;
    const char* code;
  } cases[] = {{59, "94287082"},         {1111111109, "07081804"}, {1111111111, "14050471"},
               {1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"}};
  for (const auto& c : cases) {
    EXPECT_EQ(totp_code(as_bytes(kRfcSecret), totp_step(c.t), 8), c.code) << c.t;
    // The code matches at its own time, in either neighbouring step, and not beyond.
    EXPECT_EQ(totp_match(as_bytes(kRfcSecret), c.code, c.t, 1, 8), totp_step(c.t));
    EXPECT_EQ(totp_match(as_bytes(kRfcSecret), c.code, c.t + 30, 1, 8), totp_step(c.t));
    EXPECT_EQ(totp_match(as_bytes(kRfcSecret), c.code, c.t - 30, 1, 8), totp_step(c.t));
    EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), c.code, c.t + 60, 1, 8));
    EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), c.code, c.t + 30, 0, 8));
  }
}

TEST(Totp, SixDigitsKeepLeadingZerosAndRefuseOtherInput) {
  // 1111111109 → 07081804 (8 digits): the 6-digit code is the low six, "081804".
  const std::string code = totp_code(as_bytes(kRfcSecret), totp_step(1111111109));
  EXPECT_EQ(code, "081804");
  EXPECT_TRUE(totp_match(as_bytes(kRfcSecret), "081804", 1111111109));
  EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), "81804", 1111111109));    // too short
  EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), "0818040", 1111111109));  // too long
  EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), "08180x", 1111111109));   // not digits
  EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), "081805", 1111111109));   // wrong
  EXPECT_FALSE(totp_match(as_bytes(kRfcSecret), "", 1111111109));
  // Step 0 has no earlier neighbour to look at.
  EXPECT_EQ(totp_match(as_bytes(kRfcSecret), totp_code(as_bytes(kRfcSecret), 0), 5), 0U);
}

TEST(Totp, OtpauthUriEscapesLabelAndCarriesTheParameters) {
  const std::string uri = otpauth_uri("qeli vpn.example", "boss@x", as_bytes(kRfcSecret));
  EXPECT_EQ(uri,
            "otpauth://totp/qeli%20vpn.example:boss%40x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
            "&issuer=qeli%20vpn.example&algorithm=SHA1&digits=6&period=30");
}

TEST(Base32, Rfc4648Section10) {
  const struct {
    const char* plain;
    const char* enc;
  } cases[] = {{"", ""},
               {"f", "MY"},
               {"fo", "MZXQ"},
               {"foo", "MZXW6"},
               {"foob", "MZXW6YQ"},
               {"fooba", "MZXW6YTB"},
               {"foobar", "MZXW6YTBOI"}};
  for (const auto& c : cases) {
    EXPECT_EQ(base32_encode(as_bytes(c.plain)), c.enc) << c.plain;
    const auto back = base32_decode(c.enc);
    ASSERT_TRUE(back) << c.enc;
    EXPECT_EQ(std::string(back->begin(), back->end()), c.plain);
  }
  // What people paste: lower case, groups, the RFC's padding.
  const auto pasted = base32_decode("mzxw 6ytb oi======");
  ASSERT_TRUE(pasted);
  EXPECT_EQ(std::string(pasted->begin(), pasted->end()), "foobar");
  EXPECT_FALSE(base32_decode("MZXW1"));  // '1' is not in the alphabet
  EXPECT_FALSE(base32_decode("MZ=XW"));  // padding inside
  EXPECT_FALSE(base32_decode("MZZ"));    // 15 bits: no encoder ends so
  EXPECT_FALSE(base32_decode("MZ"));     // 'f' and two leftover bits that are not zero,
  EXPECT_TRUE(base32_decode("MY"));      // which "MY" leaves zero
}

}  // namespace
}  // namespace qeli::crypto
