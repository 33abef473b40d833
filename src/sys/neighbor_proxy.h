// NDP proxy entries (RFC 4861 §7.2.8 "proxy advertisements"; ip-neighbour(8) `proxy`):
// with net.ipv6.conf.<uplink>.proxy_ndp = 1 the kernel answers a Neighbor Solicitation
// on the uplink for every address that has a proxy entry there, so a router that thinks
// a VPN client's IPv6 address is on-link (a VPS's /64) delivers its packets to this host,
// which forwards them into the tunnel. One entry per client address, added while it is
// routed to a session (routing.ipv6.ndp_proxy; docs/CONFIG.md).
//
// Uses its own rtnetlink socket (the calling thread's network namespace at open()).
// Needs CAP_NET_ADMIN for add/remove (kept after the server's privilege drop); the
// sysctl is written at start-up, before it. Not thread-safe: callers serialise.
#pragma once

#include <optional>
#include <string>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"

struct nl_sock;

namespace qeli::sys {

class NeighborProxy {
 public:
  /// Opens the socket and resolves `ifname` (kNotFound when it has no such interface).
  static HostResult<NeighborProxy> open(const std::string& ifname);
  NeighborProxy(NeighborProxy&&) noexcept;
  NeighborProxy& operator=(NeighborProxy&&) noexcept;
  ~NeighborProxy();

  /// RTM_NEWNEIGH with NTF_PROXY for `addr` (IPv6) on the interface; replaces an entry.
  HostStatus add(const IpAddress& addr);
  /// RTM_DELNEIGH of that entry; an entry already gone is not an error.
  HostStatus remove(const IpAddress& addr);
  /// Deletes every proxy entry on the interface inside `within` (those a server that
  /// died left behind); returns how many.
  HostResult<std::size_t> flush(const IpPrefix& within);

  const std::string& ifname() const { return ifname_; }

 private:
  NeighborProxy(nl_sock* sock, std::string ifname, int ifindex);
  HostStatus change(const IpAddress& addr, bool add);

  nl_sock* sock_ = nullptr;
  std::string ifname_;
  int ifindex_ = 0;
};

/// The interface other than `except` with a global IPv6 address whose on-link prefix
/// (the address's prefix length) holds all of `pool`: where the upstream router
/// solicits the pool's addresses. The narrowest such prefix wins; nullopt when none.
HostResult<std::optional<std::string>> onlink_interface_for(const IpPrefix& pool,
                                                            const std::string& except);

/// net.ipv6.conf.<ifname>.proxy_ndp.
std::string proxy_ndp_key(const std::string& ifname);

}  // namespace qeli::sys
