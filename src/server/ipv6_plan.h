// A profile's IPv6 address plan (pool.ipv6.cidr, docs/PROTOCOL.md §21): IPv6 inside the
// tunnel without a second pool. Each session's IPv6 address is the IPv6 network plus its
// IPv4 address's host offset in pool.cidr, so the IPv4 address stays the one session key:
//
//   pool.cidr 10.9.0.0/24, pool.ipv6.cidr fd00:9::/64
//   tun.address 10.9.0.1 → the server's fd00:9::1;  client 10.9.0.5 → fd00:9::5
//
// The TUN reader maps an IPv6 destination back to the IPv4 key (ipv4_of) with a prefix
// compare and a subtraction: no second table, nothing allocated per packet.
#pragma once

#include <cstdint>
#include <optional>

#include "config/server_config.h"

namespace qeli::server {

class Ipv6Plan {
 public:
  /// The plan of `p`; nullopt when it has no pool.ipv6.cidr. Relies on the loader's checks
  /// (a /64../126 with at least pool.cidr's host bits).
  static std::optional<Ipv6Plan> of(const config::ProfileConfig& p);

  /// The IPv6 address of the session whose IPv4 address is `ip` (host order, in pool.cidr).
  config::Ipv6Addr address_of(std::uint32_t ip) const;
  /// The server's IPv6 address in the tunnel (tun.address's offset).
  config::Ipv6Addr server_address() const { return address_of(server_ip_); }
  /// The IPv4 session key for the 16 bytes at `addr`; nullopt outside pool.ipv6.cidr or
  /// past pool.cidr's host offsets.
  std::optional<std::uint32_t> ipv4_of(const std::uint8_t* addr) const;
  const config::Ipv6Cidr& cidr() const { return cidr_; }

 private:
  Ipv6Plan(const config::Ipv6Cidr& cidr, const config::Ipv4Cidr& pool, std::uint32_t server_ip);

  config::Ipv6Cidr cidr_;
  std::uint64_t low_ = 0;     ///< the network's low 64 bits
  std::uint32_t net4_ = 0;    ///< pool.cidr's network, host order
  std::uint64_t hosts4_ = 0;  ///< pool.cidr's size (2^(32 − prefix))
  std::uint32_t server_ip_ = 0;
};

}  // namespace qeli::server
