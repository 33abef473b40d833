#include "server/control_handler.h"

#include <algorithm>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "control/peer_access.h"
#include "server/ipv6_plan.h"
#include "server/source_key.h"
#include "server/user_info.h"
#include "sys/log_memory.h"
#include "transport/endpoint.h"
#include "wire/session_close.h"

#ifndef QELI_VERSION
#define QELI_VERSION "0.0.0"
#endif

namespace qeli::server {
namespace {

using control::ControlError;
using control::ErrorCode;
using Reply = Result<control::Response, ControlError>;

Unexpected<ControlError> refuse(ErrorCode c, std::string why) {
  return fail(ControlError{c, std::move(why)});
}

// `s` for an error message: as is when short and printable, else JSON-quoted (so a NUL or
// a terminal escape from the request never reaches the operator's terminal raw).
std::string shown(const std::string& s) {
  const bool plain = s.size() <= 64 &&
                     std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  return plain ? s : nlohmann::json(s.substr(0, 64)).dump();
}

std::size_t end_sessions(const ControlTargets& t, const std::string& user, wire::CloseReason why,
                         std::optional<std::uint64_t> only = std::nullopt) {
  std::size_t n = 0;
  for (const auto& p : *t.profiles) {
    if (!only) {
      n += p->sessions().kick(user, why);
      continue;
    }
    for (const auto& s : p->sessions().list()) {
      if (s->user == user && s->id == *only) {
        s->end(why);
        ++n;
      }
    }
  }
  return n;
}

control::SessionInfo session_info(const ProfileRuntime& p, const Session& s, Instant now) {
  control::SessionInfo i;
  {
    std::lock_guard lock(const_cast<Session&>(s).info_mu);
    i.client_version = s.client_version;
    i.client_platform = s.client_platform;
  }
  const auto& c = s.counters;
  i.id = s.id;
  i.profile = p.name();
  i.username = s.user;
  i.device = s.device_key;
  i.tunnel_ip = transport::ipv4_to_string(s.tunnel_ip);
  if (const auto plan = Ipv6Plan::of(p.profile()); plan && s.peer_state.ipv6.load()) {
    i.tunnel_ip6 = plan->address_of(s.tunnel_ip).to_string();
  }
  i.peer = s.current_peer().to_string();
  i.roams = s.roams.load(std::memory_order_relaxed);
  // 1 Mbit/s = 125 000 bytes/s (UserLimits::rate_of).
  if (s.account) i.bandwidth_limit_mbps = static_cast<double>(s.account->rate()) / 125000.0;
  i.connected_secs = std::chrono::duration_cast<std::chrono::seconds>(now - s.started).count();
  i.streams = p.profile().transport == config::Transport::kTcp ? s.bond.live() : 0;
  i.rx_packets = c.get(tunnel::SessionCounter::kRxPackets);
  i.rx_bytes = c.get(tunnel::SessionCounter::kRxBytes);
  i.tx_packets = c.get(tunnel::SessionCounter::kTxPackets);
  i.tx_bytes = c.get(tunnel::SessionCounter::kTxBytes);
  i.drop_bad_source = c.get(tunnel::SessionCounter::kDropBadSource);
  i.drop_policy = c.get(tunnel::SessionCounter::kDropPolicy);
  i.drop_ipv6 = c.get(tunnel::SessionCounter::kDropIpv6);
  i.drop_not_ipv4 = c.get(tunnel::SessionCounter::kDropNotIpv4);
  i.drop_queue_full = c.get(tunnel::SessionCounter::kDropQueueFull);
  i.drop_replay = c.get(tunnel::SessionCounter::kDropReplay);
  i.drop_tun_write = c.get(tunnel::SessionCounter::kDropTunWrite);
  i.drop_bad_gso = c.get(tunnel::SessionCounter::kDropBadGso);
  i.drop_too_big = c.get(tunnel::SessionCounter::kDropTooBig);
  for_each_counter(c, [&](const CounterInfo& info, tunnel::SessionCounter, std::uint64_t v) {
    i.counters.push_back({std::string(info.name), v});
  });
  i.gso = s.peer_state.gso.load();
  i.close_notify = s.peer_state.close_notify.load();
  i.aead = s.peer_state.tls_bound.load() ? "none (tls-bound)"
           : s.peer_state.aes_gcm.load() ? "aes-256-gcm"
                                         : "chacha20-poly1305";
  return i;
}

control::SessionList list_sessions(const ControlTargets& t, Instant now) {
  control::SessionList out;
  for (const auto& p : *t.profiles) {
    for (const auto& s : p->sessions().list()) out.clients.push_back(session_info(*p, *s, now));
  }
  return out;
}

control::BlockedList list_blocked(const ControlTargets& t, Instant now) {
  control::BlockedList out;
  for (const auto& b : t.guard->blocked(now)) {
    out.blocked.push_back({to_string_key(b.ip), b.user,
                           std::chrono::ceil<std::chrono::seconds>(b.left).count(), b.failures});
  }
  out.blocked_ips = out.blocked.size();
  return out;
}

control::StatsSnapshot stats(const ControlTargets& t, Instant now) {
  control::StatsSnapshot out;
  out.version = QELI_VERSION;
  out.uptime_secs = std::chrono::duration_cast<std::chrono::seconds>(now - t.started).count();
  out.started_unix_secs = t.started_unix_secs;
  const auto users = t.users->snapshot();
  out.users = users->users.size();
  for (const auto& u : users->users) {
    if (!u.enabled || t.users->disabled(u.name)) ++out.users_disabled;
  }
  out.blocked_ips = t.guard->locked_count(now);
  if (t.webhooks != nullptr) {
    const WebhookCounters& c = t.webhooks->counters();
    out.webhooks = {{"enqueued", c.enqueued.load()},
                    {"delivered", c.delivered.load()},
                    {"failed_attempts", c.failed_attempts.load()},
                    {"given_up", c.given_up.load()},
                    {"enqueue_failed", c.enqueue_failed.load()}};
  }
  for (const auto& p : *t.profiles) {
    control::ProfileStats ps;
    ps.profile = p->name();
    ps.transport = std::string(config::to_string(p->profile().transport));
    ps.mode = std::string(config::to_string(p->profile().link_mode()));
    ps.port = p->bound_port() != 0 ? p->bound_port() : p->profile().bind_port;
    ps.sessions = p->sessions().size();
    ps.counters = counter_values(p->counters());
    const auto totals = p->sessions().traffic_totals();
    for (std::size_t i = 0; i < totals.size(); ++i) {
      ps.traffic.push_back({std::string(tunnel::kSessionCounterInfo[i].name), totals[i]});
    }
    const auto& obf = p->profile().obf;
    if (p->profile().transport == config::Transport::kTcp &&
        (obf.mode == config::ObfMode::kObfs || obf.reality.enabled)) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(CarrierCounter::kCount); ++i) {
        const auto c = static_cast<CarrierCounter>(i);
        ps.counters.push_back({std::string(name(c)), p->carrier_counters().get(c)});
      }
    }
    if (const TlsTarget* tt = p->tls_target()) ps.tls_target = tt->describe();
    if (const auto u = p->udp_socket_figures()) {
      ps.udp_socket =
          control::UdpSocketFigures{u->kernel_drops, u->buffer_grows, u->recv_buffer_bytes};
    }
    if (const DnsService* dns = p->dns()) {
      for (std::size_t i = 0; i < dns::kCounterCount; ++i) {
        ps.counters.push_back({std::string(dns::counter_table()[i].name),
                               dns->counters().get(static_cast<dns::Counter>(i))});
      }
    }
    out.profiles.push_back(std::move(ps));
  }
  return out;
}

