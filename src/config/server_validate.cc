// Rules that span profiles, users and the panel (reference §5.8): unique names, ports and
// TUN devices, references from users to profiles and groups, static IPs inside a pool.
#include <algorithm>
#include <map>
#include <set>

#include "config/short_id.h"

#include "config/server_config.h"

namespace qeli::config {
namespace {

struct Bind {
  Transport transport;
  std::string address;
  std::uint16_t port;
  std::string owner;  // "[profile:a] bind.port" etc.
  std::string file_section;
  std::string key;
  int line;
};

bool is_wildcard(const std::string& a) { return a == "0.0.0.0" || a == "::"; }
bool is_v6(const std::string& a) { return a.find(':') != std::string::npos; }

// An IPv6 listener takes IPv6 only (IPV6_V6ONLY): `::` and `0.0.0.0` on one port are two
// listeners, and a wildcard collides only with addresses of its own family.
// Addresses are compared in canonical form ("2001:0db8::1" is "2001:db8::1").
bool collide(const Bind& x, const Bind& y) {
  const std::string a = canonical_ip(x.address), b = canonical_ip(y.address);
  if (x.transport != y.transport || x.port != y.port || is_v6(a) != is_v6(b)) return false;
  return a == b || is_wildcard(a) || is_wildcard(b);
}

}  // namespace

namespace {

// A route line: the destination first, then options, separated by blanks. `dest` and
// `option` take one token each and say whether it was valid.
template <class Dest, class Option>
bool parse_route_tokens(std::string_view s, Dest&& dest, Option&& option) {
  bool first = true;
  std::string_view rest = trim(s);
  while (!rest.empty()) {
    const auto sp = rest.find_first_of(" \t");
    const std::string_view tok = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
    if (!(first ? dest(tok) : option(tok))) return false;
    first = false;
  }
  return !first;
}

// `metric=<n>`, once.
bool parse_metric(std::string_view tok, std::optional<std::uint32_t>& metric) {
  if (!tok.starts_with("metric=") || metric) return false;
  const auto m = parse_uint(tok.substr(7), 0xffffffffULL);
  if (!m) return false;
  metric = static_cast<std::uint32_t>(*m);
  return true;
}

}  // namespace

std::optional<RouteSpec> parse_route(std::string_view s) {
  RouteSpec r;
  const bool ok = parse_route_tokens(
      s,
      [&](std::string_view tok) {
        const auto c = Ipv4Cidr::parse(tok);
        if (c) r.cidr = *c;
        return c.has_value();
      },
      [&](std::string_view tok) {
        if (tok.starts_with("gateway=") && !r.gateway) {
          r.gateway = Ipv4Addr::parse(tok.substr(8));
          return r.gateway.has_value();
        }
        return parse_metric(tok, r.metric);
      });
  return ok ? std::optional(r) : std::nullopt;
}

std::optional<Route6Spec> parse_route6(std::string_view s) {
  Route6Spec r;
  const bool ok = parse_route_tokens(
      s,
      [&](std::string_view tok) {
        const auto c = Ipv6Cidr::parse(tok);
        if (c) r.cidr = *c;
        return c.has_value();
      },
      [&](std::string_view tok) { return parse_metric(tok, r.metric); });
  return ok ? std::optional(r) : std::nullopt;
}

std::string broad_route_warning(const std::vector<RouteSpec>& routes,
                                const std::vector<Route6Spec>& routes6) {
  // client/route_plan.h's kMinPushedPrefix (config cannot include client/).
  constexpr int kNarrowest = 8;
  std::string broad;
  for (const auto& r : routes) {
    if (r.cidr.prefix < kNarrowest) broad += (broad.empty() ? "" : ", ") + r.cidr.to_string();
  }
  for (const auto& r : routes6) {
    if (r.cidr.prefix < kNarrowest) broad += (broad.empty() ? "" : ", ") + r.cidr.to_string();
  }
  if (broad.empty()) return broad;
  return broad +
         ": clients refuse a pushed route broader than /8 (0.7.16's and qeli's) and stay "
         "split tunnels; a full tunnel is the client's choice (gateway = true, or a link's "
         "&gateway=1)";
}

std::string Route6Spec::to_string() const {
  std::string s = cidr.to_string();
  if (metric) s += " metric=" + std::to_string(*metric);
  return s;
}

std::string RouteSpec::to_string() const {
  std::string s = cidr.to_string();
  if (gateway) s += " gateway=" + gateway->to_string();
  if (metric) s += " metric=" + std::to_string(*metric);
  return s;
}

namespace {

bool user_on(const UserConfig& u, const std::string& profile) {
  return u.profiles.empty() ||
         std::find(u.profiles.begin(), u.profiles.end(), profile) != u.profiles.end();
}

// pool.reservation.<user>: one address, one holder. Two holders of one address would each
// supersede the other's session at every log-in.
void check_reservations(const ServerConfig& cfg, Findings& f) {
  for (const auto& p : cfg.profiles) {
    const std::string sec = "profile:" + p.name;
    std::map<std::uint32_t, std::string> holder;  // address -> the reservation's user
    for (const auto& [user, ip] : p.pool.reservations) {
      const std::string key = "pool.reservation." + user;
      const auto [it, fresh] = holder.emplace(ip.value, user);
      if (!fresh) {
        f.error(cfg.file, sec, key, p.line,
                ip.to_string() + " is reserved for `" + it->second + "` too (pool.reservation." +
                    it->second + ")");
      }
      const UserConfig* owner = cfg.find_user(user);
      if (owner == nullptr) {
        f.warning(cfg.file, sec, key, p.line,
                  "no user named `" + user + "`: the reservation holds " + ip.to_string() +
                      " for nobody");
      }
      for (const auto& u : cfg.users) {
        if (u.name != user && u.static_ip == ip && user_on(u, p.name)) {
          f.error(cfg.file, sec, key, p.line,
                  ip.to_string() + " is the static_ip of user `" + u.name + "` ([user:" + u.name +
                      "] static_ip) in this pool");
        }
      }
    }
  }
}

}  // namespace

void validate_server_config(const ServerConfig& cfg, Findings& f) {
  const std::string& file = cfg.file;
  check_reservations(cfg, f);
  if (cfg.profiles.empty()) {
    f.error(file, "", "", 0, "no [profile:NAME] section: the server would listen nowhere");
  }
  std::set<std::string> names, tuns;
  std::vector<Bind> binds;
  for (const auto& p : cfg.profiles) {
    const std::string sec = "profile:" + p.name;
    if (!names.insert(p.name).second) {
      f.error(file, sec, "", p.line, "duplicate profile name");
    }
    if (!p.enabled) continue;
    if (!tuns.insert(p.tun.name).second) {
      f.error(file, sec, "tun.name", p.line, "TUN device " + p.tun.name + " used by two profiles");
    }
    binds.push_back(
        {p.transport, p.bind_address, p.bind_port, sec + " bind", sec, "bind.port", p.line});
    for (const auto& l : p.listen) {
      binds.push_back({p.transport, l.host, l.port, sec + " listen", sec, "listen", p.line});
    }
    if (p.dns.enabled) {  // the proxy answers over UDP and TCP (RFC 7766)
      for (Transport t : {Transport::kUdp, Transport::kTcp}) {
        binds.push_back(
            {t, p.dns.listen.to_string(), p.dns.port, sec + " dns", sec, "dns.port", p.line});
        if (p.dns.listen_ipv6) {
          binds.push_back({t, p.dns.listen_ipv6->to_string(), p.dns.port, sec + " dns", sec,
                           "dns.port", p.line});
        }
      }
    }
    if (p.dhcp.enabled) {
      binds.push_back({Transport::kUdp, p.dhcp.listen.host, p.dhcp.listen.port, sec + " dhcp", sec,
                       "dhcp.listen", p.line});
    }
  }
  for (std::size_t i = 0; i < cfg.profiles.size(); ++i) {
    for (std::size_t j = i + 1; j < cfg.profiles.size(); ++j) {
      const auto& a = cfg.profiles[i];
      const auto& b = cfg.profiles[j];
      if (a.enabled && b.enabled && a.pool.cidr.overlaps(b.pool.cidr)) {
        f.error(file, "profile:" + b.name, "pool.cidr", b.line,
                b.pool.cidr.to_string() + " overlaps the pool of profile " + a.name);
      }
      // Two TUNs with one IPv6 prefix: the kernel routes it into one of them, whose
      // reader would hand one profile's packets to the other's session of that offset.
      if (a.enabled && b.enabled && a.pool.ipv6 && b.pool.ipv6 &&
          a.pool.ipv6->overlaps(*b.pool.ipv6)) {
        f.error(file, "profile:" + b.name, "pool.ipv6.cidr", b.line,
                b.pool.ipv6->to_string() + " overlaps the IPv6 pool of profile " + a.name);
      }
    }
  }
  if (cfg.web.enabled) {
    binds.push_back({Transport::kTcp, cfg.web.bind, cfg.web.port, "[web] panel", "web", "port", 0});
  }
  if (cfg.metrics.enabled) {
    binds.push_back({Transport::kTcp, cfg.metrics.listen_address.to_string(),
                     cfg.metrics.listen_port, "[metrics] listen", "metrics", "listen", 0});
  }
  for (std::size_t i = 0; i < binds.size(); ++i) {
    for (std::size_t j = i + 1; j < binds.size(); ++j) {
      if (collide(binds[i], binds[j])) {
        f.error(file, binds[j].file_section, binds[j].key, binds[j].line,
                std::string(to_string(binds[j].transport)) + " port " +
                    std::to_string(binds[j].port) + " already used by " + binds[i].owner);
      }
    }
  }

  std::set<std::string> groups;
  for (const auto& g : cfg.groups) {
    if (!groups.insert(g.name).second) {
      f.error(file, "group:" + g.name, "", g.line, "duplicate group name");
    }
  }
  std::set<std::uint32_t> static_ips;
  // A REALITY short id names one owner: a profile's shared list or one user.
  std::map<ShortId, std::string> short_id_owner;
  for (const auto& p : cfg.profiles) {
    for (const auto& s : p.obf.reality.short_ids) {
      if (auto id = parse_short_id(s)) short_id_owner.emplace(*id, "profile " + p.name);
    }
  }
  for (const auto& u : cfg.users) {
    const std::string sec = "user:" + u.name;
    for (const auto& s : u.reality_short_ids) {
      const auto id = parse_short_id(s);
      if (!id) continue;  // reported where it was read
      const auto [it, fresh] = short_id_owner.emplace(*id, "user " + u.name);
      if (!fresh && it->second != "user " + u.name) {
        f.error(u.source_file, sec, "reality_short_ids", u.line,
                "short id " + s + " already belongs to " + it->second);
      }
    }
    for (const auto& pn : u.profiles) {
      if (cfg.find_profile(pn) == nullptr) {
        f.error(u.source_file, sec, "profiles", u.line, "no profile named `" + pn + "`");
      }
    }
    if (!u.group.empty() && groups.count(u.group) == 0) {
      f.error(u.source_file, sec, "group", u.line, "no [group:" + u.group + "] section");
    }
    if (u.static_ip) {
      bool inside = false;
      for (const auto& p : cfg.profiles) {
        const bool applies = u.profiles.empty() || std::find(u.profiles.begin(), u.profiles.end(),
                                                             p.name) != u.profiles.end();
        if (applies && p.pool.cidr.is_usable_host(*u.static_ip) && *u.static_ip != p.tun.address) {
          inside = true;
        }
      }
      if (!inside) {
        f.error(u.source_file, sec, "static_ip", u.line,
                u.static_ip->to_string() + " is not a free host of any of the user's pools");
      }
      if (!static_ips.insert(u.static_ip->value).second) {
        f.error(u.source_file, sec, "static_ip", u.line,
                u.static_ip->to_string() + " is reserved by another user too");
      }
    }
    // A client's subnet is a source it may send from: inside a pool it would let the
    // client send as other clients (0.7.16 refused only the server's own address).
    bool any_pool6 = false;
    for (const auto& p : cfg.profiles) {
      const bool applies = u.profiles.empty() || std::find(u.profiles.begin(), u.profiles.end(),
                                                           p.name) != u.profiles.end();
      any_pool6 = any_pool6 || (applies && p.pool.ipv6);
      for (const auto& c : u.client_subnets) {
        if (c.overlaps(p.pool.cidr)) {
          f.error(u.source_file, sec, "client_subnet", u.line,
                  c.to_string() + " overlaps pool.cidr " + p.pool.cidr.to_string() +
                      " of profile " + p.name + " (a client could send as another)");
        }
      }
      for (const auto& c : u.client_subnets6) {
        if (p.pool.ipv6 && c.overlaps(*p.pool.ipv6)) {
          f.error(u.source_file, sec, "client_subnet", u.line,
                  c.to_string() + " overlaps pool.ipv6.cidr " + p.pool.ipv6->to_string() +
                      " of profile " + p.name + " (a client could send as another)");
        }
      }
    }
    if (!u.client_subnets6.empty() && !any_pool6) {
      f.warning(u.source_file, sec, "client_subnet", u.line,
                "IPv6 networks are routed only on profiles with pool.ipv6.cidr, and this "
                "user's profiles have none: " +
                    u.client_subnets6.front().to_string() + " stays unreachable");
    }
  }
}

}  // namespace qeli::config
