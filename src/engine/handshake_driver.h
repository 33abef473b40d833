// Runs a sans-I/O handshake state machine (handshake::ClientHandshake or
// ServerHandshake) over a connected stream socket: sends its output (honouring the
// per-chunk delays that disguise the flight), feeds it what the socket delivers, fires
// its timer at its deadline, and stops early on the stop signal.
#pragma once

#include <functional>

#include "engine/stop_signal.h"
#include "handshake/client_handshake.h"
#include "handshake/server_handshake.h"

namespace qeli::engine {

/// Drives `hs` (already start()ed) until it is done or failed. Returns the failure
/// reason (kNone on success). kPeerClosed also covers socket errors; a stop yields
/// kTimeout. The socket may be blocking or not.
handshake::Failure drive_client_handshake(handshake::ClientHandshake& hs, int fd,
                                          const StopSignal& stop);

/// As above for the server. `on_event` is called (on this thread) for each AuthRequest or
/// JoinRequest and must answer it with accept()/accept_join()/reject() before returning —
/// it may block (Argon2id runs there).
handshake::Failure drive_server_handshake(
    handshake::ServerHandshake& hs, int fd, const StopSignal& stop,
    const std::function<void(handshake::ServerEvent&, handshake::ServerHandshake&)>& on_event);

}  // namespace qeli::engine
