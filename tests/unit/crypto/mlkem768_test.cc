// ML-KEM-768 against vectors from an independent implementation (@noble/post-quantum,
// tests/vectors/mlkem768.json, made by tools/vectors/mlkem/gen.mjs): key generation from
// d ‖ z, encapsulation with a fixed m, decapsulation, and implicit rejection of a
// tampered ciphertext (FIPS 203 Alg. 16–18).
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/mlkem768.h"
#include "crypto/sha256.h"
#include "support/conformance.h"

namespace qeli::crypto {
namespace {

using test::cases;
using test::hex_field;

TEST(MlKem768, NobleVectorsEveryField) {
  const auto j = test::load_vectors("mlkem768.json");
  test::require_ids(j, "cases",
                    {"mlkem768/cases/00", "mlkem768/cases/01", "mlkem768/cases/02",
                     "mlkem768/cases/03", "mlkem768/cases/04"});
  for (const auto& c : cases(j, "cases", 5)) {
    SCOPED_TRACE(c.value("id", std::string("?")));
    const Bytes seed = hex_field(c, "seed");
    const Bytes ek = hex_field(c, "ek");
    const Bytes m = hex_field(c, "m");
    const Bytes ct = hex_field(c, "ct");
    const Bytes tampered = hex_field(c, "tampered_ct");
    ASSERT_EQ(seed.size(), 64U);
    ASSERT_EQ(ek.size(), kMlKem768PublicKeySize);
    ASSERT_EQ(m.size(), 32U);
    ASSERT_EQ(ct.size(), kMlKem768CiphertextSize);
    ASSERT_EQ(tampered.size(), kMlKem768CiphertextSize);

    const auto kp = mlkem768_generate_derand(std::span<const std::uint8_t, 64>(seed.data(), 64));
    EXPECT_EQ(to_hex(kp.public_key), to_hex(ek));
    EXPECT_EQ(to_hex(sha256(ByteSpan(kp.secret_key->data(), kMlKem768SecretKeySize))),
              c.value("dk_sha256", std::string()));

    const auto enc = mlkem768_encapsulate_derand(
        std::span<const std::uint8_t, kMlKem768PublicKeySize>(ek.data(), ek.size()),
        std::span<const std::uint8_t, 32>(m.data(), 32));
    EXPECT_EQ(to_hex(enc.ciphertext), to_hex(ct));
    EXPECT_EQ(to_hex(enc.shared_secret.span()), c.value("shared_secret", std::string()));

    const Key32 ss = mlkem768_decapsulate(
        *kp.secret_key,
        std::span<const std::uint8_t, kMlKem768CiphertextSize>(ct.data(), ct.size()));
    EXPECT_EQ(to_hex(ss.span()), c.value("shared_secret", std::string()));

    // The tampered ciphertext differs in exactly the one bit the vector names.
    const std::size_t at = c.value("tampered_byte", std::size_t{0});
    ASSERT_LT(at, ct.size());
    Bytes diff = ct;
    diff[at] ^= 0x01;
    EXPECT_EQ(diff, tampered);
    const Key32 rejected = mlkem768_decapsulate(
        *kp.secret_key,
        std::span<const std::uint8_t, kMlKem768CiphertextSize>(tampered.data(), tampered.size()));
    EXPECT_EQ(to_hex(rejected.span()), c.value("rejection_secret", std::string()));
    EXPECT_NE(to_hex(rejected.span()), to_hex(ss.span()));
  }
}

TEST(MlKem768, RandomKeysAgreeAndDifferPerSeed) {
  DeterministicRng rng(42);
  const auto a = mlkem768_generate(rng);
  const auto b = mlkem768_generate(rng);
  EXPECT_NE(to_hex(a.public_key), to_hex(b.public_key));
  const auto enc = mlkem768_encapsulate(a.public_key, rng);
  const Key32 ss = mlkem768_decapsulate(*a.secret_key, enc.ciphertext);
  EXPECT_EQ(to_hex(ss.span()), to_hex(enc.shared_secret.span()));
  // The wrong key decapsulates to the implicit-rejection secret, not the real one.
  const Key32 wrong = mlkem768_decapsulate(*b.secret_key, enc.ciphertext);
  EXPECT_NE(to_hex(wrong.span()), to_hex(enc.shared_secret.span()));
}

}  // namespace
}  // namespace qeli::crypto
