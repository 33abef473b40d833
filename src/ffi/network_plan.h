// The NETWORK_PLAN event's JSON (transport-core ABI 1.0 fields, 1.6 and 1.8 additions):
// what the app installs before the core carries a packet. Built from what the server
// pushed in AUTH OK (already validated by handshake::parse_auth_ok) and the profile:
//
//   {"generation", "tunnel_address", "prefix_len", "mtu", "tunnel_gateway",
//    "carrier_address",                    // the server address the session runs over
//    "routes": [{"cidr","gateway","metric"}],  // client/route_plan.h's routes via the TUN
//    "pushed_routes": ["cidr", …],          // as the server pushed them
//    "dns_servers": [{"address","port"}], "full_tunnel", "kill_switch",
//    "max_streams", "adaptive",
//    "data_plane": {"padding_enabled","padding_min","padding_max","heartbeat_enabled",
//                   "heartbeat_interval_ms","shaping_enabled"},
//    "connection_log": ["…"],
//    "excluded_routes": ["cidr", …]}        // ours, additive: `exclude`, outside the tunnel
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/core/client_env.h"
#include "config/client_config.h"

namespace qeli::ffi {

struct PlanInputs {
  std::uint64_t generation = 0;
  /// Resolvers the app supplied for a profile and server that name none (run input).
  std::vector<std::string> fallback_dns;
  std::vector<std::string> connection_log;
};

std::string network_plan_json(const client::TunnelConfig& tc, const config::ClientConfig& cfg,
                              const PlanInputs& in);

}  // namespace qeli::ffi
