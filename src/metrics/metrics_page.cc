#include "metrics/metrics_page.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace qeli::metrics {
namespace {

using enum MetricType;

// The profile's own counters (server::counter_values) that answer "how did a handshake
// end", with the outcome each one stands for.
struct Outcome {
  std::string_view counter, outcome;
};
constexpr Outcome kOutcomes[] = {{"sessions_started", "ok"},
                                 {"handshake_failed", "handshake_failed"},
                                 {"auth_failed", "auth_failed"},
                                 {"locked_out", "locked_out"},
                                 {"over_capacity", "over_capacity"}};

// Refused before any handshake (flood defences).
constexpr std::string_view kPreauthDrops[] = {"udp_half_open_evicted", "new_session_rate_limited",
                                              "preauth_crypto_shed", "accept_no_resources",
                                              "udp_unverified_refused"};

// UDP return-routability cookies, with the result each counter stands for.
constexpr Outcome kCookies[] = {{"udp_cookie_challenges", "challenged"},
                                {"udp_cookies_accepted", "accepted"},
                                {"udp_cookies_refused", "refused"}};

bool in(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

void add_profile_counters(Exposition& e, const control::ProfileStats& p) {
  for (const auto& c : p.counters) {
    const std::string_view n = c.name;
    const auto outcome = std::find_if(std::begin(kOutcomes), std::end(kOutcomes),
                                      [&](const Outcome& o) { return o.counter == n; });
    if (n == "accepted") {
      e.family("qeli_connections_accepted_total", kCounter, "TCP connections accepted.")
          .sample({{"profile", p.profile}}, c.value);
    } else if (outcome != std::end(kOutcomes)) {
      e.family("qeli_handshakes_total", kCounter,
               "Handshakes by how they ended (ok = a session started).")
          .sample({{"profile", p.profile}, {"outcome", std::string(outcome->outcome)}}, c.value);
    } else if (std::find(std::begin(kPreauthDrops), std::end(kPreauthDrops), n) !=
               std::end(kPreauthDrops)) {
      e.family("qeli_preauth_drops_total", kCounter,
               "Connections or hellos refused before any handshake work, by reason.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    } else if (const auto* k = std::find_if(std::begin(kCookies), std::end(kCookies),
                                            [&](const Outcome& o) { return o.counter == n; });
               k != std::end(kCookies)) {
      e.family("qeli_udp_cookies_total", kCounter,
               "UDP return-routability cookies: challenges sent to hellos from unverified "
               "sources (challenged), sources an echo verified (accepted), echoes refused: "
               "malformed, another address's or expired (refused).")
          .sample({{"profile", p.profile}, {"result", std::string(k->outcome)}}, c.value);
    } else if (n == "streams_joined" || n == "joins_refused") {
      e.family("qeli_bond_joins_total", kCounter,
               "Stream bonding: connections that JOINed a live session (joined) or were "
               "refused (refused).")
          .sample(
              {{"profile", p.profile}, {"result", n == "streams_joined" ? "joined" : "refused"}},
              c.value);
    } else if (n == "udp_roams" || n == "udp_roams_refused") {
      e.family("qeli_udp_roams_total", kCounter,
               "UDP roaming: sessions that moved to a new client address without a handshake "
               "(migrated), datagrams from a new address that failed the session's AEAD or "
               "replay check (refused).")
          .sample({{"profile", p.profile}, {"result", n == "udp_roams" ? "migrated" : "refused"}},
                  c.value);
    } else if (n == "tcp_resumes" || n == "tcp_resume_expired") {
      e.family("qeli_tcp_resumes_total", kCounter,
               "TCP resume: sessions a new connection took over without a new AUTH "
               "(resumed), sessions whose grace period ran out (expired).")
          .sample({{"profile", p.profile}, {"result", n == "tcp_resumes" ? "resumed" : "expired"}},
                  c.value);
    } else if (n == "tun_no_route") {
      e.family("qeli_packet_drops_total", kCounter, "Packets dropped, by reason.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    } else if (in(n, {"obfs_", "reality_", "bridge_"})) {
      e.family("qeli_carrier_events_total", kCounter,
               "obfs set-up, REALITY gate verdicts and decoy bridges (bridge_started: "
               "strangers bridged), by reason.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    } else if (n.starts_with("dns_")) {
      e.family("qeli_dns_events_total", kCounter, "The profile's DNS proxy, by counter.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    } else {
      // A counter added to the server after this table: published, never lost.
      e.family("qeli_profile_events_total", kCounter, "Other profile counters, by name.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    }
  }
}

// tx_bytes → ("tx", true): the direction of a rx_/tx_ name and whether it had one.
std::pair<std::string, bool> direction_of(std::string_view n) {
  if (n.starts_with("rx_") || n.ends_with("_rx")) return {"rx", true};
  if (n.starts_with("tx_") || n.ends_with("_tx")) return {"tx", true};
  return {"", false};
}

void add_traffic(Exposition& e, const control::ProfileStats& p) {
  for (const auto& c : p.traffic) {
    const std::string_view n = c.name;
    const auto [dir, has_dir] = direction_of(n);
    if (n == "rx_bytes" || n == "tx_bytes") {
      e.family("qeli_bytes_total", kCounter,
               "Inner IP bytes carried (rx: client to server, tx: server to client).")
          .sample({{"profile", p.profile}, {"direction", dir}}, c.value);
    } else if (n == "rx_packets" || n == "tx_packets") {
      e.family("qeli_packets_total", kCounter,
               "Inner IP packets carried (rx: client to server, tx: server to client).")
          .sample({{"profile", p.profile}, {"direction", dir}}, c.value);
    } else if (n.starts_with("heartbeats_") && has_dir) {
      e.family("qeli_heartbeats_total", kCounter, "Heartbeat records.")
          .sample({{"profile", p.profile}, {"direction", dir}}, c.value);
    } else if (n.starts_with("drop_")) {
      // The reason as the disconnect log line names it (queue_full=12).
      e.family("qeli_packet_drops_total", kCounter, "Packets dropped, by reason.")
          .sample({{"profile", p.profile}, {"reason", std::string(n.substr(5))}}, c.value);
    } else {
      e.family("qeli_session_events_total", kCounter,
               "Other session counters (control frames, downlink fragmentation), by name.")
          .sample({{"profile", p.profile}, {"reason", c.name}}, c.value);
    }
  }
}

// A UDP profile's worker sockets (control::UdpSocketFigures): the kernel's drops before
// any of our code saw the datagram, which no other family counts.
void add_udp_socket(Exposition& e, const control::ProfileStats& p) {
  if (!p.udp_socket) return;
  const control::UdpSocketFigures& u = *p.udp_socket;
  e.family("qeli_udp_kernel_drops_total", kCounter,
           "Datagrams the kernel dropped at the profile's UDP sockets' receive queues (they "
           "were full), summed over its worker sockets.")
      .sample({{"profile", p.profile}}, u.kernel_drops);
  e.family("qeli_udp_buffer_grows_total", kCounter,
           "Times an automatic UDP receive buffer grew after kernel drops, summed over the "
           "profile's worker sockets.")
      .sample({{"profile", p.profile}}, u.buffer_grows);
  e.family("qeli_udp_recv_buffer_bytes", kGauge,
           "The largest receive buffer among the profile's UDP worker sockets, as the kernel "
           "granted it (SO_RCVBUF).")
      .sample({{"profile", p.profile}}, u.recv_buffer_bytes);
}

}  // namespace

void add_stats(Exposition& e, const control::StatsSnapshot& s) {
  e.family("qeli_build_info", kGauge, "The running qeli build; always 1.")
      .sample({{"version", s.version}}, std::uint64_t{1});
  e.family("qeli_start_time_seconds", kGauge, "When the server started, in Unix seconds.")
      .sample({}, s.started_unix_secs);
  e.family("qeli_users", kGauge, "Users in the configuration.").sample({}, s.users);
  e.family("qeli_users_disabled", kGauge, "Users disabled in the configuration or by the operator.")
      .sample({}, s.users_disabled);
  e.family("qeli_lockouts", kGauge,
           "Brute-force lockouts in force (addresses and address-user pairs).")
      .sample({}, s.blocked_ips);
  // Every profile's families first, then their counters: each family stays in one
  // block whatever order the profiles come in (Exposition groups them anyway).
  for (const auto& p : s.profiles) {
    e.family("qeli_profile_info", kGauge, "A profile's transport, mode and port; always 1.")
        .sample({{"profile", p.profile},
                 {"transport", p.transport},
                 {"mode", p.mode},
                 {"port", std::to_string(p.port)}},
                std::uint64_t{1});
    e.family("qeli_sessions", kGauge, "Live sessions.")
        .sample({{"profile", p.profile}}, p.sessions);
  }
  for (const auto& p : s.profiles) {
    add_traffic(e, p);
    add_profile_counters(e, p);
    add_udp_socket(e, p);
  }
  for (const auto& c : s.webhooks) {
    e.family("qeli_webhook_events_total", kCounter,
             "Webhook events by outcome: enqueued, delivered, failed_attempts (retried), "
             "given_up, enqueue_failed (the queue was full).")
        .sample({{"result", c.name}}, c.value);
  }
}

void add_users(Exposition& e, const control::UsageList& usage, const control::SessionList& sessions,
               std::uint32_t limit) {
  struct Row {
    std::uint64_t rx = 0, tx = 0, sessions = 0;
  };
  std::map<std::string, Row> users;
  for (const auto& u : usage.users) {
    users[u.username].rx = u.up_bytes;
    users[u.username].tx = u.down_bytes;
  }
  for (const auto& s : sessions.clients) ++users[s.username].sessions;
  std::vector<std::pair<std::string, Row>> ranked(users.begin(), users.end());
  // Most traffic first; a stable order among equals (by name), so the chosen set does not
  // flap between scrapes.
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.rx + a.second.tx > b.second.rx + b.second.tx;
  });
  const std::size_t shown = std::min<std::size_t>(ranked.size(), limit);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [name, r] = ranked[i];
    e.family("qeli_user_bytes_total", kCounter,
             "A user's lifetime inner IP bytes (rx: from the user, tx: to the user).")
        .sample({{"user", name}, {"direction", "rx"}}, r.rx)
        .sample({{"user", name}, {"direction", "tx"}}, r.tx);
    e.family("qeli_user_sessions", kGauge, "A user's live sessions.")
        .sample({{"user", name}}, r.sessions);
  }
  e.family("qeli_metrics_users_omitted", kGauge,
           "Users left without per-user series by [metrics] per_user_limit.")
      .sample({}, static_cast<std::uint64_t>(ranked.size() - shown));
}

Result<std::string, std::string> metrics_page(control::ControlService& service,
                                              const PerUserSeries& per_user) {
  auto stats = control::call(service, control::GetStats{});
  if (!stats.ok()) return fail("stats: " + stats.error().message);
  Exposition e;
  add_stats(e, *stats);
  if (per_user.enabled) {
    auto usage = control::call(service, control::GetUsage{});
    auto sessions = control::call(service, control::ListSessions{});
    if (!usage.ok()) return fail("usage: " + usage.error().message);
    if (!sessions.ok()) return fail("list-clients: " + sessions.error().message);
    add_users(e, *usage, *sessions, per_user.limit);
  }
  return e.text();
}

}  // namespace qeli::metrics