std::vector<std::string> cidrs(const std::vector<config::Ipv4Cidr>& v) {
  std::vector<std::string> out;
  for (const auto& c : v) out.push_back(c.to_string());
  return out;
}

control::UserList list_users(const ControlTargets& t) {
  control::UserList out;
  const auto snap = t.users->snapshot();
  std::unordered_map<std::string, std::uint64_t> live;
  for (const auto& p : *t.profiles) {
    for (const auto& s : p->sessions().list()) ++live[s->user];
  }
  for (const auto& u : snap->users) {
    control::UserInfo i = user_info(u);
    i.disabled_live = t.users->disabled(u.name);
    if (auto it = live.find(u.name); it != live.end()) i.sessions = it->second;
    out.users.push_back(std::move(i));
  }
  for (const auto& g : snap->groups) {
    out.groups.push_back(
        {g.name, g.bandwidth_limit_mbps, g.max_sessions, cidrs(g.allowed_networks)});
    for (const auto& n : g.allowed_networks6)
      out.groups.back().allowed_networks.push_back(n.to_string());
  }
  return out;
}

void note(const ControlTargets& t, std::string type, std::string user, std::string reason = {}) {
  if (t.events == nullptr) return;
  control::Event e;
  e.type = std::move(type);
  e.username = std::move(user);
  e.reason = std::move(reason);
  t.events->push(std::move(e));
}

