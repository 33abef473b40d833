#include "server/auth_ok_builder.h"

#include <algorithm>

#include "engine/stream_bond.h"
#include "server/ipv6_plan.h"
#include "server/session_policy.h"
#include "transport/endpoint.h"

namespace qeli::server {

std::string obfuscation_json(const config::ObfConfig& obf) {
  return tunnel::to_json(pushed_params(obf));
}

handshake::AuthOk build_auth_ok(const config::ProfileConfig& p, const config::UserConfig* user,
                                std::uint32_t client_ip, const handshake::JoinToken& token,
                                bool offer_ipv6) {
  handshake::AuthOk ok;
  ok.client_ip = transport::ipv4_to_string(client_ip);
  ok.server_ip = p.tun.address.to_string();
  ok.prefix = p.pool.cidr.prefix;
  ok.mtu = static_cast<std::uint16_t>(p.tun.mtu);
  // Per family: the first dns.push_servers entry of it, else the proxy's address (IPv6
  // below, with the session's IPv6 address).
  if (!p.dns.push_servers.empty()) {
    ok.dns = p.dns.push_servers.front().to_string();
  } else if (p.dns.enabled) {
    ok.dns = p.dns_proxy_address().to_string();
  }
  // 53 whatever dns.port is, as 0.7.16 pushes it: no client platform takes a resolver
  // port (VpnService.Builder, NEDNSSettings, Windows), so the server bridges 53 to a
  // proxy on another port (ProfileRuntime's DNS redirect, sys/nft_nat.h).
  ok.dns_port = 53;
  // A user's own route lines, of either family, replace the profile's (both families).
  const bool own = user != nullptr && (!user->routes.empty() || !user->routes6.empty());
  const auto& routes = own ? user->routes : p.routing.routes;
  for (const auto& r : routes) {
    handshake::PushedRoute pr;
    pr.cidr = r.cidr.to_string();
    pr.gateway = r.gateway ? r.gateway->to_string() : p.tun.address.to_string();
    pr.metric = r.metric.value_or(100);
    ok.routes.push_back(pr);
  }
  ok.obfuscation_json = obfuscation_json(p.obf);
  ok.session_token = token;
  ok.max_streams = static_cast<std::uint8_t>(bond_max_streams(p));
  ok.multipath_adaptive = ok.max_streams > 1 && p.obf.multipath.adaptive;
  // TCP resume's window (PROTOCOL §22; sent only with caps::kResume offered).
  if (p.transport == config::Transport::kTcp && p.roaming) {
    ok.x_resume_secs = static_cast<std::uint32_t>(p.roaming_grace.count());
  }
  // A user limited to IPv4 networks would route IPv6 into a tunnel that drops it all, and
  // a static IP outside this pool has no address in its plan: IPv4 only for them. Sent
  // only with caps::kIpv6Inside offered (ServerHandshake::accept drops them else).
  if (const auto plan = Ipv6Plan::of(p); plan && offer_ipv6 && p.pool.cidr.contains({client_ip})) {
    ok.x_ip6 = plan->address_of(client_ip).to_string() + "/" + std::to_string(plan->cidr().prefix);
    ok.x_server_ip6 = plan->server_address().to_string();
    if (!p.dns.push_servers6.empty()) {
      ok.x_dns6 = p.dns.push_servers6.front().to_string();
    } else if (p.dns.enabled && p.dns.listen_ipv6) {
      ok.x_dns6 = p.dns.listen_ipv6->to_string();
    }
    for (const auto& r : own ? user->routes6 : p.routing.routes6) {
      const std::uint32_t metric = r.metric.value_or(100);
      if (r.cidr.prefix == 0) {
        // As the full tunnel does: two halves, more specific than the host's default.
        ok.x_routes6.push_back({"::/1", "", metric});
        ok.x_routes6.push_back({"8000::/1", "", metric});
      } else {
        ok.x_routes6.push_back({r.cidr.to_string(), "", metric});
      }
    }
  }
  return ok;
}

std::size_t bond_max_streams(const config::ProfileConfig& p) {
  if (p.transport != config::Transport::kTcp || !p.obf.multipath.enabled) return 1;
  return std::min<std::size_t>(p.obf.multipath.max_streams, engine::StreamBond::kMaxStreams);
}

}  // namespace qeli::server
