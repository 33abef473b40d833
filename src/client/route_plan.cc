#include "client/route_plan.h"

#include <algorithm>

#include "sys/ip_prefix.h"

namespace qeli::client {

RoutePlan plan_routes(const config::ClientConfig& cfg,
                      const std::vector<handshake::PushedRoute>& pushed,
                      const std::vector<std::string>& resolvers, bool ipv6_inside) {
  RoutePlan plan;
  plan.full_tunnel = cfg.gateway;
  for (const auto& r : pushed) {
    const auto p = sys::IpPrefix::parse(r.cidr);
    if (!p.ok()) {
      plan.refused.push_back({r.cidr, "not a network"});
      continue;
    }
    if (p->addr.family == sys::IpFamily::kV6 && !ipv6_inside) continue;  // not carried
    if (!r.gateway.empty() && !sys::IpAddress::parse(r.gateway).ok()) {
      plan.refused.push_back({r.cidr, "gateway `" + r.gateway + "` is not an address"});
      continue;
    }
    if (p->len < kMinPushedPrefix) {
      plan.refused.push_back(
          {r.cidr, "broader than /" + std::to_string(kMinPushedPrefix) +
                       ": a server may not make this client a full tunnel (that is the "
                       "client's `gateway`)"});
      continue;
    }
    plan.via_tun.push_back({r.cidr, r.metric, RouteSource::kPushed, r.gateway});
  }
  for (const auto& c : cfg.include) {
    plan.via_tun.push_back({c.to_string(), 0, RouteSource::kInclude, {}});
  }
  for (const auto& c : cfg.include6) {
    if (ipv6_inside) {
      plan.via_tun.push_back({c.to_string(), 0, RouteSource::kInclude, {}});
    } else {
      plan.not_carried.push_back(c.to_string());
    }
  }
  if (cfg.route_local) {
    for (const char* c : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"}) {
      plan.via_tun.push_back({c, 0, RouteSource::kLocal, {}});
    }
  }
  for (const auto& c : cfg.exclude) plan.via_underlay.push_back(c.to_string());
  for (const auto& c : cfg.exclude6) plan.via_underlay.push_back(c.to_string());
  if (!plan.full_tunnel) {
    for (const auto& r : resolvers) {
      auto p = sys::IpPrefix::parse(r);
      if (!p.ok() || (p->addr.family == sys::IpFamily::kV6 && !ipv6_inside)) continue;
      const std::string host = sys::IpPrefix::host(p->addr).to_string();
      const bool there = std::any_of(plan.via_tun.begin(), plan.via_tun.end(),
                                     [&](const TunRoute& t) { return t.cidr == host; });
      if (!there) plan.via_tun.push_back({host, 0, RouteSource::kResolver, {}});
    }
  }
  if (plan.full_tunnel) {
    plan.pin_server = true;
    plan.via_tun.push_back({"0.0.0.0/1", 0, RouteSource::kFullTunnel, {}});
    plan.via_tun.push_back({"128.0.0.0/1", 0, RouteSource::kFullTunnel, {}});
    if (ipv6_inside) {
      plan.via_tun.push_back({"::/1", 0, RouteSource::kFullTunnel, {}});
      plan.via_tun.push_back({"8000::/1", 0, RouteSource::kFullTunnel, {}});
    } else {
      plan.blackhole_ipv6 = !cfg.allow_ipv6_leak;
    }
  }
  return plan;
}

}  // namespace qeli::client
