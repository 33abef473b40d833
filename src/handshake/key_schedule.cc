#include "handshake/key_schedule.h"

#include <array>
#include <cstring>

#include "crypto/hkdf.h"

namespace qeli::handshake {

crypto::KdfScheme kdf_scheme(Mode mode, bool bind_static) {
  if (mode == Mode::kPlain)
    return bind_static ? crypto::KdfScheme::kBound : crypto::KdfScheme::kClassic;
  return bind_static ? crypto::KdfScheme::kHybridBound : crypto::KdfScheme::kHybrid;
}

crypto::Key32 derive_proof(std::string_view label, const crypto::Key32& es, const crypto::Key32& ee,
                           std::span<const std::uint8_t, 32> transcript) {
  std::array<std::uint8_t, 64> info{};
  if (label.size() + transcript.size() > info.size()) std::abort();  // our labels are short
  std::memcpy(info.data(), label.data(), label.size());
  std::memcpy(info.data() + label.size(), transcript.data(), transcript.size());
  crypto::Key32 out;
  crypto::hkdf(es.span(), ee.span(), {info.data(), label.size() + transcript.size()}, out.span());
  return out;
}

crypto::Key32 join_secret(const crypto::DataKeys& keys) {
  std::array<std::uint8_t, 64> ikm{};
  std::memcpy(ikm.data(), keys.client_to_server.data(), 32);
  std::memcpy(ikm.data() + 32, keys.server_to_client.data(), 32);
  crypto::Key32 out;
  crypto::hkdf(as_bytes(kJoinSecretLabel), ikm, {}, out.span());
  crypto::secure_wipe(ikm.data(), ikm.size());
  return out;
}

crypto::Key32 join_proof(const crypto::Key32& secret,
                         std::span<const std::uint8_t, 32> transcript) {
  std::array<std::uint8_t, kJoinProofLabel.size() + 32> msg{};
  std::memcpy(msg.data(), kJoinProofLabel.data(), kJoinProofLabel.size());
  std::memcpy(msg.data() + kJoinProofLabel.size(), transcript.data(), transcript.size());
  return crypto::hkdf_extract(secret.span(), msg);  // HKDF-Extract is HMAC-SHA256(salt, IKM)
}

}  // namespace qeli::handshake
