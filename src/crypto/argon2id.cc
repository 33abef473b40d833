#include "crypto/argon2id.h"

#include <sodium.h>

#include <cstdlib>
#include <string>

namespace qeli::crypto {
namespace {

void ensure_sodium() {
  static const bool ok = sodium_init() >= 0;
  if (!ok) std::abort();
}

// A cursor over the PHC string; every step either consumes what it expects or fails.
class PhcReader {
 public:
  explicit PhcReader(std::string_view s) : s_(s) {}

  bool literal(std::string_view lit) {
    if (!s_.starts_with(lit)) return false;
    s_.remove_prefix(lit.size());
    return true;
  }

  // A decimal u32 without sign or leading zeros (so each value has one spelling).
  std::optional<std::uint32_t> decimal() {
    std::size_t n = 0;
    std::uint64_t v = 0;
    while (n < s_.size() && s_[n] >= '0' && s_[n] <= '9') {
      if (n == 10) return std::nullopt;  // more digits than any u32 has
      v = v * 10 + static_cast<std::uint64_t>(s_[n] - '0');
      ++n;
    }
    if (n == 0 || (n > 1 && s_[0] == '0') || v > 0xffffffffULL) return std::nullopt;
    s_.remove_prefix(n);
    return static_cast<std::uint32_t>(v);
  }

  // Unpadded standard base64 up to the next '$' or the end; returns the decoded size.
  std::optional<std::size_t> base64_field() {
    std::size_t n = 0;
    while (n < s_.size() && s_[n] != '$') {
      const char c = s_[n];
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '+' || c == '/';
      if (!ok) return std::nullopt;
      ++n;
    }
    if (n % 4 == 1) return std::nullopt;  // no byte count encodes to 4k+1 characters
    s_.remove_prefix(n);
    return n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1);
  }

  bool at_end() const { return s_.empty(); }

 private:
  std::string_view s_;
};

}  // namespace

std::optional<std::string> argon2id_hash(std::string_view password) {
  ensure_sodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), kArgon2Iterations,
                            std::size_t{kArgon2MemoryKiB} * 1024,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return std::nullopt;
  }
  return std::string(out);
}

bool argon2id_is_phc(std::string_view phc) {
  PhcReader r(phc);
  if (!r.literal("$argon2id$v=19$m=")) return false;
  const auto m = r.decimal();
  if (!m || !r.literal(",t=")) return false;
  const auto t = r.decimal();
  if (!t || !r.literal(",p=")) return false;
  const auto p = r.decimal();
  if (!p || !r.literal("$")) return false;
  const auto salt = r.base64_field();
  if (!salt || !r.literal("$")) return false;
  const auto hash = r.base64_field();
  if (!hash || !r.at_end()) return false;

  if (*p < 1 || *p > kArgon2MaxParallelism) return false;
  if (*t < 1 || *t > kArgon2MaxIterations) return false;
  if (*m < 8ULL * *p || *m > kArgon2MaxMemoryKiB) return false;
  if (std::uint64_t{*m} * *t > kArgon2MaxCostKiBPasses) return false;
  return *salt >= 8 && *salt <= 64 && *hash >= 16 && *hash <= 64;
}

bool argon2id_verify(std::string_view phc, std::string_view password) {
  ensure_sodium();
  // The strict parse also guarantees no NUL inside, so c_str() below is the whole string.
  if (!argon2id_is_phc(phc)) return false;
  const std::string str(phc);  // libsodium wants a NUL-terminated string
  return crypto_pwhash_argon2id_str_verify(str.c_str(), password.data(), password.size()) == 0;
}

}  // namespace qeli::crypto
