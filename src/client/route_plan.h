// Which routes a session installs (qeli 0.7.16 §8 "Routes"; docs/OPERATIONS.md "Full or
// split tunnel"). Pure: run_tunnel() applies the plan through the host journal.
//
//   split tunnel: the pushed routes (each with its metric) + `include` + RFC 1918 with
//                 `route_local`, through the TUN;
//   full tunnel:  `gateway = true` (config, or `gateway=1` in a link) OR a pushed default
//                 route (0.0.0.0/0): the server is pinned through the path it uses now,
//                 then 0.0.0.0/1 + 128.0.0.0/1 through the TUN — more specific than any
//                 default route, whatever its metric, so it really takes precedence (a
//                 pushed /0 installed as is, metric 100, sat below the host's default
//                 route and changed nothing: the trial). With IPv6 inside the tunnel
//                 (negotiated, docs/PROTOCOL.md §21) ::/1 + 8000::/1 go through the TUN
//                 too; without it IPv6 is made unreachable unless `allow_ipv6_leak`;
//   `include`:    IPv4 entries through the TUN; IPv6 entries only when the session carries
//                 IPv6 (else they are listed in `not_carried`, for a warning);
//   `exclude`:    through the path the server uses now (an IPv6 entry beside an IPv4
//                 server: through its own path), in both modes;
//   resolvers:    when the session sets the host's DNS to resolvers (client/dns_choice.h),
//                 each gets a /32 through the TUN in a split tunnel too: a resolver outside
//                 the pushed routes (a public one in `dns_servers`, a pushed 1.1.1.1) would
//                 otherwise be asked directly, outside the tunnel (the trial saw it). An
//                 IPv6 one (x_dns6) gets a /128, when the session carries IPv6.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/client_config.h"
#include "handshake/auth_ok.h"

namespace qeli::client {

struct TunRoute {
  std::string cidr;
  std::uint32_t metric = 0;
};

struct RoutePlan {
  bool full_tunnel = false;
  bool pushed_default = false;            ///< full because the server pushed 0.0.0.0/0
  std::vector<TunRoute> via_tun;          ///< through the TUN, in order
  bool pin_server = false;                ///< the server's address via the current path
  std::vector<std::string> via_underlay;  ///< `exclude`: via the current path to the server
  bool blackhole_ipv6 = false;            ///< ::/1 and 8000::/1 unreachable
  /// IPv6 `include` entries left out: the session carries no IPv6.
  std::vector<std::string> not_carried;
};

/// True for a pushed route that covers everything (0.0.0.0/0 in any spelling).
bool is_default_route(const std::string& cidr);

/// `resolvers`: the resolvers the session points the host's DNS at (empty if it leaves
/// DNS alone); IPv6 ones are routed only with `ipv6_inside`. `ipv6_inside`: the session carries
/// IPv6 (pushed IPv6 routes are kept only then).
RoutePlan plan_routes(const config::ClientConfig& cfg,
                      const std::vector<handshake::PushedRoute>& pushed,
                      const std::vector<std::string>& resolvers = {}, bool ipv6_inside = false);

}  // namespace qeli::client