// kick / disable-user / enable-user.
Reply switch_user(const ControlTargets& t, const std::string& cmd, const std::string& user,
                  std::optional<std::uint64_t> session_id,
                  wire::CloseReason kick_reason = wire::CloseReason::kKicked) {
  if (user.empty()) return refuse(ErrorCode::kBadRequest, cmd + " needs \"username\"");
  const auto users = t.users->snapshot();  // keeps `cfg` alive across a reload
  const auto* cfg = users->find(user);
  const std::string unknown = "no user '" + shown(user) + "'";
  if (cmd == "kick") {
    // A user removed from the config by a reload may still have a live session: kick it.
    const std::size_t kicked = end_sessions(t, user, kick_reason, session_id);
    if (kicked == 0 && session_id) return refuse(ErrorCode::kNotFound, "no such session");
    if (kicked == 0 && cfg == nullptr) return refuse(ErrorCode::kNotFound, unknown);
    if (kicked > 0) note(t, "session.kicked", user);
    return control::Response{control::KickResult{kicked}};
  }
  if (cmd == "enable-user") {
    const bool was = t.users->enable(user);
    if (!was && cfg == nullptr) return refuse(ErrorCode::kNotFound, unknown);
    control::UserSwitchResult r{was, 0, {}};
    if (cfg != nullptr && !cfg->enabled) {
      r.warning = "'" + user + "' is still disabled by its config (enabled = false)";
    }
    if (was) note(t, "user.enabled", user);
    return control::Response{r};
  }
  if (cfg == nullptr) return refuse(ErrorCode::kNotFound, unknown);
  const bool changed = t.users->disable(user);
  const std::size_t kicked = end_sessions(t, user, wire::CloseReason::kDisabled);
  if (changed) note(t, "user.disabled", user);
  return control::Response{control::UserSwitchResult{!changed, kicked, {}}};
}

Reply unblock(const ControlTargets& t, const std::string& ip) {
  if (ip.empty()) {
    return refuse(ErrorCode::kBadRequest, "unblock needs \"ip\" (an IPv4 or IPv6 address)");
  }
  // The whole string must parse: "10.0.0.1\u0000…" is refused, not cut short.
  const auto key = parse_source_key(ip);
  if (!key) {
    return refuse(ErrorCode::kBadRequest,
                  shown(ip) + " is not an IPv4 address, an IPv6 address or an IPv6 /64");
  }
  if (!t.guard->unblock(*key)) return refuse(ErrorCode::kNotFound, ip + " is not blocked");
  // Named as the lockout is kept: an IPv6 address lifts its whole /64.
  spdlog::info("lockouts of {} lifted (control socket)", to_string_key(*key));
  return control::Response{control::UnblockResult{to_string_key(*key)}};
}

