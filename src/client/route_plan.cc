#include "client/route_plan.h"

#include "sys/ip_prefix.h"

namespace qeli::client {

bool is_default_route(const std::string& cidr) {
  auto p = sys::IpPrefix::parse(cidr);
  return p.ok() && p->len == 0 && p->addr.family == sys::IpFamily::kV4;
}

RoutePlan plan_routes(const config::ClientConfig& cfg,
                      const std::vector<handshake::PushedRoute>& pushed,
                      const std::vector<std::string>& resolvers, bool ipv6_inside) {
  RoutePlan plan;
  for (const auto& r : pushed) {
    if (is_default_route(r.cidr)) {
      plan.pushed_default = true;  // replaced by the two halves below
      continue;
    }
    const auto p = sys::IpPrefix::parse(r.cidr);
    if (p.ok() && (p->addr.family == sys::IpFamily::kV4 || ipv6_inside)) {
      plan.via_tun.push_back({r.cidr, r.metric});
    }
  }
  plan.full_tunnel = cfg.gateway || plan.pushed_default;
  for (const auto& c : cfg.include) plan.via_tun.push_back({c.to_string(), 0});
  for (const auto& c : cfg.include6) {
    if (ipv6_inside) {
      plan.via_tun.push_back({c.to_string(), 0});
    } else {
      plan.not_carried.push_back(c.to_string());
    }
  }
  if (cfg.route_local) {
    for (const char* c : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"}) {
      plan.via_tun.push_back({c, 0});
    }
  }
  for (const auto& c : cfg.exclude) plan.via_underlay.push_back(c.to_string());
  for (const auto& c : cfg.exclude6) plan.via_underlay.push_back(c.to_string());
  if (!plan.full_tunnel) {
    for (const auto& r : resolvers) {
      auto p = sys::IpPrefix::parse(r);
      if (p.ok() && (p->addr.family == sys::IpFamily::kV4 || ipv6_inside)) {
        plan.via_tun.push_back({sys::IpPrefix::host(p->addr).to_string(), 0});
      }
    }
  }
  if (plan.full_tunnel) {
    plan.pin_server = true;
    plan.via_tun.push_back({"0.0.0.0/1", 0});
    plan.via_tun.push_back({"128.0.0.0/1", 0});
    if (ipv6_inside) {
      plan.via_tun.push_back({"::/1", 0});
      plan.via_tun.push_back({"8000::/1", 0});
    } else {
      plan.blackhole_ipv6 = !cfg.allow_ipv6_leak;
    }
  }
  return plan;
}

}  // namespace qeli::client
