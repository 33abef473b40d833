#include "sys/route_table.h"

#include "sys/nl_util.h"

#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>
#include <sys/socket.h>

#include <cstring>
#include <utility>

namespace qeli::sys {

namespace {

std::uint8_t rtn_of(RouteType t) {
  switch (t) {
    case RouteType::kBlackhole: return RTN_BLACKHOLE;
    case RouteType::kUnreachable: return RTN_UNREACHABLE;
    case RouteType::kUnicast: break;
  }
  return RTN_UNICAST;
}

}  // namespace

std::string Route::to_string() const {
  std::string s;
  if (type == RouteType::kBlackhole) s = "blackhole ";
  if (type == RouteType::kUnreachable) s = "unreachable ";
  s += dst.to_string();
  if (gateway) s += " via " + gateway->to_string();
  if (!dev.empty()) s += " dev " + dev;
  if (metric != 0) s += " metric " + std::to_string(metric);
  s += " table " + std::to_string(table) + " proto " + std::to_string(protocol);
  return s;
}

Route pin_route(const RouteLookup& lookup, std::uint32_t metric) {
  Route r;
  r.dst = IpPrefix::host(lookup.dst);
  r.gateway = lookup.gateway;
  r.dev = lookup.dev;
  r.metric = metric;
  return r;
}

RouteTable::RouteTable(nl_sock* sock) : sock_(sock) {}
RouteTable::RouteTable(RouteTable&& o) noexcept : sock_(std::exchange(o.sock_, nullptr)) {}
RouteTable& RouteTable::operator=(RouteTable&& o) noexcept {
  if (this != &o) {
    if (sock_ != nullptr) nl_socket_free(sock_);
    sock_ = std::exchange(o.sock_, nullptr);
  }
  return *this;
}
RouteTable::~RouteTable() {
  if (sock_ != nullptr) nl_socket_free(sock_);
}

HostResult<RouteTable> RouteTable::open() {
  auto sk = open_route_socket();
  if (!sk.ok()) return fail(sk.error());
  return RouteTable(*sk);
}

HostResult<int> RouteTable::ifindex(const std::string& dev) {
  if (dev.empty() || dev.size() > 15) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + dev + "'");
  }
  rtnl_link* raw = nullptr;
  if (const int err = rtnl_link_get_kernel(sock_, 0, dev.c_str(), &raw); err < 0) {
    return nl_fail(err == -NLE_OBJ_NOTFOUND ? -NLE_NODEV : err, "interface " + dev);
  }
  LinkPtr link(raw);
  return rtnl_link_get_ifindex(link.get());
}

HostResult<std::string> RouteTable::ifname(int index) {
  rtnl_link* raw = nullptr;
  if (const int err = rtnl_link_get_kernel(sock_, index, nullptr, &raw); err < 0) {
    return nl_fail(err, "interface #" + std::to_string(index));
  }
  LinkPtr link(raw);
  const char* name = rtnl_link_get_name(link.get());
  return std::string(name != nullptr ? name : "");
}

namespace {

// Builds the libnl route object for add (for_delete = false) or delete.
HostResult<RoutePtr> build(const Route& r, int ifindex, bool for_delete) {
  if (r.gateway && r.gateway->family != r.dst.addr.family) {
    return host_fail(HostErrc::kInvalidArgument, "gateway family differs: " + r.to_string());
  }
  if (r.type == RouteType::kUnicast && !r.gateway && ifindex == 0) {
    return host_fail(HostErrc::kInvalidArgument,
                     "unicast route needs dev or via: " + r.to_string());
  }
  if (r.type != RouteType::kUnicast && (r.gateway || ifindex != 0)) {
    return host_fail(HostErrc::kInvalidArgument,
                     "blackhole/unreachable route takes no next hop: " + r.to_string());
  }
  RoutePtr route(rtnl_route_alloc());
  AddrPtr dst = to_nl(r.dst.addr, r.dst.len);
  if (!route || !dst) return host_fail(HostErrc::kNetlink, "out of memory");
  rtnl_route_set_family(route.get(), static_cast<std::uint8_t>(r.dst.addr.af()));
  rtnl_route_set_dst(route.get(), dst.get());
  rtnl_route_set_table(route.get(), r.table);
  rtnl_route_set_protocol(route.get(), r.protocol);
  rtnl_route_set_type(route.get(), rtn_of(r.type));
  if (r.metric != 0) rtnl_route_set_priority(route.get(), r.metric);
  // On delete, RT_SCOPE_NOWHERE means "any scope" (what iproute2 sends).
  std::uint8_t scope = RT_SCOPE_UNIVERSE;
  if (for_delete) {
    scope = RT_SCOPE_NOWHERE;
  } else if (r.type == RouteType::kUnicast && !r.gateway) {
    scope = RT_SCOPE_LINK;
  }
  rtnl_route_set_scope(route.get(), scope);
  if (r.type == RouteType::kUnicast && (ifindex != 0 || r.gateway)) {
    rtnl_nexthop* nh = rtnl_route_nh_alloc();
    if (nh == nullptr) return host_fail(HostErrc::kNetlink, "out of memory");
    if (ifindex != 0) rtnl_route_nh_set_ifindex(nh, ifindex);
    if (r.gateway) {
      AddrPtr gw = to_nl(*r.gateway, static_cast<unsigned>(r.gateway->size() * 8));
      if (!gw) {
        rtnl_route_nh_free(nh);
        return host_fail(HostErrc::kNetlink, "out of memory");
      }
      rtnl_route_nh_set_gateway(nh, gw.get());
    }
    rtnl_route_add_nexthop(route.get(), nh);  // the route owns nh from here
  }
  return route;
}

}  // namespace

