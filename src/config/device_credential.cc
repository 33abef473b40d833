#include "config/device_credential.h"

#include <array>

#include "base/bytes.h"
#include "crypto/base64.h"

namespace qeli::config {
namespace {

constexpr std::size_t kSecretChars = 32;  // base64url of 24 bytes, no padding

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

bool is_device_id(std::string_view id) {
  if (id.size() != 8) return false;
  for (const char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::optional<std::string> device_id_of(std::string_view password) {
  if (!password.starts_with(kDeviceCredentialPrefix)) return std::nullopt;
  password.remove_prefix(kDeviceCredentialPrefix.size());
  if (password.size() != 8 + 1 + kSecretChars || password[8] != '.') return std::nullopt;
  const std::string_view id = password.substr(0, 8);
  if (!is_device_id(id)) return std::nullopt;
  for (const char c : password.substr(9)) {
    if (!is_base64url(c)) return std::nullopt;
  }
  return std::string(id);
}

std::string new_device_id(crypto::Rng& rng) {
  std::array<std::uint8_t, 4> b{};
  rng.fill(b);
  return to_hex(b);
}

std::string new_device_secret(std::string_view id, crypto::Rng& rng) {
  std::array<std::uint8_t, 24> b{};
  rng.fill(b);
  return std::string(kDeviceCredentialPrefix) + std::string(id) + "." + crypto::base64url_encode(b);
}

}  // namespace qeli::config
