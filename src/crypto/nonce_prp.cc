#include "crypto/nonce_prp.h"

#include <openssl/evp.h>

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

NoncePrp::NoncePrp(FromPrpKey, std::span<const std::uint8_t, 32> prp_key)
    : prp_key_(prp_key), md_ctx_(EVP_MD_CTX_new()) {
  if (md_ctx_ == nullptr) std::abort();
}

NoncePrp::~NoncePrp() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(md_ctx_)); }

Nonce12 NoncePrp::permute(std::span<const std::uint8_t, 4> seed, std::uint64_t counter) const {
  std::array<std::uint8_t, 12> block;
  std::memcpy(block.data(), seed.data(), 4);
  store_be64(block.data() + 4, counter);
  return permute_block(block);
}

Nonce12 NoncePrp::permute_block(std::span<const std::uint8_t, 12> block) const {
  auto* ctx = static_cast<EVP_MD_CTX*>(md_ctx_);
  std::uint8_t left[kHalf];
  std::uint8_t right[kHalf];
  std::memcpy(left, block.data(), kHalf);
  std::memcpy(right, block.data() + kHalf, kHalf);
  // Input to F: prp_key(32) ‖ round(1) ‖ R(6) = 39 bytes, one SHA-256 block.
  std::uint8_t in[32 + 1 + kHalf];
  std::memcpy(in, prp_key_.data(), 32);
  for (int round = 0; round < kRounds; ++round) {
    in[32] = static_cast<std::uint8_t>(round);
    std::memcpy(in + 33, right, kHalf);
    std::uint8_t f[32];
    unsigned int n = 0;
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1 ||
        EVP_DigestUpdate(ctx, in, sizeof(in)) != 1 || EVP_DigestFinal_ex(ctx, f, &n) != 1) {
      std::abort();
    }
    std::uint8_t new_right[kHalf];
    for (std::size_t i = 0; i < kHalf; ++i)
      new_right[i] = static_cast<std::uint8_t>(left[i] ^ f[i]);
    std::memcpy(left, right, kHalf);
    std::memcpy(right, new_right, kHalf);
  }
  secure_wipe(in, sizeof(in));
  Nonce12 out;
  std::memcpy(out.data(), left, kHalf);
  std::memcpy(out.data() + kHalf, right, kHalf);
  return out;
}

}  // namespace qeli::crypto
