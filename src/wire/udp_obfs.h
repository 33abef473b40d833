// The per-datagram UDP obfs seal of qeli 0.7.16 (docs/PROTOCOL.md "UDP obfs seal").
//
//   sealed = flag(1) ‖ nonce(12) ‖ (payload XOR ChaCha20(obfs_key, nonce, block 0…))
//   flag   = 0x40 | 6 random bits   (looks like a QUIC short header whose DCID is the nonce)
//   obfs_key = SHA-256("qeli-obfs-key-v1" ‖ PSK)   (§3.7; the PSK string's UTF-8 bytes)
//
// Stateless per datagram, outermost (applied after the optional QUIC shape). No integrity:
// the inner AEAD record or the handshake's own checks catch tampering. The keystream
// starts at ChaCha20 block counter 0: the reference text does not name the counter; 0 is
// the start of RFC 8439 §2.4 and of the RustCrypto `chacha20` cipher 0.7.16 uses for its
// TCP obfs stream (an interop capture would confirm it; none is in the vectors).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/chacha20.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "wire/limits.h"

namespace qeli::wire {

inline constexpr std::uint8_t kObfsFlagBase = 0x40;
inline constexpr std::uint8_t kObfsFlagRandomMask = 0x3F;

/// SHA-256("qeli-obfs-key-v1" ‖ psk): the key shared by every user of the profile.
crypto::Key32 derive_obfs_key(std::string_view psk);

enum class ObfsError : std::uint8_t {
  kTooShort,  ///< fewer than 13 bytes
  kBadFlag,   ///< top two bits of the flag are not 01
};
const char* to_string(ObfsError e);

/// The seal with one profile key. Holds a ChaCha20 context: no allocation per datagram,
/// NOT thread-safe (one object per worker thread).
class UdpObfs {
 public:
  explicit UdpObfs(const crypto::Key32& key) : cipher_(key.span()) {}
  explicit UdpObfs(std::string_view psk) : UdpObfs(derive_obfs_key(psk)) {}

  /// Seals in place. `datagram` = kObfsSealSize bytes of headroom (overwritten) followed
  /// by the payload; the payload is XORed, the headroom becomes flag ‖ nonce.
  /// `flag_random`'s low 6 bits go into the flag. Aborts if `datagram` is shorter than
  /// kObfsSealSize (a bug).
  void seal(const std::array<std::uint8_t, 12>& nonce, std::uint8_t flag_random,
            MutableByteSpan datagram);
  /// As above, drawing the nonce and flag bits from `rng`.
  void seal(MutableByteSpan datagram, crypto::Rng& rng);

  /// Opens in place: XORs the payload back and returns it (a view into `datagram` after
  /// the 13-byte seal). An empty payload is valid. Any bytes open "successfully" with a
  /// wrong key; the layers inside reject them.
  Result<MutableByteSpan, ObfsError> open(MutableByteSpan datagram);

 private:
  crypto::ChaCha20 cipher_;
};

}  // namespace qeli::wire
