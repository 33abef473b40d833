#include "client/core/farewell.h"

#include "wire/session_close.h"

namespace qeli::client {

std::function<Bytes(tunnel::SessionEnd)> client_farewell(bool close_notify,
                                                         const engine::StopSignal& stop) {
  if (!close_notify) return nullptr;
  // The engine calls the hook with kStopped whenever its sender stops, also when the
  // receive side ended the session (server close frame, liveness): only the client's own
  // stop is a reason to say goodbye; the others would reconnect anyway.
  return [&stop](tunnel::SessionEnd) -> Bytes {
    if (!stop.stopped()) return {};
    return wire::build_session_close(wire::CloseReason::kClientStopping);
  };
}

}  // namespace qeli::client
