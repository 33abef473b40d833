// X25519 known-answer tests: RFC 7748 §6.1, and low-order points rejected.
#include "crypto/x25519.h"

#include <gtest/gtest.h>

#include "base/bytes.h"

namespace qeli::crypto {
namespace {

std::array<std::uint8_t, 32> hex32(std::string_view s) {
  std::array<std::uint8_t, 32> out{};
  EXPECT_TRUE(from_hex_into(s, out));
  return out;
}

TEST(X25519, Rfc7748Section6_1) {
  const auto alice_priv = hex32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  const auto bob_priv = hex32("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
  const auto alice_pub = x25519_public(alice_priv);
  const auto bob_pub = x25519_public(bob_priv);
  EXPECT_EQ(to_hex(alice_pub), "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  EXPECT_EQ(to_hex(bob_pub), "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  const auto k1 = x25519(alice_priv, bob_pub);
  const auto k2 = x25519(bob_priv, alice_pub);
  ASSERT_TRUE(k1 && k2);
  EXPECT_EQ(to_hex(k1->span()), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  EXPECT_EQ(to_hex(k2->span()), to_hex(k1->span()));
}

TEST(X25519, Rfc7748Section5_2FirstVector) {
  const auto scalar = hex32("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
  const auto u = hex32("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
  const auto out = x25519(scalar, u);
  ASSERT_TRUE(out);
  EXPECT_EQ(to_hex(out->span()),
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
}

TEST(X25519, AllZeroSharedSecretIsRejected) {
  const auto priv = hex32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  // Low-order points: 0, 1, and the order-8 point from RFC 7748 / libsodium's blocklist.
  for (std::string_view p : {"0000000000000000000000000000000000000000000000000000000000000000",
                             "0100000000000000000000000000000000000000000000000000000000000000",
                             "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
                             "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"}) {
    EXPECT_FALSE(x25519(priv, hex32(p)).has_value()) << p;
  }
}

TEST(X25519, GeneratedPairsAgree) {
  DeterministicRng rng(1);
  auto a = x25519_generate(rng);
  auto b = x25519_generate(rng);
  auto s1 = x25519(a.private_key.span(), b.public_key);
  auto s2 = x25519(b.private_key.span(), a.public_key);
  ASSERT_TRUE(s1 && s2);
  EXPECT_EQ(to_hex(s1->span()), to_hex(s2->span()));
}

}  // namespace
}  // namespace qeli::crypto
