// Server NAT as one nftables table of our own per profile (`inet qeli_nat_<profile>`):
//
//   table inet qeli_nat_<profile> {
//     chain postrouting  (nat, hook postrouting, priority srcnat)
//       [oifname "<wan>"] ip saddr <pool> masquerade      -- one rule per pool, v4 and v6
//     chain forward      (filter, hook forward, priority filter, policy accept)
//       iifname/oifname "<tun>" tcp SYN: tcp option maxseg size set rt mtu   (MSS clamp)
//       iifname "<tun>" accept
//       oifname "<tun>" ct state established,related accept
//       oifname "<tun>" ip6 daddr <guarded> drop           -- one rule per guarded prefix
//     chain prerouting   (nat, hook prerouting, priority dstnat)   -- with a DNS bridge only
//       iifname "<tun>" ip daddr <dns> udp|tcp dport 53 dnat ip to <dns>:<port>
//   }
//
// The DNS bridge is 0.7.16's REDIRECT of 53 to a proxy on another dns.port: clients are
// always told port 53 (no client platform takes another), so the kernel takes them to the
// proxy's port. Explicit dnat rather than `redirect`, which would pick the TUN's first
// address, not necessarily the proxy's. The postrouting and forward chains are written only
// when there is a pool to masquerade or guard.
//
// The MSS clamp rewrites the MSS option of forwarded SYNs to the route's path MTU minus
// the headers, so TCP through the tunnel never sends segments that would have to be
// fragmented (nft(8) "EXTENSION HEADER EXPRESSIONS", "rt mtu"). The table never touches
// other tables: a drop policy in someone else's forward chain still applies (every base
// chain on a hook must accept a packet).
//
// apply_nat() deletes a stale table of the same name (from a crashed run) and creates the
// new one in ONE transaction, so exactly one qeli NAT table per profile ever exists.
// Compared with the reference's iptables rules tagged by comment (§9), a table of our
// own is removed whole and cannot be half-applied.
//
// A guarded prefix (a routed IPv6 pool, `routing.ipv6.inbound = stateful`) takes from
// outside only what answers its clients' own connections: the clients' real addresses are
// not opened to the internet by the tunnel.
//
// Forwarding is a separate switch: enable_forwarding(kV4) (sysctl.h), and kV6 too when a
// pool is IPv6.
#pragma once

#include <string>
#include <vector>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"
#include "sys/nft_context.h"

namespace qeli::sys {

struct NatSpec {
  std::string profile;          ///< [A-Za-z0-9_.-]{1,32}; the table is qeli_nat_<profile>
  std::string tun;              ///< the profile's tunnel interface
  std::string wan;              ///< egress interface to masquerade out of; empty = any but tun
  std::vector<IpPrefix> pools;  ///< client address pools masqueraded (IPv4 and/or IPv6)
  bool mss_clamp = true;
  /// Pools forwarded as they are, closed to new connections from outside (at least one
  /// prefix in `pools` or here).
  std::vector<IpPrefix> guarded;
  /// The DNS proxy's addresses (v4/v6) whose port 53, reached through the TUN, is taken to
  /// `dns_port` (udp and tcp). Empty, or dns_port 53: no bridge.
  std::vector<IpAddress> dns_bridge;
  std::uint16_t dns_port = 53;
};

/// "qeli_nat_<profile>".
std::string nat_table_name(const std::string& profile);

/// The nft script apply_nat() runs (pure; kInvalidArgument for a bad name, or for neither
/// a pool nor a DNS bridge).
HostResult<std::string> nat_script(const NatSpec& spec);

/// Replaces (atomically) or creates the profile's NAT table. kNftables with nft's message
/// if the kernel refuses it (then nothing changed, a stale table stays as it was).
HostStatus apply_nat(NftContext& nft, const NatSpec& spec);

/// Removes the profile's NAT table. Returns false if there was none.
HostResult<bool> remove_nat(NftContext& nft, const std::string& profile);

}  // namespace qeli::sys
