// AEAD known answers beyond RFC 8439 §2.8.2: the RFC 8439 Appendix A.5 decryption vector
// and AES-GCM test cases 2, 3, 4 (AES-128) and 14, 15, 16 (AES-256) of the GCM
// specification (McGrew & Viega, "The Galois/Counter Mode of Operation", Appendix B;
// the same cases appear in NIST SP 800-38D's validation examples).
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "base/bytes.h"
#include "crypto/aead.h"

namespace qeli::crypto {
namespace {

Bytes hex(std::string_view s) {
  auto b = from_hex(s);
  EXPECT_TRUE(b.has_value()) << "bad hex in test: " << s;
  return b.value_or(Bytes{});
}

std::span<const std::uint8_t, kAeadNonceSize> nonce12(const Bytes& b) {
  EXPECT_EQ(b.size(), kAeadNonceSize);
  return std::span<const std::uint8_t, kAeadNonceSize>(b.data(), kAeadNonceSize);
}

std::span<const std::uint8_t, kAeadTagSize> tag16(const Bytes& b) {
  EXPECT_EQ(b.size(), kAeadTagSize);
  return std::span<const std::uint8_t, kAeadTagSize>(b.data(), kAeadTagSize);
}

TEST(AeadKat, ChaCha20Poly1305Rfc8439AppendixA5Decryption) {
  const Bytes key = hex("1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0");
  const Bytes nonce = hex("000000000102030405060708");
  const Bytes aad = hex("f33388860000000000004e91");
  const Bytes tag = hex("eead9d67890cbb22392336fea1851f38");
  const Bytes ct = hex(
      "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb24c6cfc18755d43eea09ee94e382d"
      "26b0bdb7b73c321b0100d4f03b7f355894cf332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1"
      "ff37c8559797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4b9166c767b804d46a59b"
      "5216cde7a4e99040c5a40433225ee282a1b0a06c523eaf4534d7f83fa1155b0047718cbc546a0d072b04b3564eea"
      "1b422273f548271a0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a1049e617d91d36"
      "1094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29a6ad5cb4022b02709b");
  ASSERT_EQ(ct.size(), 265U);
  // The plaintext is the Internet-Draft boilerplate, ending in a UTF-8 quoted
  // "/“work in progress./”" (U+201C, U+201D).
  const std::string expect_pt =
      "Internet-Drafts are draft documents valid for a maximum of six months and may be "
      "updated, replaced, or obsoleted by other documents at any time. It is inappropriate to "
      "use Internet-Drafts as reference material or to cite them other than as "
      "/\xe2\x80\x9cwork in progress./\xe2\x80\x9d";
  ASSERT_EQ(expect_pt.size(), ct.size());

  Aead a(AeadAlgorithm::kChaCha20Poly1305, key);
  Bytes buf = ct;
  ASSERT_TRUE(a.open(nonce12(nonce), aad, buf, tag16(tag)));
  EXPECT_EQ(std::string(buf.begin(), buf.end()), expect_pt);

  // And the other direction: sealing the plaintext gives the RFC's ciphertext and tag.
  std::array<std::uint8_t, kAeadTagSize> got_tag{};
  ASSERT_TRUE(a.seal(nonce12(nonce), aad, buf, got_tag));
  EXPECT_EQ(to_hex(buf), to_hex(ct));
  EXPECT_EQ(to_hex(got_tag), to_hex(tag));

  // A one-bit change anywhere in the received message is refused.
  Bytes bad_ct = ct;
  bad_ct[264] ^= 0x01;
  EXPECT_FALSE(a.open(nonce12(nonce), aad, bad_ct, tag16(tag)));
  Bytes bad_aad = aad;
  bad_aad[11] ^= 0x01;
  buf = ct;
  EXPECT_FALSE(a.open(nonce12(nonce), bad_aad, buf, tag16(tag)));
  Bytes bad_nonce = nonce;
  bad_nonce[0] ^= 0x01;
  buf = ct;
  EXPECT_FALSE(a.open(nonce12(bad_nonce), aad, buf, tag16(tag)));
}

struct GcmCase {
  const char* name;
  AeadAlgorithm alg;
  const char* key;
  const char* iv;
  const char* pt;
  const char* aad;
  const char* ct;
  const char* tag;
};

// Test case 3's 64-byte plaintext; case 4 uses its first 60 bytes with 20 bytes of AAD.
#define QELI_GCM_P64                                                                             \
  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6" \
  "b525b16aedf5aa0de657ba637b391aafd255"
#define QELI_GCM_P60                                                                             \
  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6" \
  "b525b16aedf5aa0de657ba637b39"
#define QELI_GCM_K128 "feffe9928665731c6d6a8f9467308308"
#define QELI_GCM_IV "cafebabefacedbaddecaf888"
#define QELI_GCM_AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"

const GcmCase kGcmCases[] = {
    {"TestCase2", AeadAlgorithm::kAes128Gcm, "00000000000000000000000000000000",
     "000000000000000000000000", "00000000000000000000000000000000", "",
     "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"},
    {"TestCase3", AeadAlgorithm::kAes128Gcm, QELI_GCM_K128, QELI_GCM_IV, QELI_GCM_P64, "",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac"
     "84aa051ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {"TestCase4", AeadAlgorithm::kAes128Gcm, QELI_GCM_K128, QELI_GCM_IV, QELI_GCM_P60, QELI_GCM_AAD,
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac"
     "84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {"TestCase14", AeadAlgorithm::kAes256Gcm,
     "0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
     "00000000000000000000000000000000", "", "cea7403d4d606b6e074ec5d3baf39d18",
     "d0d1c8a799996bf0265b98b5d48ab919"},
    {"TestCase15", AeadAlgorithm::kAes256Gcm, QELI_GCM_K128 QELI_GCM_K128, QELI_GCM_IV,
     QELI_GCM_P64, "",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056"
     "828838c5f61e6393ba7a0abcc9f662898015ad",
     "b094dac5d93471bdec1a502270e3cc6c"},
    {"TestCase16", AeadAlgorithm::kAes256Gcm, QELI_GCM_K128 QELI_GCM_K128, QELI_GCM_IV,
     QELI_GCM_P60, QELI_GCM_AAD,
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056"
     "828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

// Named in test output instead of a byte dump.
void PrintTo(const GcmCase& c, std::ostream* os) { *os << c.name; }

class GcmSpec : public ::testing::TestWithParam<GcmCase> {};

TEST_P(GcmSpec, SealAndOpenMatchTheSpecification) {
  const GcmCase& c = GetParam();
  const Bytes key = hex(c.key);
  const Bytes iv = hex(c.iv);
  const Bytes pt = hex(c.pt);
  const Bytes aad = hex(c.aad);
  const Bytes expect_tag = hex(c.tag);
  ASSERT_EQ(key.size(), aead_key_size(c.alg));

  Aead a(c.alg, key);
  Bytes buf = pt;
  std::array<std::uint8_t, kAeadTagSize> tag{};
  ASSERT_TRUE(a.seal(nonce12(iv), aad, buf, tag));
  EXPECT_EQ(to_hex(buf), c.ct);
  EXPECT_EQ(to_hex(tag), c.tag);

  ASSERT_TRUE(a.open(nonce12(iv), aad, buf, tag16(expect_tag)));
  EXPECT_EQ(to_hex(buf), to_hex(pt));

  auto bad = tag;
  bad[15] ^= 0x80;
  buf = hex(c.ct);
  EXPECT_FALSE(a.open(nonce12(iv), aad, buf, bad));
}

INSTANTIATE_TEST_SUITE_P(McGrewViega, GcmSpec, ::testing::ValuesIn(kGcmCases),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

}  // namespace
}  // namespace qeli::crypto
