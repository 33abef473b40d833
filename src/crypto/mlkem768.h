// ML-KEM-768 (FIPS 203) from PQClean's `ml-kem-768/clean`.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "crypto/random.h"
#include "crypto/secret_bytes.h"

namespace qeli::crypto {

inline constexpr std::size_t kMlKem768PublicKeySize = 1184;   // encapsulation key ek
inline constexpr std::size_t kMlKem768SecretKeySize = 2400;   // decapsulation key dk
inline constexpr std::size_t kMlKem768CiphertextSize = 1088;  // c
inline constexpr std::size_t kMlKem768SharedSize = 32;        // K

using MlKem768PublicKey = std::array<std::uint8_t, kMlKem768PublicKeySize>;
using MlKem768Ciphertext = std::array<std::uint8_t, kMlKem768CiphertextSize>;
using MlKem768SecretKey = SecretBytes<kMlKem768SecretKeySize>;

struct MlKem768KeyPair {
  MlKem768PublicKey public_key;
  std::unique_ptr<MlKem768SecretKey> secret_key;  // heap: 2400 bytes, wiped on destruction
};

/// ML-KEM.KeyGen (FIPS 203 Alg. 19) with d ‖ z drawn from `rng`.
MlKem768KeyPair mlkem768_generate(Rng& rng);

/// ML-KEM.KeyGen_internal(d, z) (FIPS 203 Alg. 16); `seed` = d(32) ‖ z(32).
MlKem768KeyPair mlkem768_generate_derand(std::span<const std::uint8_t, 64> seed);

struct MlKem768Encapsulation {
  MlKem768Ciphertext ciphertext;
  Key32 shared_secret;
};

/// ML-KEM.Encaps (FIPS 203 Alg. 20) to `public_key` with m drawn from `rng`.
MlKem768Encapsulation mlkem768_encapsulate(std::span<const std::uint8_t, 1184> public_key,
                                           Rng& rng);

/// ML-KEM.Encaps_internal(ek, m) (FIPS 203 Alg. 17); `m` is 32 bytes.
MlKem768Encapsulation mlkem768_encapsulate_derand(std::span<const std::uint8_t, 1184> public_key,
                                                  std::span<const std::uint8_t, 32> m);

/// ML-KEM.Decaps (FIPS 203 Alg. 21). Never fails: a tampered ciphertext yields the
/// implicit-rejection secret J(z ‖ c), which matches nothing the peer holds.
Key32 mlkem768_decapsulate(const MlKem768SecretKey& secret_key,
                           std::span<const std::uint8_t, 1088> ciphertext);

}  // namespace qeli::crypto
