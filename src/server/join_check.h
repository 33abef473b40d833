// Whether a JOIN may add a stream to `session`, as far as its proof goes (our extension
// to 0.7.16's bearer token, docs/PROTOCOL.md §19): a proof that comes must match the
// session's join secret over this connection's transcript; none may come only while
// the session's client is not known to be ours (0.7.16 clients never send one).
// The token lookup and max_streams are the caller's (SessionTable, StreamBond).
#pragma once

#include <string>

#include "handshake/server_handshake.h"
#include "server/session.h"

namespace qeli::server {

/// Empty when the JOIN passes; otherwise why not (for the refusal's log line).
std::string join_proof_refusal(const Session& session, const handshake::JoinRequest& join);

}  // namespace qeli::server
