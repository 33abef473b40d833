// Builds the AUTH OK a profile pushes to a newly admitted client (qeli 0.7.16 §3.4):
// addresses, MTU, DNS, routes (a user's own routes REPLACE the profile's), the
// data-plane knobs under `obfuscation`, the bonding token and stream limits.
#pragma once

#include <cstdint>

#include "config/server_config.h"
#include "handshake/auth_ok.h"

namespace qeli::server {

/// `offer_ipv6`: the user may reach some IPv6 destination (server/destination_acl.h):
/// only then, and only for an address inside pool.cidr, does it carry the session's IPv6
/// addresses (x_ip6, x_server_ip6) of a profile with pool.ipv6.cidr, and its IPv6 resolver
/// (x_dns6: the first IPv6 entry of dns.push_servers, else dns.listen_ipv6).
handshake::AuthOk build_auth_ok(const config::ProfileConfig& profile,
                                const config::UserConfig* user, std::uint32_t client_ip,
                                const handshake::JoinToken& token, bool offer_ipv6 = true);

/// Streams a session of `profile` may bond (0.7.16 §3.8): obf.multipath.max_streams on
/// a TCP profile with obf.multipath.enabled, at most 16 (every client's cap), else 1.
std::size_t bond_max_streams(const config::ProfileConfig& profile);

/// The `obfuscation` JSON object of a profile (padding, heartbeat, traffic_normalization,
/// traffic_shaping), as pushed in AUTH OK.
std::string obfuscation_json(const config::ObfConfig& obf);

}  // namespace qeli::server
