// Client kill switch as one nftables table of our own per tunnel interface
// (`inet qeli_ks_<tun>`), for IPv4 and IPv6 at once:
//
//   table inet qeli_ks_<tun> {
//     set servers4 { type ipv4_addr }   set servers6 { type ipv6_addr }   -- refreshable
//     set dns4     { type ipv4_addr }   set dns6     { type ipv6_addr }
//     chain output  (filter, hook output, priority filter, policy drop)
//       oifname "lo" accept;  oifname "<tun>" accept
//       DHCPv4 (udp 68->67) and DHCPv6 (udp 546->547) accept        (allow_dhcp)
//       IPv6 neighbour discovery / router solicitation accept       (to reach a v6 server)
//       ip[6] daddr @dns4/@dns6 udp/tcp dport 53 accept
//       ip[6] daddr @servers4/@servers6 accept
//       counter drop
//     chain forward (only in gateway mode; policy drop)
//       iifname "<tun>" accept;  oifname "<tun>" accept;  counter drop
//   }
//
// Life cycle (reference/qeli-0.7.16.md §8 "Kill switch", done with nftables instead of
// iptables chains): engage_kill_switch() BEFORE the first connect; refresh_servers() on
// every reconnect (the server name may resolve differently); lift_kill_switch() on a clean
// stop only. A crash leaves the host locked on purpose — cleanup_kill_switch() (from
// `qeli client --cleanup` or the host journal) removes a leftover table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"
#include "sys/nft_context.h"

namespace qeli::sys {

struct KillSwitchSpec {
  std::string tun;                   ///< the tunnel interface (allowed)
  std::vector<IpAddress> servers;    ///< the server's resolved addresses (any port)
  std::vector<IpAddress> resolvers;  ///< the configured resolvers (port 53 only)
  bool gateway_mode = false;         ///< also filter forwarded traffic (router mode)
  bool allow_dhcp = true;
};

/// "qeli_ks_<tun>".
std::string kill_switch_table_name(const std::string& tun);

/// The script engage_kill_switch() runs (pure; kInvalidArgument for a bad interface name).
HostResult<std::string> kill_switch_script(const KillSwitchSpec& spec);

/// Creates the table, replacing a leftover one of the same interface in the same
/// transaction (so there is no moment without the kill switch).
HostStatus engage_kill_switch(NftContext& nft, const KillSwitchSpec& spec);

/// Replaces the server sets' contents in one transaction (flush + add): no packet is
/// judged against an empty set in between. kNotFound if the kill switch is not engaged.
HostStatus refresh_servers(NftContext& nft, const std::string& tun,
                           const std::vector<IpAddress>& servers);

/// Removes the table (a clean stop). Returns false if it was not there.
HostResult<bool> lift_kill_switch(NftContext& nft, const std::string& tun);

/// The tunnel names of the kill-switch tables in this network namespace (from "list
/// tables"), e.g. {"vpn0"} for `table inet qeli_ks_vpn0`.
HostResult<std::vector<std::string>> kill_switch_tunnels(NftContext& nft);

/// The tunnel names in `list tables` output (pure; the parser of kill_switch_tunnels()).
std::vector<std::string> parse_kill_switch_tunnels(std::string_view list_tables_output);

/// Removes a table left by a crashed run; the same as lift_kill_switch(), named for the
/// `--cleanup` path so that call sites read as what they mean.
inline HostResult<bool> cleanup_kill_switch(NftContext& nft, const std::string& tun) {
  return lift_kill_switch(nft, tun);
}

}  // namespace qeli::sys
