#include "wire/session_close.h"

namespace qeli::wire {

const char* to_string(CloseReason r) {
  switch (r) {
    case CloseReason::kKicked: return "kicked by the operator";
    case CloseReason::kSuperseded: return "superseded by a newer session of the same device";
    case CloseReason::kShutdown: return "the server is stopping";
    case CloseReason::kDisabled: return "the user was disabled";
    case CloseReason::kIdle: return "idle timeout";
    case CloseReason::kEvicted: return "evicted by a newer device of the same user (max_sessions)";
    case CloseReason::kClientStopping: return "the client is stopping";
    case CloseReason::kQuotaExhausted: return "the user's data quota is used up";
    case CloseReason::kCredentialsChanged:
      return "the user's password was changed or the user removed";
  }
  return "an unknown reason";
}

Result<CloseReason, ControlError> parse_session_close(const ControlFrame& f) {
  if (f.type != kCtrlSessionClose || f.body.empty() || f.body[0] == 0) {
    return fail(ControlError::kBadBody);
  }
  return static_cast<CloseReason>(f.body[0]);
}

std::size_t write_session_close(CloseReason reason, MutableByteSpan out) {
  if (out.size() < kSessionCloseFrameSize) return 0;
  out[0] = kCtrlMagic0;
  out[1] = kCtrlMagic1;
  out[2] = kCtrlSessionClose;
  out[3] = 1;
  out[4] = static_cast<std::uint8_t>(reason);
  return kSessionCloseFrameSize;
}

Bytes build_session_close(CloseReason reason) {
  Bytes b(kSessionCloseFrameSize);
  b.resize(write_session_close(reason, MutableByteSpan(b)));
  return b;
}

}  // namespace qeli::wire
