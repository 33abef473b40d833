// libnl-route-3 plumbing shared by sys/'s netlink users (route_table, neighbor_proxy):
// owners for libnl objects, libnl error codes as HostErrors, and sys::IpAddress to and
// from nl_addr. Internal to sys/.
#pragma once

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include <memory>
#include <optional>
#include <string>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"

namespace qeli::sys {

// Small owners for libnl objects (each has its own put/free function).
struct AddrPut {
  void operator()(nl_addr* a) const { nl_addr_put(a); }
};
struct RoutePut {
  void operator()(rtnl_route* r) const { rtnl_route_put(r); }
};
struct LinkPut {
  void operator()(rtnl_link* l) const { rtnl_link_put(l); }
};
struct CachePut {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
using AddrPtr = std::unique_ptr<nl_addr, AddrPut>;
using RoutePtr = std::unique_ptr<rtnl_route, RoutePut>;
using LinkPtr = std::unique_ptr<rtnl_link, LinkPut>;
using CachePtr = std::unique_ptr<nl_cache, CachePut>;

/// A libnl error (negative NLE_*) as the HostErrc it means.
HostErrc errc_of(int nl_err);
/// host_fail with `what` and libnl's text for `nl_err`.
Unexpected<HostError> nl_fail(int nl_err, const std::string& what);
/// `a` as an nl_addr with `prefix_len`; null on allocation failure.
AddrPtr to_nl(const IpAddress& a, unsigned prefix_len);
/// An IPv4 or IPv6 nl_addr as an IpAddress; nullopt for anything else.
std::optional<IpAddress> from_nl(nl_addr* a);
/// A connected NETLINK_ROUTE socket (nl_socket_free it), or why not.
HostResult<nl_sock*> open_route_socket();

}  // namespace qeli::sys
