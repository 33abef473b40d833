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
  return phc.size() < crypto_pwhash_STRBYTES && phc.starts_with("$argon2id$");
}

bool argon2id_verify(std::string_view phc, std::string_view password) {
  ensure_sodium();
  if (!argon2id_is_phc(phc)) return false;
  const std::string str(phc);  // libsodium wants a NUL-terminated string
  return crypto_pwhash_argon2id_str_verify(str.c_str(), password.data(), password.size()) == 0;
}

}  // namespace qeli::crypto
