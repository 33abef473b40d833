#include "config/metrics_section.h"

namespace qeli::config {

MetricsConfig read_metrics_section(SectionReader& r) {
  MetricsConfig m;
  m.enabled = r.get_bool("enabled", m.enabled);
  if (const IniEntry* e = r.single("listen")) {
    // IPv4 only: the endpoint binds one AF_INET socket, and a host name would be resolved
    // at start-up into an address nobody reviewed.
    const auto ep = Endpoint::parse(e->value);
    const auto ip = ep && !ep->bracketed ? Ipv4Addr::parse(ep->host) : std::nullopt;
    if (!ip) {
      r.bad_value(*e, "an IPv4 address and a port (127.0.0.1:9477)");
    } else {
      m.listen_address = *ip;
      m.listen_port = ep->port;
    }
  }
  m.per_user = r.get_bool("per_user", m.per_user);
  m.per_user_limit = r.get_u<std::uint32_t>("per_user_limit", m.per_user_limit, 1, 10000);
  // 127.0.0.0/8: what only this host can reach. Anything else is reachable by whoever can
  // route to it, and the endpoint asks nobody for credentials.
  if (m.enabled && (m.listen_address.value >> 24) != 127) {
    r.warning("listen", "`" + m.listen_address.to_string() +
                            "` is not a loopback address: /metrics has no authentication, so "
                            "anyone who can reach it reads the server's counters (bind it to "
                            "127.0.0.1 and scrape through a tunnel or a firewall rule)");
  }
  return m;
}

}  // namespace qeli::config
