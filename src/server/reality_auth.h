// The REALITY decision on one complete ClientHello record (reference §4.1, §4.2): does
// its legacy_session_id carry a valid token for this profile? Sans-I/O apart from the
// replay cache; shared by the `reality` gate (fake-TLS inside) and reality-tls.
//
//   1. parse the ClientHello (tls::parse_client_hello): session_id of 32 bytes and an
//      X25519 key share (0x001D, 32 bytes) — else kBadHello;
//   2. shared = X25519(identity, share) (a low-order share: kBadHello), open the token —
//      else kBadToken;
//   3. |now − t| ≤ 120 s — else kExpired;
//   4. the short id is one of the profile's (`short_ids`, shared by all users, 0.7.16)
//      or a user's own (`reality_short_ids`, our extension) whose user is enabled — else
//      kUnknownShortId / kRevoked (the user is disabled);
//   5. the token was not accepted before (RealityReplayCache) — else kReplay.
// Anything but kAccepted is bridged to the cover site like any stranger.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "config/short_id.h"
#include "crypto/x25519.h"
#include "server/reality_replay.h"
#include "server/user_directory.h"

namespace qeli::server {

enum class RealityVerdict : std::uint8_t {
  kAccepted,
  kBadHello,
  kBadToken,
  kExpired,
  kUnknownShortId,
  kRevoked,
  kReplay,
};
const char* to_string(RealityVerdict v);

struct RealityDecision {
  RealityVerdict verdict = RealityVerdict::kBadHello;
  /// kAccepted with a user's own short id: that user (only they may authenticate).
  std::optional<std::string> owner;
};

struct RealityPolicy {
  const crypto::X25519KeyPair* identity = nullptr;
  std::vector<config::ShortId> shared_ids;  ///< the profile's short_ids (parsed)
  const UserDirectory* users = nullptr;     ///< per-user ids; may be null
  RealityReplayCache* replay = nullptr;     ///< may be null (tests)
};

/// `record`: the whole TLS record (5-byte header included), as tls::peek_client_hello
/// delimited it. `unix_now`: wall-clock seconds.
RealityDecision authenticate_hello(ByteSpan record, const RealityPolicy& policy,
                                   std::uint64_t unix_now);

}  // namespace qeli::server
