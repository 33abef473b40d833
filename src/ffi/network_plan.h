// The NETWORK_PLAN event's JSON (transport-core ABI 1.0 fields, 1.6 and 1.8 additions):
// what the app installs before the core carries a packet. Built from what the server
// pushed in AUTH OK (already validated by handshake::parse_auth_ok) and the profile:
//
//   {"generation", "tunnel_address", "prefix_len", "mtu", "tunnel_gateway",
//    "carrier_address",                    // the server address the session runs over
//                                           // (absent for a plan of an app's handshake)
//    "routes": [{"cidr","gateway","metric"}],  // as 0.7.16: the accepted pushed routes
//                                           // (their gateway, metric), include and
//                                           // route_local (100), split-tunnel resolvers
//                                           // (50); never a full tunnel's /1 halves
//    "pushed_routes": ["cidr", …],          // the accepted pushed ones (IPv6 too with IPv6)
//    "dns_servers": [{"address","port"}], "full_tunnel", "kill_switch",
//    "max_streams", "adaptive",
//    "data_plane": {"padding_enabled","padding_min","padding_max","heartbeat_enabled",
//                   "heartbeat_interval_ms","shaping_enabled"},
//    "connection_log": ["…"],              // ≤ 280 lines, sanitized (sanitize_log_line)
//    "excluded_routes": ["cidr", …],        // ours, additive: `exclude`, outside the tunnel
//    // ours, additive, only when the session carries IPv6 (QELI_PLATFORM_X_IPV6):
//    "tunnel_address6", "prefix_len6", "tunnel_gateway6",
//    "routes6": [{"cidr","gateway","metric"}]}  // IPv6 routes via the TUN, as "routes"
// With IPv6, "dns_servers" may hold the pushed IPv6 resolver and "excluded_routes" IPv6
// networks; without it both stay IPv4 (an app of the original could refuse the plan).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/core/client_env.h"
#include "config/client_config.h"

namespace qeli::ffi {

struct PlanInputs {
  std::uint64_t generation = 0;
  /// Resolvers the app supplied for a profile and server that name none (run input).
  std::vector<std::string> fallback_dns;
  std::vector<std::string> connection_log;
  /// The session carries IPv6 and the app applies it: the plan's IPv6 fields are filled.
  bool ipv6 = false;
  /// TunnelConfig::server is the carrier's address (false for a plan from an app's own
  /// handshake, ABI 1.5: "carrier_address" is left out, as 0.7.16 leaves it).
  bool carrier_known = true;
};

/// A NETWORK_PLAN event's payload and what applying it takes.
struct NetworkPlan {
  std::string json;
  /// QELI_PLATFORM_* bits the app must have declared (0.7.16 NetworkPlan::
  /// required_capabilities): ROUTES for a full tunnel or any route, DNS for any resolver,
  /// KILL_SWITCH when the plan's kill_switch is on.
  std::uint64_t required_caps = 0;
};

/// Limits of a plan (0.7.16's NetworkPlan::validate; Android's decoder refuses more): a
/// plan over them is not sent, the run fails with why.
inline constexpr std::size_t kMaxPlanRoutes = 256;  // "routes", "pushed_routes", "routes6"
inline constexpr std::size_t kMaxPlanDnsServers = 8;
inline constexpr std::size_t kMaxLogLines = kMaxPlanRoutes + 24;
inline constexpr std::size_t kMaxLogLineBytes = 1024;

/// The plan, or why there is none (0.7.16's words).
Result<NetworkPlan, std::string> build_network_plan(const client::TunnelConfig& tc,
                                                    const config::ClientConfig& cfg,
                                                    const PlanInputs& in);

/// A connection_log line as 0.7.16 sends one: invalid UTF-8 replaced (U+FFFD), control
/// characters as spaces, at most kMaxLogLineBytes bytes (never half a character).
std::string sanitize_log_line(std::string_view line);

/// The plan's kill_switch, as 0.7.16's: the profile's, in a full tunnel only (a split
/// tunnel has no kill switch to engage).
bool plan_kill_switch(const config::ClientConfig& cfg, bool full_tunnel);

}  // namespace qeli::ffi
