// [user:NAME] sections, inline in server.conf or in auth.users_file (reference §5.6).
#include <set>

#include "config/modes.h"
#include "config/section_reader.h"
#include "config/server_config.h"
#include "config/values.h"
#include "crypto/argon2id.h"

namespace qeli::config {
namespace {

UserConfig read_user(SectionReader& r, std::string name) {
  UserConfig u;
  u.name = std::move(name);
  u.source_file = r.file();
  u.line = r.line();
  u.password_hash = r.get_string("password_hash", "");
  if (u.password_hash.empty()) {
    r.error("password_hash", "missing: the user could never log in (use `qeli add-client`)");
  } else if (!crypto::argon2id_is_phc(u.password_hash)) {
    r.error("password_hash", "not an Argon2id PHC string ($argon2id$v=19$...)");
  }
  u.password_enc = r.get_string("password_enc", "");
  u.enabled = r.get_bool("enabled", true);
  if (const IniEntry* e = r.single("static_ip")) {
    u.static_ip = Ipv4Addr::parse(e->value);
    if (!u.static_ip) r.bad_value(*e, "an IPv4 address");
  }
  u.reality_short_ids = r.get_list("reality_short_ids", {});
  for (const auto& sid : u.reality_short_ids) {
    if (!is_valid_short_id(sid)) {
      r.error("reality_short_ids",
              "`" + sid + "` is not a short id (1..16 hex digits, not all zero)");
    }
  }
  u.max_sessions = r.get_u<std::uint32_t>("max_sessions", 0, 0, 1000000);
  u.profiles = r.get_list("profiles", {});
  u.group = r.get_string("group", "");
  for (const IniEntry* e : r.all("route")) {
    if (auto route = parse_route(e->value)) {
      u.routes.push_back(*route);
    } else if (auto route6 = parse_route6(e->value)) {
      u.routes6.push_back(*route6);
    } else {
      r.bad_value(*e, std::string(kRouteShape));
    }
  }
  if (auto why = broad_route_warning(u.routes, u.routes6); !why.empty()) {
    r.warning("route", std::move(why));
  }
  u.client_subnets = r.get_network_list("client_subnet", /*allow_bare=*/false, u.client_subnets6);
  for (const auto& c : u.client_subnets) {
    const std::uint32_t first = c.network.value >> 24;
    if (c.prefix == 0) {
      r.error("client_subnet", "0.0.0.0/0 would route everything into this client; refused");
    } else if (first == 0 || first == 127 || first >= 224) {
      // "This network", loopback, multicast and reserved (RFC 6890): never routed to a host.
      r.error("client_subnet", c.to_string() + " is not a unicast network a router forwards");
    }
  }
  for (const auto& c : u.client_subnets6) {
    if (c.prefix == 0) {
      r.error("client_subnet", "::/0 would route everything into this client; refused");
    } else if (const auto& b = c.network.bytes;
               b[0] == 0xff || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)) {
      r.error("client_subnet",
              c.to_string() + " is multicast or link-local: no router forwards it to a client");
    }
  }
  u.allowed_networks =
      r.get_network_list("allowed_networks", /*allow_bare=*/true, u.allowed_networks6);
  u.bandwidth_limit_mbps = r.get_double("bandwidth.limit_mbps", 0, 0, 1e6);
  u.bandwidth_burst_mbps = r.get_double("bandwidth.burst_mbps", 0, 0, 1e6);
  u.data_limit_gb = r.get_double("data_limit_gb", 0, 0, 1e9);
  if (const IniEntry* e = r.single("expire_at")) {
    u.expire_at = parse_uint(e->value, 0xffffffffffULL);
    if (!u.expire_at) r.bad_value(*e, "unix seconds");
  }
  // device.<id> = <name> <Argon2id PHC>: one device's own credential (device_credential.h).
  for (const IniEntry* e : r.with_prefix("device.")) {
    DeviceCredential d;
    d.id = e->key.substr(7);
    const auto space = e->value.find(' ');
    if (space != std::string::npos) {
      d.name = e->value.substr(0, space);
      const auto phc = e->value.find_first_not_of(' ', space);
      if (phc != std::string::npos) d.phc = e->value.substr(phc);
    }
    if (!is_device_id(d.id)) {
      r.error_at(*e, "expected device.<8 hex digits> = <name> <Argon2id PHC> (qeli add-device)");
    } else if (!is_valid_object_name(d.name) || !crypto::argon2id_is_phc(d.phc)) {
      r.error_at(*e, "expected `<name> <Argon2id PHC>` (qeli add-device)");
    } else if (u.find_device(d.id) != nullptr) {
      r.error_at(*e, "given more than once");
    } else {
      u.devices.push_back(std::move(d));
    }
  }
  for (const IniEntry* e : r.with_prefix("metadata.")) {
    const std::string k = e->key.substr(9);
    if (k.empty()) {
      r.error_at(*e, "expected metadata.<key> = value");
    } else if (!u.metadata.emplace(k, e->value).second) {
      r.error_at(*e, "given more than once");
    }
  }
  return u;
}

}  // namespace

void read_user_sections(const IniDocument& doc, bool allow_other_sections,
                        std::vector<UserConfig>& out, Findings& findings) {
  std::set<std::string> seen;
  for (const auto& s : doc.sections) {
    if (!s.name.starts_with("user:")) {
      if (!allow_other_sections) {
        if (s.name.empty()) {
          for (const auto& e : s.entries) {
            findings.error(doc.file, "", e.key, e.line, "key outside of any [user:NAME] section");
          }
        } else {
          findings.error(doc.file, s.name, "", s.line,
                         "a users file holds only [user:NAME] sections");
        }
      }
      continue;
    }
    const std::string name = s.name.substr(5);
    if (name.empty() || name.size() > 64 || name.find_first_of(" :\t") != std::string::npos) {
      findings.error(doc.file, s.name, "", s.line,
                     "user names are 1..64 bytes without spaces or ':'");
      continue;
    }
    if (!seen.insert(name).second) {
      findings.error(doc.file, s.name, "", s.line, "user defined twice in this file");
      continue;
    }
    SectionReader r(s, doc.file, findings);
    out.push_back(read_user(r, name));
    r.finish();
  }
}

}  // namespace qeli::config
