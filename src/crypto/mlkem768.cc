#include "crypto/mlkem768.h"

#include <cstdlib>

extern "C" {
#include "api.h"
int PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand(uint8_t* pk, uint8_t* sk,
                                                     const uint8_t* coins);
int PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand(uint8_t* ct, uint8_t* ss, const uint8_t* pk,
                                                 const uint8_t* coins);

// PQClean's randombytes(), backed by OpenSSL's CSPRNG. Only the non-derand entry points
// would call it; qeli always draws the coins itself and calls the derand ones.
int PQCLEAN_randombytes(uint8_t* output, size_t n) {
  qeli::crypto::random_bytes({output, n});
  return 0;
}
}

namespace qeli::crypto {

static_assert(PQCLEAN_MLKEM768_CLEAN_CRYPTO_PUBLICKEYBYTES == kMlKem768PublicKeySize);
static_assert(PQCLEAN_MLKEM768_CLEAN_CRYPTO_SECRETKEYBYTES == kMlKem768SecretKeySize);
static_assert(PQCLEAN_MLKEM768_CLEAN_CRYPTO_CIPHERTEXTBYTES == kMlKem768CiphertextSize);
static_assert(PQCLEAN_MLKEM768_CLEAN_CRYPTO_BYTES == kMlKem768SharedSize);

MlKem768KeyPair mlkem768_generate_derand(std::span<const std::uint8_t, 64> seed) {
  MlKem768KeyPair kp;
  kp.secret_key = std::make_unique<MlKem768SecretKey>();
  if (PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand(kp.public_key.data(), kp.secret_key->data(),
                                                       seed.data()) != 0) {
    std::abort();
  }
  return kp;
}

MlKem768KeyPair mlkem768_generate(Rng& rng) {
  SecretBytes<64> seed;
  rng.fill(seed.span());
  return mlkem768_generate_derand(seed.span());
}

MlKem768Encapsulation mlkem768_encapsulate_derand(std::span<const std::uint8_t, 1184> public_key,
                                                  std::span<const std::uint8_t, 32> m) {
  MlKem768Encapsulation e;
  if (PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand(e.ciphertext.data(), e.shared_secret.data(),
                                                   public_key.data(), m.data()) != 0) {
    std::abort();
  }
  return e;
}

MlKem768Encapsulation mlkem768_encapsulate(std::span<const std::uint8_t, 1184> public_key,
                                           Rng& rng) {
  Key32 m;
  rng.fill(m.span());
  return mlkem768_encapsulate_derand(public_key, m.span());
}

Key32 mlkem768_decapsulate(const MlKem768SecretKey& secret_key,
                           std::span<const std::uint8_t, 1088> ciphertext) {
  Key32 ss;
  // Decaps with implicit rejection always returns 0 and a 32-byte secret.
  PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec(ss.data(), ciphertext.data(), secret_key.data());
  return ss;
}

}  // namespace qeli::crypto
