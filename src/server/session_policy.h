// What a profile's config means for one session's data phase, on either carrier: the
// padding and heartbeat policies (`obf.padding.*`, `obf.heartbeat.*`) and the inbound
// filter every decrypted packet passes before the TUN (qeli 0.7.16 §9: the source must be
// the client's tunnel IP or one of the `client_subnet`s its session holds, for IPv6 its
// address of the plan or one of those;
// `client_to_client = false` keeps clients from reaching each other and the networks other
// sessions hold (`client_subnet`); `allowed_networks` limits the
// destinations).
#pragma once

#include <functional>
#include <memory>

#include "base/bytes.h"
#include "config/server_config.h"
#include "server/auth_context.h"
#include "server/destination_acl.h"
#include "server/session.h"
#include "tunnel/carrier_room.h"
#include "tunnel/pushed_params.h"

namespace qeli::server {

/// What a profile's `obf.*` means for its sessions and what AUTH OK pushes to clients
/// (padding, heartbeat, normalization, shaping): the one converter from the INI form.
tunnel::PushedParams pushed_params(const config::ObfConfig& obf);

/// The room the profile's carrier needs around each record (what its sessions' inbox
/// batches reserve): the stream layers' (WebSocket frame headers for obfs with the front; nothing
/// on a bare TCP stream); on UDP the largest envelope a client may pick (the obfs seal around a
/// QUIC short header; the shape is detected per client).
tunnel::CarrierRoom carrier_room(const config::ProfileConfig& p);

/// The filter for `session` (which must outlive it): true = deliver, false = drop
/// (counted in the session's drop_bad_source / drop_policy). `ctx.user` may be null; the
/// user's and group's `allowed_networks` are fixed for the session's life, like the rest
/// of what it was admitted with. Precondition of the returned function: the packet is
/// IPv4 of at least 20 bytes or IPv6 of at least 40 (tunnel::Receiver's check). IPv6:
/// the source must be the session's address of the profile's plan (server/ipv6_plan.h)
/// or inside one of the IPv6 `client_subnet`s the session holds (Session::subnets6).
/// The destination ACL of `ctx`'s user (its own list, else its group's; none: all).
DestinationAcl destination_acl(const AuthContext& ctx);
std::function<bool(ByteSpan)> inbound_filter(Session* session, const config::ProfileConfig& p,
                                             const AuthContext& ctx);

}  // namespace qeli::server
