// OpenSSL 3.0 re-creates the provider context on every EVP_DigestInit (one or two heap
// allocations per call, measured: 8 per permute()), and EVP_MD_CTX_copy allocates as
// well. The record path must not allocate, so F uses the low-level SHA256_* functions on a
// stack SHA256_CTX: the same SHA-NI/AVX code without the provider layer, and ~4x faster
// than the EVP round trip. They are deprecated in 3.0 but present in every 3.x build that
// has not been configured with no-deprecated (Debian's has them).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "crypto/nonce_prp.h"

#include <openssl/sha.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/bytes.h"
#include "base/endian.h"
#include "crypto/sha256.h"

namespace qeli::crypto {
namespace {
constexpr std::string_view kPrpLabel = "qeli-nonce-prp-v1";
constexpr int kRounds = 4;
constexpr std::size_t kHalf = 6;
}  // namespace

NoncePrp::NoncePrp(std::span<const std::uint8_t, 32> aead_key)
    : NoncePrp(FromPrpKey{}, sha256({as_bytes(kPrpLabel), aead_key})) {}

NoncePrp::NoncePrp(FromPrpKey, std::span<const std::uint8_t, 32> prp_key) : prp_key_(prp_key) {}

NoncePrp::~NoncePrp() = default;

Nonce12 NoncePrp::permute(std::span<const std::uint8_t, 4> seed, std::uint64_t counter) const {
  std::array<std::uint8_t, 12> block;
  std::memcpy(block.data(), seed.data(), 4);
  store_be64(block.data() + 4, counter);
  return permute_block(block);
}

namespace {

// The Feistel network over a 12-byte block: kRounds rounds of L, R = R, L ⊕ F_i(R)
// forward, their inverse backward. F_i(h) = SHA-256(prp_key ‖ i ‖ h)[0..6]; the 39-byte
// input holds the key once for all rounds (one copy and one wipe per call: this is on
// the per-record path).
std::array<std::uint8_t, 12> feistel(const Key32& key, std::span<const std::uint8_t, 12> block,
                                     bool inverse) {
  std::uint8_t left[kHalf];
  std::uint8_t right[kHalf];
  std::memcpy(left, block.data(), kHalf);
  std::memcpy(right, block.data() + kHalf, kHalf);
  std::uint8_t in[32 + 1 + kHalf];
  std::memcpy(in, key.data(), 32);
  for (int k = 0; k < kRounds; ++k) {
    const int round = inverse ? kRounds - 1 - k : k;
    // Forward: F of R goes into L, then swap. Inverse (L', R') → (R' ⊕ F(L'), L'):
    // F of L goes into R, then swap.
    std::uint8_t* keep = inverse ? left : right;
    std::uint8_t* into = inverse ? right : left;
    in[32] = static_cast<std::uint8_t>(round);
    std::memcpy(in + 33, keep, kHalf);
    std::uint8_t f[SHA256_DIGEST_LENGTH];
    SHA256_CTX sha;
    if (SHA256_Init(&sha) != 1 || SHA256_Update(&sha, in, sizeof(in)) != 1 ||
        SHA256_Final(f, &sha) != 1) {
      std::abort();
    }
    for (std::size_t i = 0; i < kHalf; ++i) into[i] = static_cast<std::uint8_t>(into[i] ^ f[i]);
    std::uint8_t t[kHalf];
    std::memcpy(t, left, kHalf);
    std::memcpy(left, right, kHalf);
    std::memcpy(right, t, kHalf);
  }
  // Wipe our copy of the PRP key (SHA256_Final already cleanses the block buffer that held
  // it); what remains in `f` and the chaining state are PRF outputs, not the key.
  secure_wipe(in, sizeof(in));
  std::array<std::uint8_t, 12> out;
  std::memcpy(out.data(), left, kHalf);
  std::memcpy(out.data() + kHalf, right, kHalf);
  return out;
}

}  // namespace

Nonce12 NoncePrp::permute_block(std::span<const std::uint8_t, 12> block) const {
  return feistel(prp_key_, block, false);
}

std::array<std::uint8_t, 12> NoncePrp::invert_block(std::span<const std::uint8_t, 12> nonce) const {
  return feistel(prp_key_, nonce, true);
}

}  // namespace qeli::crypto
