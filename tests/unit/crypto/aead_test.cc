// AEAD known-answer tests: RFC 8439 §2.8.2 (ChaCha20-Poly1305) and round trips.
#include "crypto/aead.h"

#include <gtest/gtest.h>

#include "base/bytes.h"

namespace qeli::crypto {
namespace {

Bytes hex(std::string_view s) { return from_hex(s).value(); }

TEST(Aead, ChaCha20Poly1305Rfc8439Section2_8_2) {
  const Bytes key = hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
  const Bytes nonce = hex("070000004041424344454647");
  const Bytes aad = hex("50515253c0c1c2c3c4c5c6c7");
  const std::string pt =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  const Bytes expect_ct =
      hex("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69"
          "da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad67594"
          "5585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116");
  const Bytes expect_tag = hex("1ae10b594f09e26a7e902ecbd0600691");

  Aead a(AeadAlgorithm::kChaCha20Poly1305, key);
  Bytes buf(pt.begin(), pt.end());
  std::array<std::uint8_t, 16> tag{};
  ASSERT_TRUE(a.seal(std::span<const std::uint8_t, 12>(nonce.data(), 12), aad, buf, tag));
  EXPECT_EQ(to_hex(buf), to_hex(expect_ct));
  EXPECT_EQ(to_hex(tag), to_hex(expect_tag));

  ASSERT_TRUE(a.open(std::span<const std::uint8_t, 12>(nonce.data(), 12), aad, buf, tag));
  EXPECT_EQ(std::string(buf.begin(), buf.end()), pt);
}

TEST(Aead, TamperedTagOrDataOrAadIsRejectedWithoutThrowing) {
  for (auto alg :
       {AeadAlgorithm::kChaCha20Poly1305, AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes256Gcm}) {
    Bytes key(aead_key_size(alg), 0x42);
    Aead a(alg, key);
    std::array<std::uint8_t, 12> nonce{};
    const Bytes aad = {1, 2, 3};
    Bytes data(100, 0x5a);
    std::array<std::uint8_t, 16> tag{};
    ASSERT_TRUE(a.seal(nonce, aad, data, tag));
    const Bytes sealed = data;

    auto bad_tag = tag;
    bad_tag[0] ^= 1;
    data = sealed;
    EXPECT_FALSE(a.open(nonce, aad, data, bad_tag));

    data = sealed;
    data[50] ^= 0x80;
    EXPECT_FALSE(a.open(nonce, aad, data, tag));

    data = sealed;
    const Bytes other_aad = {1, 2, 4};
    EXPECT_FALSE(a.open(nonce, other_aad, data, tag));

    data = sealed;
    EXPECT_TRUE(a.open(nonce, aad, data, tag)) << "the context recovers after failures";
    EXPECT_EQ(data, Bytes(100, 0x5a));
  }
}

TEST(Aead, EmptyPlaintextHasOnlyATag) {
  Bytes key(32, 7);
  Aead a(AeadAlgorithm::kChaCha20Poly1305, key);
  std::array<std::uint8_t, 12> nonce{};
  std::array<std::uint8_t, 16> tag{};
  std::span<std::uint8_t> empty;
  ASSERT_TRUE(a.seal(nonce, {}, empty, tag));
  EXPECT_TRUE(a.open(nonce, {}, empty, tag));
  tag[15] ^= 1;
  EXPECT_FALSE(a.open(nonce, {}, empty, tag));
}

}  // namespace
}  // namespace qeli::crypto
