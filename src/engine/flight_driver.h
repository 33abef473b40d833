// Runs a sans-I/O flight — the qeli handshake (handshake::ClientHandshake /
// ServerHandshake) or a stream layer's own set-up (transport::StreamSetup) — over a
// transport::Stream: sends its output (honouring the per-chunk delays that disguise the
// flight), feeds it what the stream delivers, fires its timer at its deadline, and stops
// early on the stop signal.
//
// `prefix`: bytes already read from the stream before the machine existed (REALITY's
// peek at a ClientHello, or what a lower layer's set-up read past its end). They are
// fed to the machine first, as if they had just arrived.
//
// The machine must have been start()ed. It reads only as far as it needs: whatever the
// stream delivered past the end of the flight stays in the machine (its leftover).
#pragma once

#include <functional>

#include "base/bytes.h"
#include "engine/stop_signal.h"
#include "handshake/client_handshake.h"
#include "handshake/server_handshake.h"
#include "transport/stream.h"
#include "transport/stream_setup.h"

namespace qeli::engine {

/// Drives `hs` until it is done or failed. Returns the failure reason (kNone on
/// success). kPeerClosed also covers stream errors; a stop yields kTimeout.
handshake::Failure drive_client_handshake(handshake::ClientHandshake& hs, transport::Stream& s,
                                          const StopSignal& stop, ByteSpan prefix = {});

/// As above for the server. `on_event` is called (on this thread) for each AuthRequest or
/// JoinRequest and must answer it with accept()/accept_join()/reject() before returning —
/// it may block (Argon2id runs there).
handshake::Failure drive_server_handshake(
    handshake::ServerHandshake& hs, transport::Stream& s, const StopSignal& stop,
    const std::function<void(handshake::ServerEvent&, handshake::ServerHandshake&)>& on_event,
    ByteSpan prefix = {});

/// Drives a layer's set-up over the stream below it until it is done or failed; a stop
/// fails it. Returns its final state (kDone: call setup.into_stream(lower)).
transport::SetupState drive_stream_setup(transport::StreamSetup& setup, transport::Stream& lower,
                                         const StopSignal& stop, ByteSpan prefix = {});

}  // namespace qeli::engine
