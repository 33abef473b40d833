// AllowedSources: the networks, of both families, whose hosts a local service of a profile
// answers — the DNS proxy's tunnel pools and loopback. Its address is reachable from
// other interfaces too, and an open resolver would serve amplification attacks: the
// caller drops (and counts) every other source.
//
// Thread-safety: immutable after construction; allows() from any thread.
#pragma once

#include <vector>

#include "config/ipv6_cidr.h"
#include "config/values.h"
#include "transport/sock_addr.h"

namespace qeli::server {

class AllowedSources {
 public:
  /// Allows nothing.
  AllowedSources() = default;
  AllowedSources(std::vector<config::Ipv4Cidr> v4, std::vector<config::Ipv6Cidr> v6)
      : v4_(std::move(v4)), v6_(std::move(v6)) {}

  /// True if a network of `a`'s family holds its address (an unset address: false).
  bool allows(const transport::SockAddr& a) const;

 private:
  std::vector<config::Ipv4Cidr> v4_;
  std::vector<config::Ipv6Cidr> v6_;
};

}  // namespace qeli::server
