// qeli's directional data keys: the four HKDF-SHA256 schemes of 0.7.16 (`derive.rs`;
// vectors: fixtures/qeli-conformance/hkdf.json; docs/PROTOCOL.md "Key schedule").
//
//   PRK = HKDF-Extract(salt(scheme), IKM(scheme))
//   server_to_client = HKDF-Expand(PRK, "server-to-client-enc-key", 32)
//   client_to_server = HKDF-Expand(PRK, "client-to-server-enc-key", 32)
//
//   scheme        salt                                           IKM
//   classic       "qeli-key-derivation-v1"                       ee
//   hybrid        "qeli-key-derivation-v2-hybrid"                ee ‖ ml
//   bound         "qeli-key-derivation-v1-static-bound"          ee ‖ es
//   hybrid-bound  "qeli-key-derivation-v2-hybrid-static-bound"   ee ‖ ml ‖ es
//
// ee = X25519(eph, eph), ml = ML-KEM-768 shared secret, es = X25519(client eph, server
// static). Note the order: X25519 first, the reverse of TLS's X25519MLKEM768.
//
// Our extension (capability bit 5, docs/PROTOCOL.md §18): the AES-256-GCM key of a
// direction is derived from that direction's ChaCha20-Poly1305 key, so one key is never
// used by two algorithms:
//
//   aes_key = HKDF-SHA256(salt = "", IKM = direction key, info = "qeli aes-256-gcm")[32]
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "crypto/secret_bytes.h"

namespace qeli::crypto {

enum class KdfScheme { kClassic, kHybrid, kBound, kHybridBound };

/// Parses "classic", "hybrid", "bound", "hybrid-bound".
std::optional<KdfScheme> kdf_scheme_from_string(std::string_view s);

struct DataKeys {
  Key32 server_to_client;
  Key32 client_to_server;
};

/// Derives the data keys. `ml` must be present for the hybrid schemes and `es` for the
/// bound ones (each 32 bytes); a missing input is a caller bug and aborts.
DataKeys derive_data_keys(KdfScheme scheme, std::span<const std::uint8_t, 32> ee, const Key32* ml,
                          const Key32* es);

/// The AES-256-GCM key of a direction from its 32-byte (ChaCha20-Poly1305) key (above).
Key32 derive_aes256gcm_key(std::span<const std::uint8_t, 32> direction_key);

}  // namespace qeli::crypto
