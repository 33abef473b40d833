// What a profile's config means for one session's data phase, on either carrier: the
// padding and heartbeat policies (`obf.padding.*`, `obf.heartbeat.*`) and the inbound
// filter every decrypted packet passes before the TUN (qeli 0.7.16 §9: the source must be
// the client's tunnel IP or one of its `client_subnet`s; `client_to_client = false` keeps
// clients from reaching each other; `allowed_networks` limits the destinations).
#pragma once

#include <functional>
#include <memory>

#include "base/bytes.h"
#include "config/server_config.h"
#include "engine/padding_policy.h"
#include "server/auth_context.h"
#include "server/session.h"

namespace qeli::server {

/// `obf.padding.*` and `obf.traffic_normalization.*` as the data path applies them.
engine::PaddingPolicy padding_of(const config::ObfConfig& o);
engine::HeartbeatPolicy heartbeat_of(const config::HeartbeatConfig& h);

/// The filter for `session` (which must outlive it): true = deliver, false = drop
/// (counted in the session's drop_bad_source / drop_policy). `ctx.user` may be null; the
/// user's and group's `allowed_networks` are fixed for the session's life, like the rest
/// of what it was admitted with. Precondition of the returned function: the packet is
/// IPv4, at least 20 bytes.
std::function<bool(ByteSpan)> inbound_filter(Session* session, const config::ProfileConfig& p,
                                             const AuthContext& ctx);

}  // namespace qeli::server
