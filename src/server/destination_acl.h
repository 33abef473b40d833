// DestinationAcl: the per-user destination ACL (`allowed_networks`, qeli 0.7.16 §5.6 and
// §9), checked on the server's inbound path for every IPv4 and IPv6 packet a client sends into the
// TUN, after the source check.
//
// Which list applies (docs/CONFIG.md §6): the user's own `allowed_networks` if it is
// non-empty; otherwise the user's group's list; an empty result allows every destination.
// The lists are not merged: a user list is an override, so an operator can narrow (or
// widen) one member of a group without editing the group.
//
// Thread-safety: immutable after construction; allows() may be called from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "config/server_config.h"

namespace qeli::server {

class DestinationAcl {
 public:
  /// Allows everything.
  DestinationAcl() = default;
  explicit DestinationAcl(std::vector<config::Ipv4Cidr> networks,
                          std::vector<config::Ipv6Cidr> networks6 = {});

  /// The ACL for `user` (may be null: allow all) in `group` (may be null: no group).
  static DestinationAcl for_user(const config::UserConfig* user, const config::GroupConfig* group);

  /// `dst` is a host-order IPv4 address. True if the ACL is empty or a network holds it.
  bool allows(std::uint32_t dst) const;
  /// `dst` is the 16 bytes of an IPv6 address. True if the ACL is empty (of both
  /// families) or an IPv6 network holds it: a list of IPv4 networks allows no IPv6.
  bool allows6(const std::uint8_t* dst) const;
  bool unrestricted() const { return networks_.empty() && networks6_.empty(); }
  /// Some IPv6 destination is allowed (AUTH OK offers IPv6 inside only then).
  bool allows_some_ipv6() const { return unrestricted() || !networks6_.empty(); }
  const std::vector<config::Ipv6Cidr>& networks6() const { return networks6_; }
  const std::vector<config::Ipv4Cidr>& networks() const { return networks_; }

 private:
  std::vector<config::Ipv4Cidr> networks_;
  std::vector<config::Ipv6Cidr> networks6_;
};

}  // namespace qeli::server
