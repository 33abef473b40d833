#include "client/dns_choice.h"

namespace qeli::client {

DnsChoice choose_dns(const config::ClientConfig& cfg, std::string_view pushed,
                     std::string_view pushed6, const sys::ResolvedStatus& resolved) {
  DnsChoice c;
  if (cfg.dns == config::ClientDns::kOff) {
    c.why = "dns = off";
    return c;
  }
  for (const auto& a : cfg.dns_servers) {
    if (auto ip = sys::IpAddress::parse(a.to_string()); ip.ok()) c.dns.servers.push_back(*ip);
  }
  const bool own = !c.dns.servers.empty();
  if (!own && !pushed.empty()) {
    if (auto ip = sys::IpAddress::parse(pushed); ip.ok()) c.dns.servers.push_back(*ip);
  }
  if (!own && !pushed6.empty()) {
    auto ip = sys::IpAddress::parse(pushed6);
    if (ip.ok() && ip->family == sys::IpFamily::kV6) c.dns.servers.push_back(*ip);
  }
  if (c.dns.servers.empty()) {
    c.why = "no dns_servers and no pushed resolver";
    return c;
  }
  const std::string source = own ? "dns_servers" : "the server's push";
  if (sys::choose_dns_backend(resolved) == sys::DnsBackend::kResolved) {
    c.path = DnsPath::kResolvedLink;
    c.why = "systemd-resolved per-link DNS from " + source;
  } else {
    c.path = DnsPath::kResolvConf;
    c.why = std::string(resolved.running ? "resolv.conf is not resolved's stub"
                                         : "systemd-resolved is not running") +
            ": resolv.conf takeover from " + source;
  }
  return c;
}

const char* to_string(DnsPath p) {
  switch (p) {
    case DnsPath::kLeaveAlone: return "leave-alone";
    case DnsPath::kResolvedLink: return "resolved-link";
    case DnsPath::kResolvConf: return "resolv.conf";
  }
  return "?";
}

}  // namespace qeli::client
