#include "handshake/client_roam.h"

#include <array>

#include "base/bytes.h"
#include "crypto/secret_bytes.h"

namespace qeli::handshake {

std::unique_ptr<wire::RoamNonces> client_roam_nonces(const ClientSession& session) {
  if ((session.negotiated_caps & caps::kRoam) == 0 || !session.auth_ok ||
      !session.auth_ok->x_roam_key) {
    return nullptr;
  }
  std::array<std::uint8_t, 32> key{};
  std::unique_ptr<wire::RoamNonces> nonces;
  if (from_hex_into(*session.auth_ok->x_roam_key, key)) {
    nonces = std::make_unique<wire::RoamNonces>(session.join_secret, key);
  }
  crypto::secure_wipe(key.data(), key.size());
  return nonces;
}

}  // namespace qeli::handshake
