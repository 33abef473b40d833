#include "crypto/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>
#include <utility>

namespace qeli::crypto {
namespace {
EVP_MD_CTX* md(void* p) { return static_cast<EVP_MD_CTX*>(p); }
void check(int rc) {
  if (rc != 1) std::abort();  // only on allocation failure inside OpenSSL
}
}  // namespace

Digest32 sha256(std::span<const std::uint8_t> data) {
  Digest32 out;
  unsigned int n = 0;
  check(EVP_Digest(data.data(), data.size(), out.data(), &n, EVP_sha256(), nullptr));
  return out;
}

Digest32 sha256(std::initializer_list<std::span<const std::uint8_t>> parts) {
  Sha256 h;
  for (auto p : parts) h.update(p);
  return h.digest();
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) std::abort();
  check(EVP_DigestInit_ex(md(ctx_), EVP_sha256(), nullptr));
}
Sha256::~Sha256() { EVP_MD_CTX_free(md(ctx_)); }
Sha256::Sha256(Sha256&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
Sha256& Sha256::operator=(Sha256&& o) noexcept {
  std::swap(ctx_, o.ctx_);
  return *this;
}

void Sha256::update(std::span<const std::uint8_t> data) {
  if (!data.empty()) check(EVP_DigestUpdate(md(ctx_), data.data(), data.size()));
}

Digest32 Sha256::digest() const {
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (copy == nullptr) std::abort();
  check(EVP_MD_CTX_copy_ex(copy, md(ctx_)));
  Digest32 out;
  unsigned int n = 0;
  check(EVP_DigestFinal_ex(copy, out.data(), &n));
  EVP_MD_CTX_free(copy);
  return out;
}

Digest32 hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
  Digest32 out;
  unsigned int n = 0;
  static const std::uint8_t kEmpty = 0;
  if (HMAC(EVP_sha256(), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()),
           data.data(), data.size(), out.data(), &n) == nullptr) {
    std::abort();
  }
  return out;
}

}  // namespace qeli::crypto
