// qeli 0.7.16 key schedule and proofs (`exchange.rs`, `auth.rs`, `derive.rs`;
// docs/PROTOCOL.md "Key schedule").
//
//   ee = X25519(client_eph, server_eph)      ml = ML-KEM-768 shared secret
//   es = X25519(client_eph, server_static)   (= X25519(server_static, client_eph))
//   data keys: crypto::derive_data_keys(scheme, ee, ml, es), scheme by mode and binding:
//       plain:    bind ? bound : classic      fake-tls: bind ? hybrid-bound : hybrid
//   server proof     = HKDF-SHA256(salt = es, IKM = ee,
//                                  info = "vpn-server-auth-proof-v2" ‖ transcript)[0..32]
//   client key proof = HKDF-SHA256(salt = es, IKM = ee,
//                                  info = "vpn-client-key-proof-v1" ‖ transcript)[0..32]
//   transcript = SHA-256(CH ‖ SH ‖ Cert ‖ Finished records)  (fake-tls)
//              = SHA-256(client_pub ‖ server_pub)             (plain)
#pragma once

#include <span>
#include <string_view>

#include "crypto/data_keys.h"
#include "crypto/secret_bytes.h"
#include "crypto/sha256.h"
#include "handshake/types.h"

namespace qeli::handshake {

inline constexpr std::string_view kServerProofLabel = "vpn-server-auth-proof-v2";
inline constexpr std::string_view kClientKeyProofLabel = "vpn-client-key-proof-v1";

crypto::KdfScheme kdf_scheme(Mode mode, bool bind_static);

// Our extension to stream bonding (docs/PROTOCOL.md §19): a JOINed connection proves it
// holds the session's keys, not only the bearer token.
inline constexpr std::string_view kJoinSecretLabel = "qeli-join-secret-v1";
inline constexpr std::string_view kJoinProofLabel = "qeli-join-proof-v1";

/// The session's join secret = HKDF-SHA256(salt = "qeli-join-secret-v1",
/// IKM = client_to_server ‖ server_to_client data keys of its AUTH connection)[0..32].
crypto::Key32 join_secret(const crypto::DataKeys& keys);
/// A JOINed connection's proof = HMAC-SHA256(join_secret, "qeli-join-proof-v1" ‖ that
/// connection's transcript hash): bound to both the session and this handshake.
crypto::Key32 join_proof(const crypto::Key32& secret, std::span<const std::uint8_t, 32> transcript);

/// 32-byte proof = HKDF(salt = es, IKM = ee, info = label ‖ transcript).
crypto::Key32 derive_proof(std::string_view label, const crypto::Key32& es, const crypto::Key32& ee,
                           std::span<const std::uint8_t, 32> transcript);

inline crypto::Key32 server_auth_proof(const crypto::Key32& es, const crypto::Key32& ee,
                                       std::span<const std::uint8_t, 32> transcript) {
  return derive_proof(kServerProofLabel, es, ee, transcript);
}
inline crypto::Key32 client_key_proof(const crypto::Key32& es, const crypto::Key32& ee,
                                      std::span<const std::uint8_t, 32> transcript) {
  return derive_proof(kClientKeyProofLabel, es, ee, transcript);
}

}  // namespace qeli::handshake
