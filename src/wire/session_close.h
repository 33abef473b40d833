// The session-close control frame — our extension (capability bit
// handshake::caps::kCloseNotify; docs/PROTOCOL.md §12).
//
//   frame = C1 9B ‖ 80 ‖ len ‖ reason(1) [‖ more bytes, ignored]
//
// The server sends it just before it ends a session on purpose, so the client does not
// wait for its liveness deadline (≥ 30 s on UDP) to notice; the client sends it (reason 7)
// when it stops, so the server frees the session and its address at once. A 0.7.16 client never
// offers the bit and never sees the frame. The reason tells the client what to do next: kicked,
// superseded, evicted, server stopping, idle → reconnect with the normal backoff;
// disabled, quota used up, credentials changed → stop with an error. An unknown reason byte is kept
// as is (a newer server) and treated like "kicked".
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "wire/control_frame.h"

namespace qeli::wire {

enum class CloseReason : std::uint8_t {
  kKicked = 1,      ///< an operator ran `qeli kick`
  kSuperseded = 2,  ///< a newer session of the same device (or its static address) took over
  kShutdown = 3,    ///< the server (or this profile) is stopping
  kDisabled = 4,    ///< the user was disabled (`qeli disable-user`): do not come back
  kIdle = 5,        ///< no IP packet either way for the profile's idle timeout
  kEvicted = 6,     ///< max_sessions: another device of the same user took the slot
  /// Client → server: the client is stopping (SIGTERM/SIGINT); the server ends the session
  /// at once and frees its address instead of waiting for its liveness deadline.
  kClientStopping = 7,
  /// The user's download quota (data_limit_gb) is used up: do not come back until the
  /// operator resets it (`qeli usage --reset USER`) or raises the limit.
  kQuotaExhausted = 8,
  /// The user's password was changed or the user removed (`qeli passwd`, `share-link`,
  /// `remove-user`): the stored credentials no longer work, do not come back with them.
  kCredentialsChanged = 9,
};

/// "kicked by the operator", …; "unknown reason N" for a byte we do not know.
const char* to_string(CloseReason r);

/// Frame size: header 4 + reason 1.
inline constexpr std::size_t kSessionCloseFrameSize = kCtrlHeaderSize + 1;

/// The reason of a type-0x80 frame; kBadBody for another type or an empty body. Any
/// non-zero byte is accepted (unknown ones for forward compatibility); 0 is kBadBody.
Result<CloseReason, ControlError> parse_session_close(const ControlFrame& f);

/// Writes the frame into `out`; returns its size (5) or 0 if `out` is too small.
std::size_t write_session_close(CloseReason reason, MutableByteSpan out);
Bytes build_session_close(CloseReason reason);

}  // namespace qeli::wire
