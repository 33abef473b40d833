// (EC)DHE for TLS 1.3 over X25519 (0x001D, RFC 7748/8446 §7.4.2) and X25519MLKEM768
// (0x11EC, draft-ietf-tls-ecdhe-mlkem): client share = ML-KEM-768 ek(1184) ‖ X25519(32),
// server share = ML-KEM ciphertext(1088) ‖ X25519(32), shared = ML-KEM ss ‖ X25519 ss.
// An all-zero X25519 result (low-order point) is refused on both sides (kBadKeyShare).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/mlkem768.h"
#include "crypto/random.h"
#include "crypto/x25519.h"
#include "tls/alert.h"

namespace qeli::tls {

/// The (EC)DHE input to the key schedule: 32 (X25519) or 64 (hybrid) bytes, wiped.
struct SharedSecret {
  crypto::SecretBytes<64> bytes;
  std::size_t size = 0;
  ByteSpan span() const { return {bytes.data(), size}; }
};

/// The client's private halves of the shares one ClientHello carries. Chrome makes two
/// independent X25519 keys, one for each share (reality-tls.md B.4); a 0.7.16 realtls
/// hello uses one key for both (`hybrid_x25519` then equals `x25519`).
struct ClientKeyShares {
  crypto::X25519KeyPair x25519;                  ///< the stand-alone 0x001D share
  crypto::X25519KeyPair hybrid_x25519;           ///< the X25519 half of the 0x11EC share
  std::optional<crypto::MlKem768KeyPair> mlkem;  ///< absent: no hybrid share offered

  /// The 0x11EC key_exchange bytes (ek ‖ x25519); requires `mlkem`.
  Bytes hybrid_share() const;
  /// The shared secret for the server's answer in `group`. `standalone_for_hybrid`: take
  /// the hybrid's X25519 half with the stand-alone 0x001D key instead of its own (what a
  /// 0.7.16 realtls server computes; see ClientHandshake).
  Result<SharedSecret, TlsError> agree(std::uint16_t group, ByteSpan server_share,
                                       bool standalone_for_hybrid = false) const;
  /// True if the hybrid share has its own X25519 key (a Chromium hello).
  bool separate_hybrid_key() const;
};

/// Fresh shares: two independent X25519 keys and, if `hybrid`, an ML-KEM-768 key pair.
ClientKeyShares generate_client_key_shares(crypto::Rng& rng, bool hybrid);

struct ServerKeyExchange {
  Bytes key_exchange;  ///< the ServerHello key_share value
  SharedSecret shared;
};

/// The server side for `group` given the client's share (size-checked).
Result<ServerKeyExchange, TlsError> server_key_exchange(std::uint16_t group, ByteSpan client_share,
                                                        crypto::Rng& rng);

}  // namespace qeli::tls
