// Which routes a session installs (qeli 0.7.16 §8 "Routes"; docs/OPERATIONS.md "Full or
// split tunnel"). Pure: run_tunnel() applies the plan through the host journal, and
// libqeli's NETWORK_PLAN (ffi/network_plan.cc) is built from the same plan.
//
//   pushed routes: through the TUN, each with its metric (and gateway, for the plan),
//                 unless invalid (not a network, a gateway that is not an address) or
//                 broader than /8 — as 0.7.16's client: a server may not turn a split
//                 tunnel into a full one (a /1 pair or a /0 would capture everything),
//                 that is the user's `gateway` to decide. Refused ones are listed;
//   split tunnel: the accepted pushed routes + `include` + RFC 1918 with `route_local`,
//                 through the TUN;
//   full tunnel:  `gateway = true` (config, or `gateway=1` in a link), never the server:
//                 the server is pinned through the path it uses now, then 0.0.0.0/1 +
//                 128.0.0.0/1 through the TUN — more specific than any default route,
//                 whatever its metric. With IPv6 inside the tunnel (negotiated,
//                 docs/PROTOCOL.md §21) ::/1 + 8000::/1 go through the TUN too; without
//                 it IPv6 is made unreachable unless `allow_ipv6_leak`;
//   `include`:    IPv4 entries through the TUN; IPv6 entries only when the session carries
//                 IPv6 (else they are listed in `not_carried`, for a warning);
//   `exclude`:    through the path the server uses now (an IPv6 entry beside an IPv4
//                 server: through its own path), in both modes;
//   resolvers:    when the session sets the host's DNS to resolvers (client/dns_choice.h),
//                 each gets a /32 through the TUN in a split tunnel too (unless a route
//                 for exactly it is there already): a resolver outside the pushed routes
//                 (a public one in `dns_servers`, a pushed 1.1.1.1) would otherwise be
//                 asked directly, outside the tunnel (the trial saw it). An IPv6 one
//                 (x_dns6) gets a /128, when the session carries IPv6.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/client_config.h"
#include "handshake/auth_ok.h"

namespace qeli::client {

/// Why a route goes through the TUN (an app's plan gives each kind 0.7.16's metric).
enum class RouteSource : std::uint8_t { kPushed, kInclude, kLocal, kResolver, kFullTunnel };

struct TunRoute {
  std::string cidr;
  std::uint32_t metric = 0;  ///< the pushed metric; 0 for the client's own routes
  RouteSource source = RouteSource::kPushed;
  std::string gateway;  ///< a pushed route's own gateway (empty: the server's tunnel address)
};

/// A pushed route the plan refused, and why (for the log).
struct RefusedRoute {
  std::string cidr;
  std::string why;
};

/// The narrowest prefix length a pushed route may have (0.7.16's client: a /8 is the widest
/// site-to-site route; anything broader redefines the client's default route).
inline constexpr std::uint8_t kMinPushedPrefix = 8;

struct RoutePlan {
  bool full_tunnel = false;               ///< `gateway`: the config's, never the server's
  std::vector<TunRoute> via_tun;          ///< through the TUN, in order
  std::vector<RefusedRoute> refused;      ///< pushed routes left out
  bool pin_server = false;                ///< the server's address via the current path
  std::vector<std::string> via_underlay;  ///< `exclude`: via the current path to the server
  bool blackhole_ipv6 = false;            ///< ::/1 and 8000::/1 unreachable
  /// IPv6 `include` entries left out: the session carries no IPv6.
  std::vector<std::string> not_carried;
};

/// `resolvers`: the resolvers the session points the host's DNS at (empty if it leaves
/// DNS alone); IPv6 ones are routed only with `ipv6_inside`. `ipv6_inside`: the session carries
/// IPv6 (pushed IPv6 routes are kept only then).
RoutePlan plan_routes(const config::ClientConfig& cfg,
                      const std::vector<handshake::PushedRoute>& pushed,
                      const std::vector<std::string>& resolvers = {}, bool ipv6_inside = false);

}  // namespace qeli::client
