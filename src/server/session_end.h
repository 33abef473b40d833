// How a server session learns what its client supports and how it ends: the capability
// frame and client info the client sends after AUTH OK, and our close extension
// (caps::kCloseNotify, wire/session_close.h) — a client that answered the offer is told
// why before the server ends its session; the log names the same reason.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "config/server_config.h"
#include "server/session.h"
#include "tunnel/session.h"
#include "tunnel/session_end.h"
#include "wire/control_frame.h"

namespace qeli::server {

/// Handles a control frame from the client of `s` on one of its connections, whose
/// tunnel::Receiver took capabilities and the MTU into `peer` (s.peer_state, or a bonded
/// stream's own): its session-close frame (only when that connection took close
/// notify), which ends `s` now with CloseReason::kClientStopping and no frame back;
/// other types go to apply_client_control (MTU report against `profile_mtu` bytes,
/// client info; server/session_control.h). Malformed frames and unknown types are ignored.
void on_client_control(Session& s, const tunnel::PeerState& peer, const wire::ControlFrame& f,
                       std::uint32_t profile_mtu, std::string_view profile);

/// The data-phase settings of one TCP connection carrying `s` (its first, or a bonded
/// stream's): the profile's pushed padding and heartbeat, its MTU and idle timeout (on
/// the counters all streams share), the session's inbound checks and farewell, receive
/// of what `offered_caps` offered (GSO chunks), and control frames into `peer` (that
/// connection's PeerState). `profile` outlives the session.
tunnel::SessionParams stream_params(const config::ProfileConfig& profile, Session& s,
                                    tunnel::PeerState& peer, std::uint32_t offered_caps);

/// The farewell hook for the session's sender (tunnel::SenderParams::farewell): the close
/// frame for why the server is ending the session — the reason recorded by Session::end,
/// or kIdle when the data phase hit the idle timeout (also recorded then) — and nothing
/// for a client without the extension, a client that said goodbye itself
/// (kClientStopping), or a session the peer or the network ended.
std::function<Bytes(tunnel::SessionEnd)> farewell_for(Session& s);

/// The reason for the disconnect log line: the close reason when the server ended the
/// session on purpose (kicked, superseded, stopping, disabled, idle) or the client said
/// it is stopping (whatever the engine saw first), else the engine's.
std::string describe_end(const Session& s, tunnel::SessionEnd end);

}  // namespace qeli::server
