#include "config/profile_loader.h"

#include "config/config_path.h"
#include "config/sni_rules.h"
#include "config/unbuilt.h"

#include "dns/limits.h"
#include "dns/name.h"

namespace qeli::config {
namespace {

// obfs hides the stream behind a key every user shares: a short or copied-from-the-docs
// key is the weak point an observer probes first.
constexpr std::size_t kObfsKeyMinChars = 16;
bool looks_like_placeholder(std::string_view key) {
  return key.size() < kObfsKeyMinChars || key.find_first_of(" \t<>") != std::string_view::npos;
}

constexpr std::uint64_t kU32Max = 0xffffffffULL;
constexpr std::uint64_t kAnyBuffer = kU32Max;

void read_bind(SectionReader& r, ProfileConfig& p) {
  p.transport = r.get_enum("bind.transport", Transport::kTcp,
                           {{"tcp", Transport::kTcp}, {"udp", Transport::kUdp}});
  if (const IniEntry* e = r.single("bind.address")) {
    if (Ipv4Addr::parse(e->value) || is_ipv6_literal(e->value)) {
      p.bind_address = e->value;
    } else {
      r.bad_value(*e, "a numeric IPv4 or IPv6 address");
      p.bind_address = e->value;  // not the default: no second, false collision finding
    }
  }
  p.bind_port = r.get_u<std::uint16_t>("bind.port", 443, 1, 65535);
  for (const IniEntry* e : r.all("listen")) {
    for (const auto& item : split_list(e->value)) {
      const auto ep = Endpoint::parse(item);
      if (ep && (Ipv4Addr::parse(ep->host) || (ep->bracketed && is_ipv6_literal(ep->host)))) {
        p.listen.push_back(*ep);
      } else {
        r.error_at(*e, "`" + item +
                           "` is not a.b.c.d:port or [IPv6]:port (a numeric address, no names; "
                           "port 1..65535)");
      }
    }
  }
}

void read_tun(SectionReader& r, ProfileConfig& p) {
  auto& t = p.tun;
  t.name = r.get_string("tun.name", t.name);
  if (t.name.empty() || t.name.size() > kTunNameMaxBytes ||
      t.name.find_first_of(" /\t") != std::string::npos || t.name == "." || t.name == "..") {
    r.error("tun.name", "`" + t.name +
                            "` is not a valid interface name (1..15 bytes, no "
                            "space or '/')");
  }
  t.address = r.get_ipv4("tun.address", t.address);
  t.mtu = r.get_u<std::uint32_t>("tun.mtu", t.mtu, kMtuMin, kMtuMax);
  t.tx_queue_len = r.get_u<std::uint32_t>("tun.tx_queue_len", t.tx_queue_len, 1, 1000000);
  t.device_type = r.get_enum("tun.device_type", DeviceType::kTun,
                             {{"tun", DeviceType::kTun}, {"tap", DeviceType::kTap}});
  t.queues = r.get_u<std::uint32_t>("tun.queues", t.queues, 0, kTunQueuesMax);
  if (const IniEntry* e = r.single("tun.netmask")) {
    r.warning("tun.netmask", "legacy key: the netmask is derived from pool.cidr (value `" +
                                 e->value + "` ignored)");
  }
}

void read_pool(SectionReader& r, ProfileConfig& p) {
  p.pool.cidr = r.get_cidr("pool.cidr", p.pool.cidr);
  p.pool.exclude = r.get_cidr_list("pool.exclude", /*allow_bare=*/true);
  for (const IniEntry* e : r.with_prefix("pool.reservation.")) {
    const std::string user = e->key.substr(std::string_view("pool.reservation.").size());
    const auto ip = Ipv4Addr::parse(e->value);
    if (user.empty() || !ip) {
      r.error_at(*e, "expected pool.reservation.<user> = a.b.c.d");
      continue;
    }
    if (!p.pool.reservations.emplace(user, *ip).second) {
      r.error_at(*e, "reservation for `" + user + "` given twice");
    }
  }
  if (!p.pool.cidr.is_usable_host(p.tun.address)) {
    r.error("tun.address", p.tun.address.to_string() + " is not a usable host address of " +
                               "pool.cidr " + p.pool.cidr.to_string());
  }
  if (p.pool.cidr.prefix > 30) {
    r.error("pool.cidr", "a pool needs at least /30 (the server and one client)");
  }
  if (const IniEntry* e = r.single("pool.ipv6.cidr")) {
    const auto c = Ipv6Cidr::parse(e->value);
    if (!c) {
      r.bad_value(*e, "an IPv6 network x::/n with no host bits set (e.g. fd00:9::/64)");
    } else if ((c->network.bytes[0] & 0xfe) != 0xfc && (c->network.bytes[0] & 0xe0) != 0x20) {
      r.error_at(*e, c->to_string() +
                         " is neither a unique local (fc00::/7, RFC 4193) nor a "
                         "global unicast (2000::/3) network");
    } else if (c->prefix < 64 || c->prefix > 126) {
      r.error_at(*e,
                 "an IPv6 pool is a /64 up to a /126 (clients' addresses take their IPv4 "
                 "host offsets: a network wider than a /64 would go unused, one narrower "
                 "than a /126 holds no client)");
    } else if (128 - c->prefix < 32 - p.pool.cidr.prefix) {
      r.error_at(*e, c->to_string() + " has fewer host addresses than pool.cidr " +
                         p.pool.cidr.to_string() +
                         ": each client's IPv6 address takes its IPv4 host offset; use at "
                         "most a /" +
                         std::to_string(96 + p.pool.cidr.prefix));
    } else {
      p.pool.ipv6 = *c;
      if (p.tun.mtu < 1280) {
        r.error("pool.ipv6.cidr",
                "IPv6 needs a tunnel MTU of at least 1280 (RFC 8200 §5); "
                "tun.mtu is " +
                    std::to_string(p.tun.mtu));
      }
    }
  }
  for (const auto& x : p.pool.exclude) {
    if (!p.pool.cidr.overlaps(x)) {
      r.warning("pool.exclude", x.to_string() + " lies outside pool.cidr (has no effect)");
    }
  }
  for (const auto& [user, ip] : p.pool.reservations) {
    if (!p.pool.cidr.is_usable_host(ip) || ip == p.tun.address) {
      r.error(
          "pool.reservation." + user,
          ip.to_string() + " is not a free host address of pool.cidr " + p.pool.cidr.to_string());
    }
  }
}

void read_routing(SectionReader& r, ProfileConfig& p) {
  auto& rt = p.routing;
  rt.client_to_client = r.get_bool("routing.client_to_client", rt.client_to_client);
  rt.forward_private = r.get_bool("routing.forward_private", rt.forward_private);
  rt.nat_enabled = r.get_bool("routing.nat.enabled", rt.nat_enabled);
  rt.nat_interface = r.get_string("routing.nat.interface", "");
  if (rt.nat_interface.size() > kTunNameMaxBytes) {
    r.error("routing.nat.interface", "interface names are at most 15 bytes");
  }
  for (const IniEntry* e : r.all("route")) {
    if (auto route = parse_route(e->value)) {
      rt.routes.push_back(*route);
    } else if (auto route6 = parse_route6(e->value)) {
      rt.routes6.push_back(*route6);
    } else {
      r.bad_value(*e, std::string(kRouteShape));
    }
  }
  if (auto why = broad_route_warning(rt.routes, rt.routes6); !why.empty()) {
    r.warning("route", std::move(why));
  }
  if (!rt.routes6.empty() && !p.pool.ipv6 && !r.refused("pool.ipv6.cidr")) {
    r.warning("route",
              "IPv6 routes are pushed only to clients with IPv6 inside the tunnel, "
              "which needs pool.ipv6.cidr: " +
                  rt.routes6.front().to_string() + " reaches no client");
  }
  rt.ipv6_mode = r.get_enum("routing.ipv6.mode", Ipv6Routing::kNat66,
                            {{"nat66", Ipv6Routing::kNat66}, {"route", Ipv6Routing::kRoute}});
  if (p.pool.ipv6 && rt.ipv6_mode == Ipv6Routing::kRoute &&
      (p.pool.ipv6->network.bytes[0] & 0xfe) == 0xfc) {
    r.warning("routing.ipv6.mode", "route with a unique local pool (" + p.pool.ipv6->to_string() +
                                       "): the internet does not route fc00::/7 back to it; "
                                       "use a global prefix routed to this server, or nat66");
  }
  if (p.pool.ipv6 && rt.ipv6_mode == Ipv6Routing::kNat66 && !rt.nat_enabled) {
    r.warning("pool.ipv6.cidr",
              "nat66 masquerades with routing.nat.enabled, which is off: "
              "clients reach the server and each other over IPv6, nothing "
              "past it");
  }
  rt.ipv6_inbound_open =
      r.get_enum("routing.ipv6.inbound", false, {{"stateful", false}, {"open", true}});
  if (r.has("routing.ipv6.inbound") && rt.ipv6_mode != Ipv6Routing::kRoute) {
    r.warning("routing.ipv6.inbound",
              "has effect in routing.ipv6.mode = route only (nat66 takes no connection "
              "from outside)");
  }
  rt.ipv6_ndp_proxy = ascii_lower(r.get_string("routing.ipv6.ndp_proxy", "off"));
  if (rt.ipv6_ndp_proxy != "off" && rt.ipv6_ndp_proxy != "auto" &&
      rt.ipv6_ndp_proxy != "required") {
    r.error("routing.ipv6.ndp_proxy", "expected one of off|auto|required");
  }
  if ((r.has("routing.ipv6.mode") || rt.ipv6_ndp_proxy != "off") && !p.pool.ipv6) {
    r.warning(r.has("routing.ipv6.mode") ? "routing.ipv6.mode" : "routing.ipv6.ndp_proxy",
              "has no effect without pool.ipv6.cidr (the tunnel carries IPv4 only)");
  }
  if (rt.ipv6_ndp_proxy != "off" && p.pool.ipv6 && rt.ipv6_mode != Ipv6Routing::kRoute) {
    r.error("routing.ipv6.ndp_proxy",
            "answers for the clients' own addresses, which nat66 hides behind the server's: "
            "use routing.ipv6.mode = route, or ndp_proxy = off");
  }
  rt.post_up = r.get_string("routing.post_up", "");
  rt.post_down = r.get_string("routing.post_down", "");
}

// dns.listen_ipv6: an address of pool.ipv6.cidr the proxy answers on too, or `auto` for
// the server's tunnel address — the one address of the pool on the server's TUN, so the
// only one the proxy can bind without help from outside.
void read_dns_listen_ipv6(SectionReader& r, ProfileConfig& p) {
  const IniEntry* e = r.single("dns.listen_ipv6");
  // Empty = unset (files written while the key was refused may carry it blank).
  if (e == nullptr || e->value.empty()) return;
  const bool is_auto = ascii_lower(e->value) == "auto";
  const std::optional<Ipv6Addr> given = is_auto ? std::nullopt : Ipv6Addr::parse(e->value);
  if (!is_auto && !given) {
    r.bad_value(*e, "an IPv6 address without a prefix length (e.g. fd00:9::1), or auto");
    return;
  }
  if (!p.pool.ipv6) {
    if (!r.refused("pool.ipv6.cidr")) {
      r.error_at(*e, "needs pool.ipv6.cidr (the proxy answers on IPv6 inside the tunnel only)");
    }
    return;
  }
  if (!p.dns.enabled) {
    r.error_at(*e, "needs dns.enabled = true (it is an address of the DNS proxy)");
    return;
  }
  const Ipv6Addr server6 = p.server_ipv6().value();
  const Ipv6Addr a = is_auto ? server6 : *given;
  if (!p.pool.ipv6->contains(a)) {
    r.error_at(*e, a.to_string() + " is outside pool.ipv6.cidr " + p.pool.ipv6->to_string() +
                       ": clients reach the resolver through the tunnel");
    return;
  }
  if (a != server6) {
    r.warning("dns.listen_ipv6",
              a.to_string() + " is not the server's tunnel address " + server6.to_string() +
                  " (the one address of the pool on its TUN): the proxy cannot bind an "
                  "address this host does not hold, and an address of the pool may be a "
                  "client's; `auto` is " +
                  server6.to_string());
  }
  p.dns.listen_ipv6 = a;
}

void read_dns(SectionReader& r, ProfileConfig& p) {
  auto& d = p.dns;
  d.enabled = r.get_bool("dns.enabled", d.enabled);
  d.listen = r.get_ipv4("dns.listen", p.tun.address);
  d.port = r.get_u<std::uint16_t>("dns.port", d.port, 1, 65535);
  d.upstream = r.get_list("dns.upstream", d.upstream);
  std::size_t usable = 0;
  for (const auto& u : d.upstream) {
    const auto a6 = Ipv6Addr::parse(u);
    if (Ipv4Addr::parse(u) || (a6 && dns_upstream_usable(*a6))) {
      ++usable;
    } else if (a6) {
      r.warning("dns.upstream", "`" + u +
                                    "` is a link-local, multicast, IPv4-mapped or unspecified "
                                    "IPv6 address (link-local needs a zone id); the DNS proxy "
                                    "will skip it");
    } else {
      r.warning("dns.upstream", "`" + u +
                                    "` is not an IPv4 or IPv6 address; the DNS proxy "
                                    "forwards to numeric addresses only and will skip it");
    }
  }
  if (d.enabled && usable == 0) {
    r.error("dns.upstream", "dns.enabled needs at least one upstream resolver address");
  } else if (usable > dns::kMaxUpstreams) {
    r.error("dns.upstream", "at most " + std::to_string(dns::kMaxUpstreams) +
                                " upstream resolvers (" + std::to_string(usable) + " given)");
  }
  if (const IniEntry* e = r.single("dns.upstream_protocol")) {
    const std::string v = ascii_lower(e->value);
    if (v == "udp") {
      d.upstream_protocol = DnsProtocol::kUdp;
    } else if (v == "tcp") {
      d.upstream_protocol = DnsProtocol::kTcp;
    } else {
      r.bad_value(*e, v == "tls" ? "udp or tcp (DNS over TLS is not supported)" : "udp or tcp");
    }
  }
  d.cache_size = r.get_u<std::uint32_t>("dns.cache_size", d.cache_size, 0, 10000000);
  d.timeout = r.get_secs("dns.timeout_secs", d.timeout, seconds{1}, seconds{60});
  d.blocklist = r.get_list("dns.blocklist", {});
  for (const auto& b : d.blocklist) {
    if (!dns::parse_domain(b)) {
      r.error("dns.blocklist", "`" + b +
                                   "` is not a domain name (letters, digits, '-', '_' in "
                                   "dot-separated labels; `*.example.com` = example.com)");
    }
  }
  for (const auto& s : r.get_list("dns.push_servers", {})) {
    if (const auto a = Ipv4Addr::parse(s)) {
      d.push_servers.push_back(*a);
    } else if (const auto a6 = Ipv6Addr::parse(s)) {
      if (!a6->is_routable_unicast()) {
        r.error("dns.push_servers", "`" + s +
                                        "` is not a global or unique-local unicast IPv6 "
                                        "address (a client cannot reach it through the tunnel)");
        continue;
      }
      d.push_servers6.push_back(*a6);
    } else {
      r.error("dns.push_servers", "`" + s + "` is not an IPv4 or IPv6 address");
    }
  }
  if (!d.push_servers6.empty() && !p.pool.ipv6 && !r.refused("pool.ipv6.cidr")) {
    r.warning("dns.push_servers",
              "IPv6 resolvers are pushed only to clients with IPv6 inside the tunnel, which "
              "needs pool.ipv6.cidr: " +
                  d.push_servers6.front().to_string() + " reaches no client");
  }
  read_dns_listen_ipv6(r, p);
  if (d.enabled && !p.pool.cidr.contains(d.listen) && d.listen != Ipv4Addr{0}) {
    r.warning("dns.listen", d.listen.to_string() +
                                " is outside pool.cidr; clients reach the "
                                "resolver through the tunnel");
  }
}

void read_dhcp(SectionReader& r, ProfileConfig& p) {
  auto& d = p.dhcp;
  d.enabled = r.get_bool("dhcp.enabled", d.enabled);
  if (const IniEntry* e = r.single("dhcp.listen")) {
    auto ep = Endpoint::parse(e->value);
    if (ep && Ipv4Addr::parse(ep->host)) {
      d.listen = *ep;
    } else {
      r.bad_value(*e, "a.b.c.d:port");
    }
  }
  if (const IniEntry* e = r.single("dhcp.pool_start")) {
    d.pool_start = Ipv4Addr::parse(e->value);
    if (!d.pool_start) r.bad_value(*e, "an IPv4 address");
  }
  if (const IniEntry* e = r.single("dhcp.pool_end")) {
    d.pool_end = Ipv4Addr::parse(e->value);
    if (!d.pool_end) r.bad_value(*e, "an IPv4 address");
  }
  d.lease_time = r.get_secs("dhcp.lease_time_secs", d.lease_time, seconds{1}, seconds{kU32Max});
  d.domain_name = r.get_string("dhcp.domain_name", d.domain_name);
  if (d.domain_name.size() > 255) r.error("dhcp.domain_name", "longer than 255 bytes");
  const auto& pool = p.pool.cidr;
  const Ipv4Addr start = d.pool_start.value_or(Ipv4Addr{pool.network.value + 1});
  const Ipv4Addr end = d.pool_end.value_or(Ipv4Addr{pool.broadcast().value - 1});
  if (d.pool_start && !pool.is_usable_host(start)) {
    r.error("dhcp.pool_start", start.to_string() + " is outside pool.cidr " + pool.to_string());
  }
  if (d.pool_end && !pool.is_usable_host(end)) {
    r.error("dhcp.pool_end", end.to_string() + " is outside pool.cidr " + pool.to_string());
  }
  if ((d.pool_start || d.pool_end) && start > end) {
    r.error("dhcp.pool_start", "start " + start.to_string() + " is after end " + end.to_string());
  } else if ((d.pool_start || d.pool_end) && p.tun.address >= start && p.tun.address <= end) {
    r.error("dhcp.pool_start", "the DHCP range contains tun.address " + p.tun.address.to_string());
  }
}

void read_obf_basic(SectionReader& r, ProfileConfig& p) {
  auto& o = p.obf;
  o.mode = r.get_enum("obf.mode", ObfMode::kFakeTls,
                      {{"fake-tls", ObfMode::kFakeTls},
                       {"obfs", ObfMode::kObfs},
                       {"plain", ObfMode::kPlain},
                       {"reality-tls", ObfMode::kRealityTls}});
  o.obfs_key = r.get_string("obf.obfs_key", "");
  o.obfs_fronting = r.get_enum("obf.obfs_fronting", Fronting::kWebsocket,
                               {{"websocket", Fronting::kWebsocket}, {"none", Fronting::kNone}});
  o.awg.enabled = r.get_bool("obf.awg.enabled", false);
  o.awg.jc = r.get_u<std::uint32_t>("obf.awg.jc", 0, 0, kAwgJcMax);
  o.awg.jmin = r.get_u<std::uint32_t>("obf.awg.jmin", kAwgJminDefault, 0, kAwgJunkMaxBytes);
  o.awg.jmax = r.get_u<std::uint32_t>("obf.awg.jmax", kAwgJmaxDefault, 0, kAwgJunkMaxBytes);
  if (o.awg.jmin > o.awg.jmax) r.error("obf.awg.jmin", "jmin must not exceed jmax");
  o.tls_server_name = r.get_string("obf.tls.server_name", o.tls_server_name);

  auto& rp = o.reality;
  rp.enabled = r.get_bool("obf.tls.reality_proxy.enabled", false);
  rp.target = r.get_string("obf.tls.reality_proxy.target", rp.target);
  rp.target_port = r.get_u<std::uint16_t>("obf.tls.reality_proxy.target_port", 443, 1, 65535);
  rp.short_ids = r.get_list("obf.tls.reality_proxy.short_ids", {});
  for (const auto& sid : rp.short_ids) {
    if (!is_valid_short_id(sid)) {
      r.error("obf.tls.reality_proxy.short_ids",
              "`" + sid + "` is not a short id (1..16 hex digits, not all zero)");
    }
  }
  rp.real_tls = r.get_bool("obf.tls.reality_proxy.real_tls", false);
  rp.handrolled = r.get_bool("obf.tls.reality_proxy.handrolled", true);
  rp.peek_timeout = r.get_ms("obf.tls.reality_proxy.peek_timeout_ms", rp.peek_timeout,
                             milliseconds{1}, milliseconds{60000});
  rp.max_bridges = r.get_u<std::uint32_t>("obf.tls.reality_proxy.max_bridges", 0, 0, 65536);
  rp.bridge_connect_timeout = r.get_secs("obf.tls.reality_proxy.bridge_connect_timeout_secs",
                                         rp.bridge_connect_timeout, seconds{1}, seconds{120});
  rp.bridge_idle_timeout = r.get_secs("obf.tls.reality_proxy.bridge_idle_timeout_secs",
                                      rp.bridge_idle_timeout, seconds{1}, seconds{86400});
  rp.bridge_lifetime = r.get_secs("obf.tls.reality_proxy.bridge_lifetime_secs", rp.bridge_lifetime,
                                  seconds{1}, seconds{86400});
}

void read_obf_shaping(SectionReader& r, ProfileConfig& p) {
  auto& o = p.obf;
  auto& pd = o.padding;
  pd.enabled = r.get_bool("obf.padding.enabled", pd.enabled);
  pd.min_bytes = r.get_u<std::uint32_t>("obf.padding.min_bytes", pd.min_bytes, 0, kMtuMax);
  pd.max_bytes = r.get_u<std::uint32_t>("obf.padding.max_bytes", pd.max_bytes, 0, kMtuMax);
  pd.randomize = r.get_bool("obf.padding.randomize", pd.randomize);
  pd.probability = r.get_double("obf.padding.probability", pd.probability, 0.0, 1.0);
  if (pd.min_bytes > pd.max_bytes) r.error("obf.padding.min_bytes", "min_bytes > max_bytes");

  auto& fr = o.fragmentation;
  fr.enabled = r.get_bool("obf.fragmentation.enabled", fr.enabled);
  fr.min_chunk_size =
      r.get_u<std::uint32_t>("obf.fragmentation.min_chunk_size", fr.min_chunk_size, 1, 65535);
  fr.max_chunk_size =
      r.get_u<std::uint32_t>("obf.fragmentation.max_chunk_size", fr.max_chunk_size, 1, 65535);
  fr.max_fragments_per_packet = r.get_u<std::uint32_t>("obf.fragmentation.max_fragments_per_packet",
                                                       fr.max_fragments_per_packet, 1, 64);
  if (fr.min_chunk_size > fr.max_chunk_size) {
    r.error("obf.fragmentation.min_chunk_size", "min_chunk_size > max_chunk_size");
  }

  auto& hb = o.heartbeat;
  hb.enabled = r.get_bool("obf.heartbeat.enabled", hb.enabled);
  hb.interval =
      r.get_ms("obf.heartbeat.interval_ms", hb.interval, milliseconds{0}, milliseconds{3600000});
  hb.data_size_bytes =
      r.get_u<std::uint32_t>("obf.heartbeat.data_size_bytes", hb.data_size_bytes, 0, 1024);
  hb.jitter =
      r.get_ms("obf.heartbeat.jitter_ms", hb.jitter, milliseconds{0}, milliseconds{3600000});
  if (hb.enabled && hb.interval.count() == 0) {
    r.error("obf.heartbeat.interval_ms", "must be > 0 while the heartbeat is enabled");
  } else if (hb.enabled && hb.jitter >= hb.interval) {
    r.error("obf.heartbeat.jitter_ms", "jitter must be smaller than interval_ms");
  }
  if (hb.data_size_bytes > p.tun.mtu) r.error("obf.heartbeat.data_size_bytes", "exceeds tun.mtu");

  auto& sh = o.shaping;
  sh.enabled = r.get_bool("obf.traffic_shaping.enabled", sh.enabled);
  const milliseconds hour{3600000};
  sh.idle_gap_mean =
      r.get_ms("obf.traffic_shaping.idle_gap_mean_ms", sh.idle_gap_mean, milliseconds{1}, hour);
  sh.idle_gap_min =
      r.get_ms("obf.traffic_shaping.idle_gap_min_ms", sh.idle_gap_min, milliseconds{0}, hour);
  sh.idle_gap_max =
      r.get_ms("obf.traffic_shaping.idle_gap_max_ms", sh.idle_gap_max, milliseconds{0}, hour);
  sh.budget_bytes_per_sec = r.get_u<std::uint32_t>("obf.traffic_shaping.budget_bytes_per_sec",
                                                   sh.budget_bytes_per_sec, 1, 0x7fffffff);
  sh.min_size = r.get_u<std::uint32_t>("obf.traffic_shaping.min_size", sh.min_size, 0, kMtuMax);
  sh.max_size = r.get_u<std::uint32_t>("obf.traffic_shaping.max_size", sh.max_size, 1, kMtuMax);
  sh.stealth = r.get_bool("obf.traffic_shaping.stealth", sh.stealth);
  sh.stealth_rate_mbps = r.get_u<std::uint32_t>("obf.traffic_shaping.stealth_rate_mbps",
                                                sh.stealth_rate_mbps, 1, 100000);
  if (sh.idle_gap_min > sh.idle_gap_max) {
    r.error("obf.traffic_shaping.idle_gap_min_ms", "idle_gap_min_ms > idle_gap_max_ms");
  }
  if (sh.min_size > sh.max_size) r.error("obf.traffic_shaping.min_size", "min_size > max_size");
  if (sh.budget_bytes_per_sec < sh.max_size) {
    r.error("obf.traffic_shaping.budget_bytes_per_sec", "budget is smaller than max_size");
  }

  auto& nm = o.normalization;
  nm.enabled = r.get_bool("obf.traffic_normalization.enabled", nm.enabled);
  if (const IniEntry* e = r.single("obf.traffic_normalization.round_sizes")) {
    nm.round_sizes.clear();
    for (const auto& item : split_list(e->value)) {
      const auto v = parse_uint(item, kMtuMax);
      if (!v || *v == 0) {
        r.error_at(*e, "`" + item + "` is not a size in 1.." + std::to_string(kMtuMax));
      } else {
        nm.round_sizes.push_back(static_cast<std::uint32_t>(*v));
      }
    }
    if (nm.round_sizes.empty()) r.error_at(*e, "needs at least one size");
    if (nm.round_sizes.size() > 16) r.error_at(*e, "at most 16 sizes");
  }

  o.anti_fingerprinting = r.get_bool("obf.anti_fingerprinting.enabled", false);
  o.add_jitter_to_handshake = r.get_bool("obf.anti_fingerprinting.add_jitter_to_handshake", true);
  o.quic = r.get_bool("obf.quic.enabled", false);
  o.multipath.enabled = r.get_bool("obf.multipath.enabled", false);
  o.multipath.max_streams = r.get_u<std::uint32_t>("obf.multipath.max_streams", 4, 1, 64);
  o.multipath.adaptive = r.get_bool("obf.multipath.adaptive", false);
}

void read_perf(SectionReader& r, ProfileConfig& p) {
  auto& f = p.perf;
  f.tcp_nodelay = r.get_bool("perf.tcp.nodelay", f.tcp_nodelay);
  f.tcp_keepalive =
      r.get_secs("perf.tcp.keepalive_secs", f.tcp_keepalive, seconds{0}, seconds{86400});
  f.tcp_send_buffer_size = r.get_u<std::uint32_t>("perf.tcp.send_buffer_size", 0, 0, kUdpBufferMax);
  f.tcp_recv_buffer_size = r.get_u<std::uint32_t>("perf.tcp.recv_buffer_size", 0, 0, kUdpBufferMax);
  f.udp_recv_buffer_size = r.get_uint("perf.udp.recv_buffer_size", 0, 0, kUdpBufferMax);
  f.udp_send_buffer_size = r.get_uint("perf.udp.send_buffer_size", 0, 0, kUdpBufferMax);
  f.tun_read_buffer_size =
      r.get_uint("perf.tun.read_buffer_size", f.tun_read_buffer_size, 1, kAnyBuffer);
  const std::uint64_t frame =
      p.tun.mtu + (p.tun.device_type == DeviceType::kTap ? kTapHeaderBytes : 0);
  if (f.tun_read_buffer_size < frame || f.tun_read_buffer_size > kTunReadBufferMax) {
    r.error("perf.tun.read_buffer_size",
            "must be between the largest frame (" + std::to_string(frame) + ") and 1 MiB");
  } else if (f.tun_read_buffer_size != ProfileConfig{}.perf.tun_read_buffer_size) {
    // tunio reads whole offload super-packets (virtio_net_hdr + up to 64 KiB): a smaller
    // buffer would truncate them, a larger one holds nothing more.
    r.warning("perf.tun.read_buffer_size",
              "has no effect in this build: the TUN is always read with a buffer for a "
              "64 KiB offload super-packet (a smaller one would truncate them)");
  }
  f.max_clients = r.get_u<std::uint32_t>("perf.connection.max_clients", f.max_clients, 1, 1000000);
  f.handshake_timeout = r.get_secs("perf.connection.handshake_timeout_secs", f.handshake_timeout,
                                   seconds{1}, seconds{600});
  f.idle_timeout =
      r.get_secs("perf.connection.idle_timeout_secs", f.idle_timeout, seconds{0}, seconds{kU32Max});
  f.new_session_rate_max = r.get_u<std::uint32_t>("perf.connection.new_session_rate_max",
                                                  f.new_session_rate_max, 1, 1000000);
  f.new_session_rate_window = r.get_secs("perf.connection.new_session_rate_window_secs",
                                         f.new_session_rate_window, seconds{1}, seconds{86400});
}

// A REALITY target naming one of this profile's own listeners (bind.* or a `listen`
// entry), as far as the config alone tells: the listener's address, or a loopback (or
// wildcard) address of the family of a wildcard listener, on its port. Start-up also
// resolves names and checks the host's addresses.
bool is_own_listener(const ProfileConfig& p, std::string_view target, std::uint16_t port) {
  const std::string t = canonical_ip(target == "localhost" ? "127.0.0.1" : target);
  const auto t4 = Ipv4Addr::parse(t);
  const bool t6 = !t4 && is_ipv6_literal(t);
  if (!t4 && !t6) return false;  // a name: start-up resolves it
  const bool loopback =
      t4 ? ((t4->value >> 24) == 127 || t4->value == 0) : (t == "::1" || t == "::");
  auto own = [&](const std::string& host, std::uint16_t lport) {
    const std::string l = canonical_ip(host);
    if (lport != port || is_ipv6_literal(l) != t6) return false;
    return l == t || ((l == "0.0.0.0" || l == "::") && loopback);
  };
  if (own(p.bind_address, p.bind_port)) return true;
  for (const auto& l : p.listen) {
    if (own(l.host, l.port)) return true;
  }
  return false;
}

// Rules that combine several keys of one profile (reference §5.8).
void check_profile(SectionReader& r, const ProfileConfig& p) {
  const bool udp = p.transport == Transport::kUdp;
  const auto& o = p.obf;
  if (const auto why = transport_mode_conflict(p.transport, o.mode); !why.empty()) {
    r.error("obf.mode", why);
  }
  if (o.reality.enabled && udp) {
    r.error("obf.tls.reality_proxy.enabled", "the REALITY proxy is TCP-only");
  }
  if (o.reality.enabled && (o.mode == ObfMode::kObfs || o.mode == ObfMode::kPlain)) {
    r.error("obf.tls.reality_proxy.enabled", "the REALITY proxy needs fake-tls or reality-tls");
  }
  if (o.mode == ObfMode::kRealityTls && !o.reality.enabled) {
    r.error("obf.mode", "reality-tls requires obf.tls.reality_proxy.enabled = true");
  }
  if (o.mode == ObfMode::kRealityTls && o.reality.enabled && !o.reality.real_tls) {
    r.warning("obf.tls.reality_proxy.real_tls",
              "false: this is fake-TLS calling itself REALITY (links say mode=fake-tls with rsid)");
  }
  if (!o.reality.enabled && o.reality.real_tls) {
    r.warning("obf.tls.reality_proxy.real_tls",
              "has no effect while obf.tls.reality_proxy.enabled = false");
  }
  if (o.reality.enabled) {
    if (o.reality.short_ids.empty()) {
      r.error("obf.tls.reality_proxy.short_ids", "the REALITY proxy needs at least one short id");
    }
    if (o.reality.target.empty()) r.error("obf.tls.reality_proxy.target", "must not be empty");
    if (is_own_listener(p, o.reality.target, o.reality.target_port)) {
      r.error("obf.tls.reality_proxy.target",
              "is this profile's own listener (" + o.reality.target + ":" +
                  std::to_string(o.reality.target_port) +
                  "): strangers would be bridged back into it in a loop");
    }
    if (Ipv4Addr::parse(o.reality.target) || is_ipv6_literal(o.reality.target)) {
      r.warning("obf.tls.reality_proxy.target",
                "a bare IP target has no certificate name to borrow; use a host name");
    }
  }
  if (o.mode == ObfMode::kObfs && o.obfs_key.empty()) {
    r.error("obf.obfs_key", "obfs mode requires a non-empty obf.obfs_key");
  } else if (o.mode == ObfMode::kObfs && looks_like_placeholder(o.obfs_key)) {
    r.warning("obf.obfs_key",
              "looks like a placeholder or a weak secret (under " +
                  std::to_string(kObfsKeyMinChars) +
                  " characters, or spaces or <>): whoever guesses it can recognise this "
                  "server's traffic; use e.g. `openssl rand -hex 32`");
  }
  if (udp && o.anti_fingerprinting && o.add_jitter_to_handshake) {
    r.warning("obf.anti_fingerprinting.enabled",
              "the handshake jitter applies to TCP profiles only; ignored on UDP");
  }
  if (udp && o.multipath.enabled) {
    r.warning("obf.multipath.enabled", "stream bonding is TCP-only; ignored on UDP");
  }
  // A refused obf.mode left the default in o.mode: judging it would add false warnings.
  const bool mode_known = !r.refused("obf.mode");
  if (mode_known) {
    const ClientMode lm = p.link_mode();
    if (auto why = sni_conflict(lm, o.tls_server_name); !why.empty()) {
      r.error("obf.tls.server_name", std::move(why));
    } else if (lm == ClientMode::kRealityTls && o.tls_server_name.empty()) {
      r.error("obf.tls.server_name",
              "reality-tls links and the target probe need the REALITY target's host name");
    }
    if (auto why = sni_advice(lm, o.tls_server_name); !why.empty()) {
      r.warning("obf.tls.server_name", std::move(why));
    }
  }
  if (mode_known && !udp && o.awg.enabled && o.mode != ObfMode::kObfs) {
    r.warning("obf.awg.enabled", "AWG junk applies to UDP and TCP obfs only; ignored here");
  }
  if (udp && !o.heartbeat.enabled && !o.shaping.enabled && p.perf.idle_timeout.count() == 0) {
    r.error("obf.heartbeat.enabled",
            "a UDP profile needs heartbeat, traffic shaping or an idle timeout, or dead "
            "sessions are never noticed");
  }
  if (mode_known && o.mode == ObfMode::kFakeTls && !o.reality.enabled) {
    r.warning("obf.mode",
              "fake-tls has LOW DPI resistance (its TLS is not valid TLS 1.3); where "
              "blocking is active prefer obf.mode = reality-tls (a real TLS 1.3 handshake "
              "borrowed from a real site) or obfs");
  }
}

}  // namespace

ProfileConfig read_profile(SectionReader& r, std::string name) {
  ProfileConfig p;
  p.name = std::move(name);
  p.line = r.line();
  p.enabled = r.get_bool("enabled", true);
  // Resolved here, once, so the server, show-identity, rotate-identity and add-client
  // --link all read the same file.
  if (const std::string key = r.get_string("identity_key", ""); !key.empty()) {
    p.identity_key = beside_config(r.file(), key);
  }
  read_bind(r, p);
  read_tun(r, p);
  read_pool(r, p);
  read_routing(r, p);
  read_dns(r, p);
  read_dhcp(r, p);
  read_obf_basic(r, p);
  read_obf_shaping(r, p);
  read_perf(r, p);
  p.roaming = r.get_bool("roaming.enabled", true);
  p.roaming_grace = r.get_secs("roaming.grace_secs", p.roaming_grace, std::chrono::seconds{1},
                               std::chrono::seconds{3600});
  p.roaming_max_orphaned =
      r.get_u<std::uint32_t>("roaming.max_orphaned", p.roaming_max_orphaned, 0, 1000000);
  if (p.transport == Transport::kUdp &&
      (r.has("roaming.grace_secs") || r.has("roaming.max_orphaned"))) {
    r.warning(r.has("roaming.grace_secs") ? "roaming.grace_secs" : "roaming.max_orphaned",
              "applies to TCP profiles (a UDP session roams without a gap to wait out)");
  }
  check_profile(r, p);
  refuse_unbuilt(p, [&r](std::string_view key, std::string why) { r.error(key, std::move(why)); });
  return p;
}

std::optional<Ipv6Addr> ProfileConfig::server_ipv6() const {
  if (!pool.ipv6) return std::nullopt;
  return pool.ipv6->host(tun.address.value - pool.cidr.network.value);
}

Ipv4Addr ProfileConfig::dns_proxy_address() const {
  return dns.listen == Ipv4Addr{0} ? tun.address : dns.listen;
}

ClientMode ProfileConfig::link_mode() const {
  if (obf.reality.enabled) {
    return obf.reality.real_tls ? ClientMode::kRealityTls : ClientMode::kReality;
  }
  switch (obf.mode) {
    case ObfMode::kObfs: return ClientMode::kObfs;
    case ObfMode::kPlain: return ClientMode::kPlain;
    case ObfMode::kRealityTls: return ClientMode::kRealityTls;
    case ObfMode::kFakeTls: break;
  }
  return ClientMode::kFakeTls;
}

}  // namespace qeli::config
