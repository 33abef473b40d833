// What the client says to the server when it ends a session on purpose: our close
// extension (caps::kCloseNotify, wire/session_close.h, docs/PROTOCOL.md §12) the other way
// round. Without it a UDP server keeps the session — and its tunnel address — until its
// liveness deadline (≥ 30 s), since UDP has no connection close; on TCP the FIN already
// ends it and the frame only gives the server's log the reason.
#pragma once

#include <functional>

#include "base/bytes.h"
#include "engine/stop_signal.h"
#include "tunnel/session_end.h"

namespace qeli::client {

/// The farewell hook for the client's data phase (engine configs' `farewell`): the
/// session-close frame with CloseReason::kClientStopping (5 bytes) once `stop` — the
/// client's own stop signal, fired by SIGTERM/SIGINT — has fired and the server took the
/// extension (`close_notify`); an empty Bytes otherwise (no extension, or a session the
/// server or the network ended while the client keeps running). `stop` must outlive the
/// returned function.
std::function<Bytes(tunnel::SessionEnd)> client_farewell(bool close_notify,
                                                         const engine::StopSignal& stop);

}  // namespace qeli::client
