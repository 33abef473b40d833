// Why a session's data phase ended: the one vocabulary of the data plane. The carrier
// framers, the loop and the sans-I/O session all report a SessionEnd; the server turns it
// (with the close reason it recorded, wire::CloseReason) into the disconnect line
// (server/session_control.h describe_end), the client into its "session ended" line.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/counter_set.h"

namespace qeli::tunnel {

enum class SessionEnd : std::uint8_t {
  kStopped,           ///< the stop signal fired (or nothing ended it yet)
  kPeerClosed,        ///< the peer closed the connection
  kSocketError,       ///< send or receive failed
  kBadRecord,         ///< a record failed to authenticate or parse (stream carriers)
  kRecordFraming,     ///< an over-long or malformed record header
  kLiveness,          ///< nothing authenticated arrived within the liveness deadline
  kTunError,          ///< the TUN (or the packet source) failed
  kCounterExhausted,  ///< the send counter ran out: reconnect
  kIdle,              ///< no IP packet either way for the idle timeout
  kClosedByPeer,      ///< the peer sent a session-close frame (our extension)
  kQuotaExhausted,    ///< server: the user's download quota is used up (TrafficAccount)
  kCount
};

/// id (snake_case, for logs' structured fields and metrics) and the human text.
inline constexpr std::array<CounterInfo, static_cast<std::size_t>(SessionEnd::kCount)>
    kSessionEndInfo{{
        {"stopped", "stopped"},
        {"peer_closed", "peer closed the connection"},
        {"socket_error", "socket error"},
        {"bad_record", "a record failed to authenticate"},
        {"record_framing", "malformed record framing"},
        {"liveness", "liveness deadline passed"},
        {"tun_error", "TUN error"},
        {"counter_exhausted", "record counter exhausted"},
        {"idle", "idle timeout"},
        {"closed_by_peer", "the peer ended the session"},
        {"quota_exhausted", "data quota used up"},
    }};
constexpr const CounterInfo& counter_info(SessionEnd e) {
  return kSessionEndInfo[static_cast<std::size_t>(e)];
}
constexpr const char* to_string(SessionEnd e) { return counter_info(e).help.data(); }

/// Why a session ended, shared by its threads: the first one to record a reason wins;
/// get() is kStopped while nothing was recorded.
class EndLatch {
 public:
  /// True if this call recorded the reason.
  bool set(SessionEnd e) {
    int expected = -1;
    return value_.compare_exchange_strong(expected, static_cast<int>(e));
  }
  SessionEnd get() const {
    const int v = value_.load();
    return v < 0 ? SessionEnd::kStopped : static_cast<SessionEnd>(v);
  }
  bool ended() const { return value_.load() >= 0; }

 private:
  std::atomic<int> value_{-1};
};

}  // namespace qeli::tunnel
