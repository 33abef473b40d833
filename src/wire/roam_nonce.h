// Roaming connection ids carried in the record nonce (our extension caps::kRoam,
// docs/PROTOCOL.md §20). A UDP server finds a session whose client changed address by
// a connection id (CID) that only the two ends can compute — without a single byte on
// the wire that a 0.7.16 record does not have:
//
//   cid(n)     = HMAC-SHA256(session_secret, "qeli-roam-cid-v1" ‖ LE32(n))[0..8]
//   roam_prp   = NoncePrp with prp_key = HMAC-SHA256(server_static_private,
//   "qeli-roam-nonce-prp-v1")
//                (pushed to authenticated clients in AUTH OK `x_roam_key`)
//   nonce      = roam_prp.permute_block(cid(epoch) ‖ BE32(counter mod 2^32))
//   epoch      = path + (counter >> 32)
//
// session_secret is the session's join secret (handshake/key_schedule.h); `path` starts
// at 0 and a client moves it on when it knows it changed networks (a fresh CID, so an
// observer cannot link its two paths by the id). The nonce stays unique per key: the
// epoch never decreases, and within one epoch the counter's low half never repeats.
// The receiver still takes the nonce from the wire as it is; only a server looking for a
// session (a datagram from an unknown address) inverts the permutation and reads the CID.
// Anyone who is not a client of the server sees a random nonce, as before (a client
// of the same profile could read the CIDs of others: the key is the profile's).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "base/bytes.h"
#include "crypto/nonce_prp.h"
#include "crypto/secret_bytes.h"
#include "wire/udp_obfs.h"

namespace qeli::wire {

using RoamCid = std::array<std::uint8_t, 8>;

/// CIDs a server indexes per session beyond the current epoch (epochs n … n + kRoamWindow).
inline constexpr std::uint32_t kRoamWindow = 4;

/// cid(epoch) of a session (see above).
RoamCid roam_cid(const crypto::Key32& session_secret, std::uint32_t epoch);
/// The profile-wide key of the CID-carrying nonce permutation, from the profile's
/// static private key (stable across restarts, unknown to anyone the server did not
/// authenticate).
crypto::Key32 roam_prp_key(const crypto::Key32& server_static_private);

/// What a server reads out of a roaming client's nonce.
struct RoamId {
  RoamCid cid;
  std::uint32_t low_counter = 0;  ///< the record counter mod 2^32
};
RoamId read_roam_id(const crypto::NoncePrp& roam_prp, std::span<const std::uint8_t, 12> nonce);

/// The RoamId in a received datagram if it is shaped like a client's data datagram:
/// [obfs seal if `obfs`] ‖ [QUIC short header, if there is one] ‖ 17 03 03 len ‖ nonce …
/// with len exactly the rest and room for nonce, counter, padding length and tag.
/// `datagram` is not changed (its first 64 bytes are copied and undone on the stack).
/// Every length is checked; anything else (a handshake fragment, a long header,
/// garbage) gives nullopt.
std::optional<RoamId> roam_id_in_datagram(ByteSpan datagram, UdpObfs* obfs,
                                          const crypto::NoncePrp& roam_prp);

/// A client's nonce source once caps::kRoam is negotiated (wire/packet_codec.h
/// set_send_roam). Sender thread only; allocation-free after construction.
class RoamNonces {
 public:
  /// `prp_key`: the profile's roam_prp_key, as AUTH OK `x_roam_key` gave it.
  RoamNonces(const crypto::Key32& session_secret, std::span<const std::uint8_t, 32> prp_key);

  /// The nonce of the record with this counter.
  crypto::Nonce12 nonce(std::uint64_t counter);
  /// A new network path: records from now on carry the next CID.
  void next_path() { ++path_; }
  std::uint32_t epoch(std::uint64_t counter) const {
    return path_ + static_cast<std::uint32_t>(counter >> 32);
  }

 private:
  crypto::Key32 secret_;
  crypto::NoncePrp prp_;
  std::uint32_t path_ = 0;
  std::uint64_t cached_epoch_ = ~0ULL;
  RoamCid cid_{};
};

}  // namespace qeli::wire
