// Routes through rtnetlink (libnl-route-3): add, delete, list, and ask the kernel which
// route it would use for an address (RTM_GETROUTE, the `ip route get` query) — the
// building blocks of split/full tunnel routing, server pinning and IPv6 blackholing
// (reference/qeli-0.7.16.md §8 "Routes").
//
// Every route that qeli installs carries the routing protocol kQeliRouteProtocol
// (rtm_protocol, see rtnetlink(7)). remove() sends that protocol in its request, and the
// kernel only deletes a route whose protocol matches, so a cleanup can never delete a
// route that somebody else installed with the same prefix.
//
// Thread-safety: one RouteTable is one netlink socket; use it from one thread at a time.
// Network namespace: the socket is bound to the namespace of the thread that called
// open(); every later call acts there, whichever thread makes it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"

struct nl_sock;

namespace qeli::sys {

/// rtm_protocol of qeli's routes ("proto 113" in `ip route`; unused by the values in
/// iproute2's rt_protos). Name it with /etc/iproute2/rt_protos.d/qeli.conf: "113 qeli".
inline constexpr std::uint8_t kQeliRouteProtocol = 113;
/// RT_TABLE_MAIN.
inline constexpr std::uint32_t kMainTable = 254;

enum class RouteType : std::uint8_t {
  kUnicast,      ///< RTN_UNICAST: via a device and/or a gateway
  kBlackhole,    ///< RTN_BLACKHOLE: silently dropped
  kUnreachable,  ///< RTN_UNREACHABLE: dropped with ICMP unreachable (EHOSTUNREACH locally)
};

struct Route {
  IpPrefix dst;
  std::optional<IpAddress> gateway;  ///< next hop; same family as dst
  std::string dev;                   ///< output interface; empty for blackhole/unreachable
  std::uint32_t metric = 0;          ///< RTA_PRIORITY; 0 = kernel default (1024 for IPv6)
  RouteType type = RouteType::kUnicast;
  std::uint32_t table = kMainTable;
  std::uint8_t protocol = kQeliRouteProtocol;

  /// "10.0.0.0/8 via 192.0.2.1 dev eth0 metric 5 table 254 proto 113" (for logs).
  std::string to_string() const;
};

/// What RTM_GETROUTE answers for one destination.
struct RouteLookup {
  IpAddress dst;
  std::optional<IpAddress> gateway;  ///< empty: the destination is on-link
  std::string dev;
  int ifindex = 0;
  std::optional<IpAddress> pref_src;  ///< the source address the kernel would pick
};

/// The host route (/32 or /128) that pins `lookup.dst` to the path the kernel uses now
/// (same gateway and device): installed before a full-tunnel default so that the carrier
/// to the server keeps using the physical network.
Route pin_route(const RouteLookup& lookup, std::uint32_t metric = 0);

class RouteTable {
 public:
  /// Opens a NETLINK_ROUTE socket in the calling thread's network namespace.
  static HostResult<RouteTable> open();

  RouteTable(RouteTable&&) noexcept;
  RouteTable& operator=(RouteTable&&) noexcept;
  ~RouteTable();

  /// Adds `r` (NLM_F_CREATE | NLM_F_EXCL): kExists if an identical route is there,
  /// kNotFound if `r.dev` does not exist, kInvalidArgument if families mix or a unicast
  /// route has neither device nor gateway; other kernel refusals are kNetlink with
  /// libnl's message as detail.
  HostStatus add(const Route& r);

  /// Deletes the route matching dst, table, type, metric and protocol (and the gateway /
  /// device when given). kNotFound if the kernel has no such route.
  HostStatus remove(const Route& r);

  /// All routes of one family in `table` (every table if `table` is 0). Multipath routes
  /// are reported with their first next hop.
  HostResult<std::vector<Route>> list(IpFamily family, std::uint32_t table = kMainTable);

  /// The route the kernel would use to reach `dst` now. kUnreachable if none.
  HostResult<RouteLookup> lookup(const IpAddress& dst);

  /// The interface index of `dev` in this socket's namespace; kNotFound if absent.
  HostResult<int> ifindex(const std::string& dev);

 private:
  explicit RouteTable(nl_sock* sock);
  HostResult<std::string> ifname(int index);
  nl_sock* sock_ = nullptr;
};

}  // namespace qeli::sys
