// The sockets a profile listens on: `bind.address`:`bind.port` first, then every `listen`
// endpoint (reference §5.8 "optional extra listen endpoints", same transport). Addresses
// are numeric IPv4 or IPv6 (the config loader refuses names); an IPv6 address listens on
// IPv6 only, so `::` and `0.0.0.0` on one port are two listeners (transport/tcp.h).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/server_config.h"
#include "transport/sock_addr.h"

namespace qeli::server {

/// Errors: an address that is not numeric, or the same address and port twice.
Result<std::vector<transport::SockAddr>, std::string> listen_addresses(
    const config::ProfileConfig& p);

/// "0.0.0.0:443" or "[::]:443, 192.0.2.1:8443" for the start-up line; the first address
/// is shown with `first_port` (the port actually bound).
std::string describe_listeners(const std::vector<transport::SockAddr>& addrs,
                               std::uint16_t first_port);

}  // namespace qeli::server
