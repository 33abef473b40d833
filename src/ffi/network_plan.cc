#include "ffi/network_plan.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "client/route_plan.h"
#include "ffi/ffi_client.h"
#include "sys/ip_prefix.h"

namespace qeli::ffi {

namespace {

// 0.7.16's metrics for the routes the client adds (transport_core/network.rs).
constexpr std::uint32_t kClientRouteMetric = 100;   // include, route_local
constexpr std::uint32_t kResolverRouteMetric = 50;  // a split tunnel's resolver /32

// Whether `a` lies in the tunnel's own network (`ip`/`prefix`, either family).
bool in_tunnel_subnet(const std::string& a, const std::string& ip, int prefix) {
  const auto net = sys::IpAddress::parse(ip);
  const auto addr = sys::IpAddress::parse(a);
  return net.ok() && addr.ok() &&
         sys::IpPrefix{*net, static_cast<std::uint8_t>(prefix)}.contains(*addr);
}

// The plan's resolvers as 0.7.16 chooses them (transport_core/network.rs):
//   `dns = off|system`                  → none;
//   the profile's `dns_servers`         → those;
//   the pushed one (AUTH OK `dns`)      → taken in a full tunnel, or when it lies in the
//                                         tunnel's subnet (else the app's fallback): a
//                                         resolver the plan cannot route through the
//                                         tunnel is not one to hand out; an IPv6 one
//                                         fails the plan (0.7.16 carries IPv4 only);
//   the app's `fallback_dns_servers`    → otherwise.
// Ours: with IPv6 inside (X_IPV6), the pushed x_dns6 beside it on the same terms, and IPv6
// fallbacks allowed. A full tunnel with `dns = tunnel` and no resolver fails the plan:
// fail closed, the host's resolver would leak outside the tunnel.
Result<nlohmann::json, std::string> dns_servers(const client::TunnelConfig& tc,
                                                const config::ClientConfig& cfg,
                                                const PlanInputs& in,
                                                std::vector<std::string>& addresses) {
  nlohmann::json out = nlohmann::json::array();
  if (cfg.dns == config::ClientDns::kOff) return out;
  auto add = [&](const std::string& a, std::uint16_t port) {
    out.push_back({{"address", a}, {"port", port}});
    addresses.push_back(a);
  };
  const handshake::AuthOk& ok = tc.pushed;
  const int prefix = ok.prefix >= 1 && ok.prefix <= 32 ? ok.prefix : 24;
  if (!cfg.dns_servers.empty()) {
    for (const auto& a : cfg.dns_servers) add(a.to_string(), 53);
    return out;
  }
  if (!ok.dns.empty()) {
    if (handshake::is_ipv6(ok.dns)) {
      return fail("IPv6 pushed DNS server '" + ok.dns +
                  "' is unsupported: this session carries only IPv4 inner packets");
    }
    if (!handshake::is_ipv4(ok.dns)) return out;  // 0.7.16: garbage is no resolver at all
    if (cfg.gateway || in_tunnel_subnet(ok.dns, ok.client_ip, prefix)) add(ok.dns, ok.dns_port);
  }
  if (in.ipv6 && ok.x_dns6 && ok.x_ip6) {
    const auto slash = ok.x_ip6->find('/');
    const int prefix6 = slash == std::string::npos ? 128 : std::stoi(ok.x_ip6->substr(slash + 1));
    if (cfg.gateway || in_tunnel_subnet(*ok.x_dns6, ok.x_ip6->substr(0, slash), prefix6)) {
      add(*ok.x_dns6, ok.dns_port);
    }
  }
  if (out.empty()) {
    for (const auto& a : in.fallback_dns) {
      if (!in.ipv6 && a.find(':') != std::string::npos) {
        return fail("IPv6 platform fallback DNS server '" + a +
                    "' is unsupported: this session carries only IPv4 inner packets");
      }
      add(a, 53);
    }
  }
  if (cfg.gateway && out.empty()) {
    return fail(
        std::string("full-tunnel DNS is set to tunnel mode but no resolver is available; configure "
                    "dns_servers, let the server push one, or set dns = off only when the platform "
                    "manages DNS"));
  }
  return out;
}

}  // namespace

bool plan_kill_switch(const config::ClientConfig& cfg, bool full_tunnel) {
  return cfg.kill_switch && full_tunnel;
}

std::string sanitize_log_line(std::string_view line) {
  std::string out;
  out.reserve(std::min(line.size(), kMaxLogLineBytes));
  std::size_t i = 0;
  while (i < line.size()) {
    // One character: its bytes if valid UTF-8, else U+FFFD for the one bad byte.
    const auto c = static_cast<unsigned char>(line[i]);
    std::size_t n = 1;
    if (c >= 0x80) n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    std::string_view ch = line.substr(i, n == 0 ? 1 : n);
    if (n == 0 || ch.size() != n || !is_utf8(ch)) ch = "\xEF\xBF\xBD", n = 1;
    // Control characters (C0, DEL, C1 — Unicode's Cc) become spaces.
    const bool control = c < 0x20 || c == 0x7F ||
                         (n == 2 && c == 0xC2 && static_cast<unsigned char>(line[i + 1]) < 0xA0);
    if (control) ch = " ";
    if (out.size() + ch.size() > kMaxLogLineBytes) break;
    out += ch;
    i += n;
  }
  return out;
}

Result<NetworkPlan, std::string> build_network_plan(const client::TunnelConfig& tc,
                                                    const config::ClientConfig& cfg,
                                                    const PlanInputs& in) {
  const handshake::AuthOk& ok = tc.pushed;
  std::vector<std::string> resolvers;
  auto resolved = dns_servers(tc, cfg, in, resolvers);
  if (!resolved.ok()) return fail(resolved.error());
  nlohmann::json dns = std::move(*resolved);
  // The pushed IPv6 routes (x_routes6) beside the IPv4 ones, as the daemon plans them.
  std::vector<handshake::PushedRoute> pushed_all = ok.routes;
  if (in.ipv6) pushed_all.insert(pushed_all.end(), ok.x_routes6.begin(), ok.x_routes6.end());
  const client::RoutePlan plan = client::plan_routes(cfg, pushed_all, resolvers, in.ipv6);
  // Without IPv6, IPv4 only, as the original's plans: an app that cannot apply an IPv6
  // exclusion would refuse the whole plan (the connection log says what was left out).
  std::vector<std::string> excluded;
  for (const auto& c : plan.via_underlay) {
    if (in.ipv6 || c.find(':') == std::string::npos) excluded.push_back(c);
  }

  // The routes as 0.7.16's plan has them: the accepted pushed routes with their own
  // gateway and metric, `include` and `route_local` at metric 100, a split tunnel's
  // resolvers at 50 — never a full tunnel's /1 halves (`full_tunnel` says to route
  // everything; an app adds its own default routes, and its "allow LAN" exceptions).
  nlohmann::json routes = nlohmann::json::array();
  nlohmann::json routes6 = nlohmann::json::array();
  nlohmann::json pushed = nlohmann::json::array();
  for (const auto& r : plan.via_tun) {
    if (r.source == client::RouteSource::kFullTunnel) continue;
    const bool v6 = r.cidr.find(':') != std::string::npos;
    const std::string& tunnel_gateway = v6 ? ok.x_server_ip6.value_or("") : ok.server_ip;
    std::uint32_t metric = r.metric;
    if (r.source == client::RouteSource::kInclude || r.source == client::RouteSource::kLocal) {
      metric = kClientRouteMetric;
    } else if (r.source == client::RouteSource::kResolver) {
      metric = kResolverRouteMetric;
    }
    (v6 ? routes6 : routes)
        .push_back({{"cidr", r.cidr},
                    {"gateway", r.gateway.empty() ? tunnel_gateway : r.gateway},
                    {"metric", metric}});
    if (r.source == client::RouteSource::kPushed) pushed.push_back(r.cidr);
  }
  std::vector<std::string> log = in.connection_log;
  for (const auto& r : plan.refused) {
    log.push_back("server push: route " + r.cidr + " REFUSED: " + r.why);
  }
  if (log.size() > kMaxLogLines) {  // our own lines: cut rather than fail the plan
    const std::size_t more = log.size() - (kMaxLogLines - 1);
    log.resize(kMaxLogLines - 1);
    log.push_back("… " + std::to_string(more) + " more lines");
  }
  for (auto& line : log) line = sanitize_log_line(line);
  // 0.7.16's NetworkPlan::validate: a plan over its limits is not sent.
  if (routes.size() > kMaxPlanRoutes || routes6.size() > kMaxPlanRoutes) {
    return fail("network plan contains " + std::to_string(std::max(routes.size(), routes6.size())) +
                " routes; maximum is " + std::to_string(kMaxPlanRoutes));
  }
  if (pushed.size() > kMaxPlanRoutes) {
    return fail(std::string("network plan contains invalid pushed routes"));
  }
  if (dns.size() > kMaxPlanDnsServers) {
    return fail("network plan contains " + std::to_string(dns.size()) +
                " DNS servers; maximum is " + std::to_string(kMaxPlanDnsServers));
  }
  const tunnel::PushedParams& p = tc.params;
  nlohmann::json j = {
      {"generation", in.generation},
      {"tunnel_address", ok.client_ip},
      {"prefix_len", ok.prefix},
      {"mtu", tc.mtu},
      {"tunnel_gateway", ok.server_ip},
      {"carrier_address", tc.server.ip_string()},
      {"routes", std::move(routes)},
      {"pushed_routes", std::move(pushed)},
      {"dns_servers", std::move(dns)},
      {"full_tunnel", plan.full_tunnel},
      {"kill_switch", plan_kill_switch(cfg, plan.full_tunnel)},
      {"max_streams", ok.max_streams},
      {"adaptive", ok.multipath_adaptive},
      {"data_plane",
       {{"padding_enabled", p.padding.enabled},
        {"padding_min", p.padding.min_bytes},
        {"padding_max", p.padding.max_bytes},
        {"heartbeat_enabled", p.heartbeat.enabled},
        {"heartbeat_interval_ms", p.heartbeat.interval.count()},
        // Flow shaping is not built in this core: whatever the profile or the server
        // asks, none is in effect.
        {"shaping_enabled", false}}},
      {"connection_log", std::move(log)},
      {"excluded_routes", std::move(excluded)},
  };
  if (!in.carrier_known) j.erase("carrier_address");
  if (in.ipv6 && ok.x_ip6) {
    // "fd00:9::5/64" (validated by the AUTH OK parser).
    const std::string& a6 = *ok.x_ip6;
    const auto slash = a6.find('/');
    j["tunnel_address6"] = a6.substr(0, slash);
    j["prefix_len6"] = slash == std::string::npos ? 128 : std::stoi(a6.substr(slash + 1));
    j["tunnel_gateway6"] = ok.x_server_ip6.value_or("");
    j["routes6"] = std::move(routes6);
  }
  NetworkPlan out;
  if (plan.full_tunnel || !j["routes"].empty()) out.required_caps |= platform::kRoutes;
  if (!j["dns_servers"].empty()) out.required_caps |= platform::kDns;
  if (j["kill_switch"].get<bool>()) out.required_caps |= platform::kKillSwitch;
  // Strings from the server were validated as UTF-8 by the AUTH OK parser; replace
  // anything else rather than throw.
  out.json = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

}  // namespace qeli::ffi
