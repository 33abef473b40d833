#include "crypto/data_keys.h"

#include <array>
#include <cstdlib>
#include <cstring>

#include "base/bytes.h"
#include "crypto/hkdf.h"

namespace qeli::crypto {
namespace {

std::string_view salt_of(KdfScheme s) {
  switch (s) {
    case KdfScheme::kClassic: return "qeli-key-derivation-v1";
    case KdfScheme::kHybrid: return "qeli-key-derivation-v2-hybrid";
    case KdfScheme::kBound: return "qeli-key-derivation-v1-static-bound";
    case KdfScheme::kHybridBound: return "qeli-key-derivation-v2-hybrid-static-bound";
  }
  std::abort();
}

constexpr std::string_view kInfoS2C = "server-to-client-enc-key";
constexpr std::string_view kInfoC2S = "client-to-server-enc-key";
constexpr std::string_view kInfoAes256Gcm = "qeli aes-256-gcm";

}  // namespace

std::optional<KdfScheme> kdf_scheme_from_string(std::string_view s) {
  if (s == "classic") return KdfScheme::kClassic;
  if (s == "hybrid") return KdfScheme::kHybrid;
  if (s == "bound") return KdfScheme::kBound;
  if (s == "hybrid-bound") return KdfScheme::kHybridBound;
  return std::nullopt;
}

DataKeys derive_data_keys(KdfScheme scheme, std::span<const std::uint8_t, 32> ee, const Key32* ml,
                          const Key32* es) {
  const bool hybrid = scheme == KdfScheme::kHybrid || scheme == KdfScheme::kHybridBound;
  const bool bound = scheme == KdfScheme::kBound || scheme == KdfScheme::kHybridBound;
  if ((hybrid && ml == nullptr) || (bound && es == nullptr)) std::abort();

  SecretBytes<96> ikm;
  std::size_t n = 0;
  std::memcpy(ikm.data(), ee.data(), 32);
  n += 32;
  if (hybrid) {
    std::memcpy(ikm.data() + n, ml->data(), 32);
    n += 32;
  }
  if (bound) {
    std::memcpy(ikm.data() + n, es->data(), 32);
    n += 32;
  }
  const Key32 prk = hkdf_extract(as_bytes(salt_of(scheme)), {ikm.data(), n});
  DataKeys keys;
  hkdf_expand(prk.span(), as_bytes(kInfoS2C), keys.server_to_client.span());
  hkdf_expand(prk.span(), as_bytes(kInfoC2S), keys.client_to_server.span());
  return keys;
}

Key32 derive_aes256gcm_key(std::span<const std::uint8_t, 32> direction_key) {
  Key32 out;
  hkdf({}, direction_key, as_bytes(kInfoAes256Gcm), out.span());
  return out;
}

}  // namespace qeli::crypto
