#include "server/control_handler.h"

#include <algorithm>
#include <mutex>
#include <string>

#include "transport/endpoint.h"
#include "wire/session_close.h"

namespace qeli::server {
namespace {

using json = nlohmann::json;

json refuse(std::string why) { return {{"ok", false}, {"error", std::move(why)}}; }

// The string field `key`, or nullptr when it is missing or not a string.
const std::string* string_field(const json& req, const char* key) {
  auto it = req.find(key);
  return it != req.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

// `s` for an error message: as is when short and printable, else JSON-quoted (so a NUL or
// a terminal escape from the request never reaches the operator's terminal raw).
std::string shown(const std::string& s) {
  const bool plain = s.size() <= 64 &&
                     std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  return plain ? s : json(s.substr(0, 64)).dump();
}

std::size_t end_sessions(const ControlTargets& t, const std::string& user, wire::CloseReason why) {
  std::size_t n = 0;
  for (const auto& p : *t.profiles) n += p->sessions().kick(user, why);
  return n;
}

json list_clients(const ControlTargets& t, Instant now) {
  json clients = json::array();
  for (const auto& p : *t.profiles) {
    for (const auto& s : p->sessions().list()) {
      std::string version, platform;
      {
        std::lock_guard lock(s->info_mu);
        version = s->client_version;
        platform = s->client_platform;
      }
      const auto& c = s->counters;
      clients.push_back(
          {{"profile", p->name()},
           {"username", s->user},
           {"device", s->device_key},
           {"tunnel_ip", transport::ipv4_to_string(s->tunnel_ip)},
           {"peer", s->peer.to_string()},
           {"connected_secs",
            std::chrono::duration_cast<std::chrono::seconds>(now - s->started).count()},
           {"rx_packets", c.rx_packets.load()},
           {"rx_bytes", c.rx_bytes.load()},
           {"tx_packets", c.tx_packets.load()},
           {"tx_bytes", c.tx_bytes.load()},
           {"drop_bad_source", c.drop_bad_source.load()},
           {"drop_policy", c.drop_policy.load()},
           {"drop_ipv6", c.drop_ipv6.load()},
           {"drop_not_ipv4", c.drop_not_ipv4.load()},
           {"gso", s->gso.load()},
           {"close_notify", s->close_notify.load()},
           {"client_version", version},
           {"client_platform", platform}});
    }
  }
  return {{"ok", true}, {"clients", clients}};
}

json list_blocked(const ControlTargets& t, Instant now) {
  json blocked = json::array();
  for (const auto& b : t.guard->blocked(now)) {
    const auto secs = std::chrono::ceil<std::chrono::seconds>(b.left).count();
    blocked.push_back({{"ip", transport::ipv4_to_string(b.ip)},
                       {"seconds_left", secs},
                       {"failures", b.failures}});
  }
  return {{"ok", true}, {"blocked", blocked}, {"blocked_ips", blocked.size()}};
}

// Why connections ended before authentication, per profile (the wire shows nothing).
json stats(const ControlTargets& t) {
  json out = json::array();
  for (const auto& p : *t.profiles) {
    const ProfileCounters& c = p->counters();
    json row = {{"profile", p->name()},
                {"accepted", c.accepted.load()},
                {"handshake_failed", c.handshake_failed.load()},
                {"auth_failed", c.auth_failed.load()},
                {"locked_out", c.locked_out.load()},
                {"over_capacity", c.over_capacity.load()},
                {"sessions_started", c.sessions_started.load()},
                {"tun_no_route", c.tun_no_route.load()},
                {"udp_half_open_evicted", c.udp_half_open_evicted.load()},
                {"new_session_rate_limited", c.new_session_rate_limited.load()},
                {"preauth_crypto_shed", c.preauth_crypto_shed.load()}};
    if (const DnsService* dns = p->dns()) {
      for (std::size_t i = 0; i < dns::kCounterCount; ++i) {
        row[dns::counter_table()[i].name] = dns->counters().get(static_cast<dns::Counter>(i));
      }
    }
    out.push_back(std::move(row));
  }
  return {{"ok", true}, {"profiles", out}};
}

}  // namespace

json handle_control(const json& req, const ControlTargets& t, Instant now) {
  const std::string* cmd = req.is_object() ? string_field(req, "cmd") : nullptr;
  if (cmd == nullptr) return refuse("the request needs a string \"cmd\"");
  if (*cmd == "list-clients") return list_clients(t, now);
  if (*cmd == "list-blocked") return list_blocked(t, now);
  if (*cmd == "stats") return stats(t);
  if (*cmd == "unblock-all") {
    t.guard->unblock_all();
    return {{"ok", true}};
  }
  if (*cmd == "unblock") {
    const std::string* ip = string_field(req, "ip");
    if (ip == nullptr || ip->empty()) return refuse("unblock needs \"ip\" (an IPv4 address)");
    std::uint32_t addr = 0;
    // parse_ipv4 takes the whole string: "10.0.0.1\u0000…" is refused, not cut short.
    if (!transport::parse_ipv4(*ip, addr)) return refuse(shown(*ip) + " is not an IPv4 address");
    if (!t.guard->unblock(addr)) return refuse(*ip + " is not blocked");
    return {{"ok", true}, {"ip", *ip}};
  }
  if (*cmd == "kick" || *cmd == "disable-user" || *cmd == "enable-user") {
    const std::string* user = string_field(req, "username");
    if (user == nullptr || user->empty()) return refuse(*cmd + " needs \"username\"");
    const auto users = t.users->snapshot();  // keeps `cfg` alive across a reload
    const auto* cfg = users->find(*user);
    const std::string unknown = "no user '" + shown(*user) + "'";
    if (*cmd == "kick") {
      // A user removed from the config by a reload may still have a live session: kick it.
      const std::size_t kicked = end_sessions(t, *user, wire::CloseReason::kKicked);
      if (kicked == 0 && cfg == nullptr) return refuse(unknown);
      return {{"ok", true}, {"kicked", kicked}};
    }
    if (*cmd == "enable-user") {
      const bool was = t.users->enable(*user);
      if (!was && cfg == nullptr) return refuse(unknown);
      json r = {{"ok", true}, {"was_disabled", was}};
      if (cfg != nullptr && !cfg->enabled) {
        r["warning"] = "'" + *user + "' is still disabled by its config (enabled = false)";
      }
      return r;
    }
    if (cfg == nullptr) return refuse(unknown);
    const bool changed = t.users->disable(*user);
    return {{"ok", true},
            {"was_disabled", !changed},
            {"kicked", end_sessions(t, *user, wire::CloseReason::kDisabled)}};
  }
  return refuse("unknown command '" + *cmd + "'");
}

}  // namespace qeli::server
