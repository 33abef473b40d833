// routing.ipv6.ndp_proxy (docs/CONFIG.md §routing): in route mode, a pool.ipv6.cidr that
// lies inside the on-link prefix of an uplink (a VPS's /64) is reached by the upstream
// router through Neighbor Discovery, not a route: it solicits each client address on the
// link. This piece makes the host answer for the address of every routed session
// (sys/neighbor_proxy.h) and for no other, so a client is reachable exactly while it is
// connected.
//
//   start:  the uplink = the interface whose on-link prefix holds the pool (`auto`: none
//           found → not proxying, said in the log; `required`: none → the profile fails);
//           net.ipv6.conf.<uplink>.proxy_ndp = 1 (the old value kept); stale entries in
//           the pool (a server that died) removed.
//   routed(ip) / unrouted(ip): the entry for the session's IPv6 address (Ipv6Plan).
//   stop:   every entry removed, proxy_ndp put back if it still holds our 1.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "base/result.h"
#include "config/server_config.h"
#include "server/ipv6_plan.h"
#include "server/session_table.h"
#include "sys/neighbor_proxy.h"

namespace qeli::server {

class NdpProxyRuntime final : public RoutedAddressObserver {
 public:
  /// Null without an error when `auto` found no uplink (logged). `tun`: the profile's own
  /// interface, never the uplink.
  static Result<std::unique_ptr<NdpProxyRuntime>, std::string> start(const config::ProfileConfig& p,
                                                                     const Ipv6Plan& plan,
                                                                     const std::string& tun);
  ~NdpProxyRuntime() override;

  void routed(std::uint32_t ip) override;
  void unrouted(std::uint32_t ip) override;
  /// Removes every entry and puts proxy_ndp back. Idempotent.
  void stop();

  const std::string& uplink() const { return proxy_.ifname(); }
  /// Addresses answered for now (IPv4 session keys), for tests.
  std::size_t entries() const;

 private:
  NdpProxyRuntime(std::string profile, Ipv6Plan plan, sys::NeighborProxy proxy,
                  std::string sysctl_before);
  sys::IpAddress address_of(std::uint32_t ip) const;

  std::string profile_;
  Ipv6Plan plan_;
  mutable std::mutex mu_;
  sys::NeighborProxy proxy_;
  std::set<std::uint32_t> live_;
  std::string sysctl_before_;  ///< proxy_ndp's value before start ("1": left alone at stop)
  bool stopped_ = false;
};

}  // namespace qeli::server