HostStatus RouteTable::add(const Route& r) {
  int index = 0;
  if (!r.dev.empty()) {
    auto idx = ifindex(r.dev);
    if (!idx) return fail(idx.error());
    index = *idx;
  }
  auto route = build(r, index, false);
  if (!route) return fail(route.error());
  if (const int err = rtnl_route_add(sock_, route->get(), NLM_F_EXCL); err < 0) {
    return nl_fail(err, "add route " + r.to_string());
  }
  return {};
}

HostStatus RouteTable::remove(const Route& r) {
  int index = 0;
  if (!r.dev.empty()) {
    auto idx = ifindex(r.dev);
    // kNotFound: the device is gone, and the kernel removed its routes with it.
    if (!idx) return fail(idx.error());
    index = *idx;
  }
  auto route = build(r, index, true);
  if (!route) return fail(route.error());
  if (const int err = rtnl_route_delete(sock_, route->get(), 0); err < 0) {
    return nl_fail(err, "delete route " + r.to_string());
  }
  return {};
}

HostResult<std::vector<Route>> RouteTable::list(IpFamily family, std::uint32_t table) {
  nl_cache* raw = nullptr;
  const int af = family == IpFamily::kV4 ? AF_INET : AF_INET6;
  if (const int err = rtnl_route_alloc_cache(sock_, af, 0, &raw); err < 0) {
    return nl_fail(err, "dump routes");
  }
  CachePtr cache(raw);
  std::vector<Route> out;
  for (nl_object* obj = nl_cache_get_first(cache.get()); obj != nullptr;
       obj = nl_cache_get_next(obj)) {
    auto* rt = reinterpret_cast<rtnl_route*>(obj);
    if (table != 0 && rtnl_route_get_table(rt) != table) continue;
    Route r;
    r.table = rtnl_route_get_table(rt);
    r.protocol = rtnl_route_get_protocol(rt);
    r.metric = rtnl_route_get_priority(rt);
    const std::uint8_t type = rtnl_route_get_type(rt);
    if (type == RTN_BLACKHOLE) {
      r.type = RouteType::kBlackhole;
    } else if (type == RTN_UNREACHABLE) {
      r.type = RouteType::kUnreachable;
    } else if (type != RTN_UNICAST) {
      continue;  // local, broadcast, multicast, ...: not routes qeli manages
    }
    nl_addr* dst = rtnl_route_get_dst(rt);
    r.dst.addr.family = family;
    if (auto a = from_nl(dst)) r.dst.addr = *a;
    r.dst.len = dst != nullptr ? static_cast<std::uint8_t>(nl_addr_get_prefixlen(dst)) : 0;
    if (rtnl_nexthop* nh = rtnl_route_nexthop_n(rt, 0); nh != nullptr) {
      r.gateway = from_nl(rtnl_route_nh_get_gateway(nh));
      if (const int idx = rtnl_route_nh_get_ifindex(nh); idx > 0) {
        if (auto name = ifname(idx)) r.dev = *name;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

HostResult<RouteLookup> RouteTable::lookup(const IpAddress& dst) {
  AddrPtr addr = to_nl(dst, static_cast<unsigned>(dst.size() * 8));
  if (!addr) return host_fail(HostErrc::kNetlink, "out of memory");
  rtnl_route* raw = nullptr;
  if (const int err = rtnl_route_lookup(sock_, addr.get(), &raw); err < 0) {
    // The kernel answers ENETUNREACH / EHOSTUNREACH / EINVAL (blackhole) with an error.
    const HostErrc code =
        errc_of(err) == HostErrc::kPermission ? HostErrc::kPermission : HostErrc::kUnreachable;
    return host_fail(code, "route to " + dst.to_string() + ": " + nl_geterror(err));
  }
  RoutePtr route(raw);
  const std::uint8_t type = rtnl_route_get_type(route.get());
  if (type != RTN_UNICAST && type != RTN_LOCAL) {
    return host_fail(HostErrc::kUnreachable,
                     "route to " + dst.to_string() + " has type " + std::to_string(type));
  }
  RouteLookup out;
  out.dst = dst;
  out.pref_src = from_nl(rtnl_route_get_pref_src(route.get()));
  if (rtnl_nexthop* nh = rtnl_route_nexthop_n(route.get(), 0); nh != nullptr) {
    out.gateway = from_nl(rtnl_route_nh_get_gateway(nh));
    out.ifindex = rtnl_route_nh_get_ifindex(nh);
  }
  if (out.ifindex <= 0) {
    return host_fail(HostErrc::kUnreachable, "route to " + dst.to_string() + " has no device");
  }
  auto name = ifname(out.ifindex);
  if (!name) return fail(name.error());
  out.dev = std::move(*name);
  return out;
}

}  // namespace qeli::sys
