#include "crypto/digest.h"

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
const EVP_MD* evp(DigestAlgorithm alg) {
  return alg == DigestAlgorithm::kSha384 ? EVP_sha384() : EVP_sha256();
}

}  // namespace

DigestValue digest(DigestAlgorithm alg, std::span<const std::uint8_t> data) {
  DigestValue out;
  unsigned int n = 0;
  check(EVP_Digest(data.data(), data.size(), out.bytes.data(), &n, evp(alg), nullptr));
  out.size = n;
  return out;
}

Digester::Digester(DigestAlgorithm alg) : alg_(alg), ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) std::abort();
  check(EVP_DigestInit_ex(md(ctx_), evp(alg), nullptr));
}
Digester::~Digester() { EVP_MD_CTX_free(md(ctx_)); }
Digester::Digester(Digester&& o) noexcept : alg_(o.alg_), ctx_(std::exchange(o.ctx_, nullptr)) {}
Digester& Digester::operator=(Digester&& o) noexcept {
  std::swap(alg_, o.alg_);
  std::swap(ctx_, o.ctx_);
  return *this;
}

void Digester::update(std::span<const std::uint8_t> data) {
  if (!data.empty()) check(EVP_DigestUpdate(md(ctx_), data.data(), data.size()));
}

DigestValue Digester::value() const {
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (copy == nullptr) std::abort();
  check(EVP_MD_CTX_copy_ex(copy, md(ctx_)));
  DigestValue out;
  unsigned int n = 0;
  check(EVP_DigestFinal_ex(copy, out.bytes.data(), &n));
  out.size = n;
  EVP_MD_CTX_free(copy);
  return out;
}

DigestValue hmac(DigestAlgorithm alg, std::span<const std::uint8_t> key,
                 std::span<const std::uint8_t> data) {
  DigestValue out;
  unsigned int n = 0;
  static const std::uint8_t kEmpty = 0;
  if (HMAC(evp(alg), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()),
           data.empty() ? &kEmpty : data.data(), data.size(), out.bytes.data(), &n) == nullptr) {
    std::abort();
  }
  out.size = n;
  return out;
}

}  // namespace qeli::crypto