Reply set_bandwidth(const ControlTargets& t, const control::SetBandwidth& r) {
  if (t.accounts == nullptr) return refuse(ErrorCode::kUnavailable, "no traffic accounts");
  if (!t.accounts->set_bandwidth(r.username, r.mbps)) {
    return refuse(ErrorCode::kNotFound, "no user '" + shown(r.username) + "'");
  }
  note(t, "user.bandwidth", r.username, std::to_string(r.mbps) + " Mbit/s");
  return control::Response{control::BandwidthSet{r.username, r.mbps}};
}

Reply usage(const ControlTargets& t) {
  if (t.accounts == nullptr) return refuse(ErrorCode::kUnavailable, "no traffic accounts");
  control::UsageList out;
  for (const auto& row : t.accounts->usage()) {
    control::UserUsage u;
    u.username = row.user;
    u.down_bytes = row.down_bytes;
    u.up_bytes = row.up_bytes;
    if (row.quota != engine::TrafficAccount::kNoQuota) u.quota_bytes = row.quota;
    u.limit_mbps = static_cast<double>(row.rate) / 125'000.0;
    u.limit_live = row.rate_overridden;
    out.users.push_back(std::move(u));
  }
  return control::Response{std::move(out)};
}

control::WebhookLog webhook_log(const ControlTargets& t, std::uint32_t limit) {
  control::WebhookLog out;
  if (t.webhooks == nullptr) return out;
  out.enabled = true;
  out.pending = t.webhooks->outbox().pending();
  for (auto& row : t.webhooks->outbox().log(limit)) {
    out.deliveries.push_back({row.at_ms, std::move(row.id), std::move(row.type),
                              std::move(row.result), row.status, std::move(row.detail)});
  }
  return out;
}

Reply log_lines(const control::GetLogs& r) {
  spdlog::level::level_enum min{};
  if (!sys::parse_spdlog_level(r.level, min)) {
    return refuse(ErrorCode::kBadRequest,
                  "level: error, warn, info, debug or trace, not '" + shown(r.level) + "'");
  }
  control::LogLines out;
  auto& memory = sys::log_memory();
  for (auto& l :
       memory.since(r.after, std::clamp<std::uint32_t>(r.limit, 1, 1000), min, &out.last_seq)) {
    out.lines.push_back({l.seq, l.unix_ms, std::move(l.level), std::move(l.text)});
  }
  return control::Response{std::move(out)};
}

Reply reset_usage(const ControlTargets& t, const std::string& user) {
  if (t.accounts == nullptr) return refuse(ErrorCode::kUnavailable, "no traffic accounts");
  if (!t.accounts->reset(user))
    return refuse(ErrorCode::kNotFound, "no user '" + shown(user) + "'");
  note(t, "user.usage_reset", user);
  return control::Response{control::Empty{}};
}

// Who asked, for the log and the event: the panel's admin, else the socket's caller.
std::string actor_of(const std::string& actor, const control::Caller& caller) {
  return actor.empty() ? "uid " + std::to_string(caller.uid) : shown(actor);
}

std::string request_actor(const control::Request& r) {
  return std::visit(
      [](const auto& v) -> std::string {
        if constexpr (requires { v.actor; }) {
          return v.actor;
        } else {
          return {};
        }
      },
      r);
}

