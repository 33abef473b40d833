// The data path allocates nothing per record (issue 2; STYLE.md practice 7): AEAD seal and
// open and the nonce permutation, counted at the only door OpenSSL allocates through.
//
// The counting hook (tests/support/counting_allocator.h) is installed by a static
// initialiser, before OpenSSL's first allocation; it is harmless to the other tests here.
#include <openssl/crypto.h>

#include <gtest/gtest.h>

#include "crypto/aead.h"
#include "crypto/chacha20.h"
#include "crypto/nonce_prp.h"
#include "crypto/secret_bytes.h"
#include "support/counting_allocator.h"

namespace qeli::crypto {
namespace {

std::uint64_t allocs() { return test::allocation_count(); }

TEST(NoAllocation, CountingIsInstalledAndSeesAllocations) {
  ASSERT_TRUE(test::openssl_counting_active())
      << "OpenSSL allocated before the counting hook was installed";
  const auto before = allocs();
  void* p = OPENSSL_malloc(16);
  OPENSSL_free(p);
  EXPECT_EQ(allocs(), before + 1);
}

TEST(NoAllocation, AeadSealAndOpenInSteadyState) {
  ASSERT_TRUE(test::openssl_counting_active());
  for (auto alg :
       {AeadAlgorithm::kChaCha20Poly1305, AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes256Gcm}) {
    const std::array<std::uint8_t, 32> key{7};
    Aead a(alg, std::span<const std::uint8_t>(key.data(), aead_key_size(alg)));
    std::array<std::uint8_t, 1400> buf{};
    std::array<std::uint8_t, 13> aad{};
    std::array<std::uint8_t, 12> nonce{};
    std::array<std::uint8_t, 16> tag{};
    ASSERT_TRUE(a.seal(nonce, aad, buf, tag));  // warm-up
    ASSERT_TRUE(a.open(nonce, aad, buf, tag));
    const auto before = allocs();
    for (std::uint8_t i = 1; i < 50; ++i) {
      nonce[0] = i;
      ASSERT_TRUE(a.seal(nonce, aad, buf, tag));
      ASSERT_TRUE(a.open(nonce, aad, buf, tag));
      tag[0] ^= 1;
      ASSERT_FALSE(a.open(nonce, aad, buf, tag));  // failures allocate nothing either
    }
    EXPECT_EQ(allocs() - before, 0U) << "algorithm " << static_cast<int>(alg);
  }
}

TEST(NoAllocation, NoncePermutationInSteadyState) {
  ASSERT_TRUE(test::openssl_counting_active());
  const Key32 key;
  NoncePrp prp(key.span());
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  (void)prp.permute(seed, 0);  // warm-up
  const auto before = allocs();
  for (std::uint64_t c = 1; c < 100; ++c) (void)prp.permute(seed, c);
  EXPECT_EQ(allocs() - before, 0U);
}

TEST(NoAllocation, ChaCha20KeystreamInSteadyState) {
  ASSERT_TRUE(test::openssl_counting_active());
  const std::array<std::uint8_t, 32> key{9};
  ChaCha20 c(key);
  std::array<std::uint8_t, 1400> buf{};
  std::array<std::uint8_t, 12> nonce{};
  c.xor_in_place(nonce, 0, buf);  // warm-up
  const auto before = allocs();
  for (std::uint8_t i = 1; i < 50; ++i) {
    nonce[0] = i;  // a new nonce per datagram, as the UDP obfs seal does
    c.xor_in_place(nonce, 0, buf);
  }
  EXPECT_EQ(allocs(), before);
}

}  // namespace
}  // namespace qeli::crypto