// add-user / remove-user / edit-user / add-device / revoke-device, logged and noted once
// done.
Reply user_admin(const ControlTargets& t, const control::Request& request,
                 const control::Caller& caller) {
  if (t.user_admin == nullptr) {
    return refuse(ErrorCode::kUnavailable, "this server was started without a config file");
  }
  auto& admin = *t.user_admin;
  const auto done = [&](auto result, const std::string& type, const std::string& user,
                        const std::string& what) -> Reply {
    if (!result.ok()) return fail(result.error());
    spdlog::info("{} by {}", what, actor_of(request_actor(request), caller));
    note(t, type, user, actor_of(request_actor(request), caller));
    return control::Response{std::move(*result)};
  };
  if (const auto* r = std::get_if<control::AddUser>(&request)) {
    return done(admin.add_user(*r), "user.added", r->username,
                "user '" + shown(r->username) + "' added");
  }
  if (const auto* r = std::get_if<control::RemoveUser>(&request)) {
    return done(admin.remove_user(*r), "user.removed", r->username,
                "user '" + shown(r->username) + "' removed");
  }
  if (const auto* r = std::get_if<control::EditUser>(&request)) {
    return done(admin.edit_user(*r), "user.edited", r->username,
                "user '" + shown(r->username) + "' edited");
  }
  if (const auto* r = std::get_if<control::AddDevice>(&request)) {
    auto issued = admin.add_device(*r);
    const std::string what = issued.ok() ? "device '" + issued->name + "' (id " + issued->id +
                                               ") of user '" + r->username + "' added"
                                         : std::string();
    return done(std::move(issued), "device.added", r->username, what);
  }
  const auto& r = std::get<control::RevokeDevice>(request);
  return done(admin.revoke_device(r), "device.revoked", r.username,
              "device " + shown(r.id) + " of user '" + shown(r.username) + "' revoked");
}

// Why a reload was refused: its first finding that is not a warning, as check-config
// prints it.
std::string first_error(const std::vector<control::ConfigFinding>& findings) {
  for (const auto& f : findings) {
    if (f.severity != "warning") return f.text;
  }
  return "the server keeps its running configuration";
}

Reply no_config() {
  return refuse(ErrorCode::kUnavailable, "this server was started without a config store");
}

template <class T>
Reply wrap(Result<T, ControlError> r) {
  if (!r.ok()) return fail(r.error());
  return control::Response{std::move(*r)};
}

}  // namespace

std::vector<control::CounterValue> counter_values(const ProfileCounters& c) {
  return {{"accepted", c.accepted.load()},
          {"handshake_failed", c.handshake_failed.load()},
          {"auth_failed", c.auth_failed.load()},
          {"locked_out", c.locked_out.load()},
          {"over_capacity", c.over_capacity.load()},
          {"sessions_started", c.sessions_started.load()},
          {"tun_no_route", c.tun_no_route.load()},
          {"udp_half_open_evicted", c.udp_half_open_evicted.load()},
          {"new_session_rate_limited", c.new_session_rate_limited.load()},
          {"preauth_crypto_shed", c.preauth_crypto_shed.load()},
          {"udp_unverified_refused", c.udp_unverified_refused.load()},
          {"udp_cookie_challenges", c.udp_cookie_challenges.load()},
          {"udp_cookies_accepted", c.udp_cookies_accepted.load()},
          {"udp_cookies_refused", c.udp_cookies_refused.load()},
          {"accept_no_resources", c.accept_no_resources.load()},
          {"streams_joined", c.streams_joined.load()},
          {"joins_refused", c.joins_refused.load()},
          {"udp_roams", c.udp_roams.load()},
          {"udp_roams_refused", c.udp_roams_refused.load()},
          {"tcp_resumes", c.tcp_resumes.load()},
          {"tcp_resume_expired", c.tcp_resume_expired.load()}};
}

Reply ControlHandler::handle(const control::Request& request, const control::Caller& caller) {
  const Instant now = now_();
  const ControlTargets& t = t_;
  return std::visit(
      [&](const auto& r) -> Reply {
        using R = std::decay_t<decltype(r)>;
        using namespace control;
        if constexpr (std::is_same_v<R, ListSessions>) {
          return Response{list_sessions(t, now)};
        } else if constexpr (std::is_same_v<R, Kick>) {
          return switch_user(t, "kick", r.username, r.session_id,
                             r.reason == "credentials-changed"
                                 ? wire::CloseReason::kCredentialsChanged
                                 : wire::CloseReason::kKicked);
        } else if constexpr (std::is_same_v<R, DisableUser>) {
          return switch_user(t, "disable-user", r.username, std::nullopt);
        } else if constexpr (std::is_same_v<R, EnableUser>) {
          return switch_user(t, "enable-user", r.username, std::nullopt);
        } else if constexpr (std::is_same_v<R, ListBlocked>) {
          return Response{list_blocked(t, now)};
        } else if constexpr (std::is_same_v<R, Unblock>) {
          return unblock(t, r.ip);
        } else if constexpr (std::is_same_v<R, UnblockAll>) {
          t.guard->unblock_all();
          return Response{UnblockResult{}};
        } else if constexpr (std::is_same_v<R, GetStats>) {
          return Response{stats(t, now)};
        } else if constexpr (std::is_same_v<R, GetEvents>) {
          if (t.events == nullptr) return Response{EventList{}};
          return Response{t.events->since(r.after, r.limit)};
        } else if constexpr (std::is_same_v<R, ListUsers>) {
          return Response{list_users(t)};
        } else if constexpr (std::is_same_v<R, GetConfig>) {
          if (t.config == nullptr) return no_config();
          return wrap(t.config->read());
        } else if constexpr (std::is_same_v<R, ValidateConfig>) {
          if (t.config == nullptr) return no_config();
          return Response{t.config->validate(r.text)};
        } else if constexpr (std::is_same_v<R, SaveConfig>) {
          if (t.config == nullptr || !t.reload) return no_config();
          auto saved = t.config->save(r);
          if (!saved.ok()) return fail(saved.error());
          if (!saved->history_id.empty()) {
            note(t, "config.changed", "",
                 r.actor.empty() ? "uid " + std::to_string(caller.uid) : r.actor);
            const auto reload = t.reload();
            saved->reloaded = reload.ok;
            if (!reload.ok) saved->reload_error = first_error(reload.findings);
          }
          return Response{std::move(*saved)};
        } else if constexpr (std::is_same_v<R, ListConfigHistory>) {
          if (t.config == nullptr) return no_config();
          return Response{t.config->history()};
        } else if constexpr (std::is_same_v<R, GetConfigVersion>) {
          if (t.config == nullptr) return no_config();
          return wrap(t.config->version(r.id));
        } else if constexpr (std::is_same_v<R, Reload>) {
          if (!t.reload) return no_config();
          return Response{t.reload()};
        } else if constexpr (std::is_same_v<R, Whoami>) {
          return Response{
              CallerInfo{caller.uid, caller.gid, caller.pid, permission_names(caller.permissions)}};
        } else if constexpr (std::is_same_v<R, SetBandwidth>) {
          return set_bandwidth(t, r);
        } else if constexpr (std::is_same_v<R, GetUsage>) {
          return usage(t);
        } else if constexpr (std::is_same_v<R, ResetUsage>) {
          return reset_usage(t, r.username);
        } else if constexpr (std::is_same_v<R, GetWebhookLog>) {
          return Response{webhook_log(t, r.limit)};
        } else if constexpr (std::is_same_v<R, GetLogs>) {
          return log_lines(r);
        } else if constexpr (std::is_same_v<R, AddUser> || std::is_same_v<R, RemoveUser> ||
                             std::is_same_v<R, EditUser> || std::is_same_v<R, AddDevice> ||
                             std::is_same_v<R, RevokeDevice>) {
          return user_admin(t, request, caller);
        } else if constexpr (std::is_same_v<R, GetClientStatus>) {
          return refuse(ErrorCode::kUnknownCommand,
                        "'status' is a client's command (this is a server: try list-clients)");
        } else {
          static_assert(sizeof(R) == 0, "every request needs a case");
        }
      },
      request);
}

}  // namespace qeli::server
