#include "server/server.h"

#include <linux/capability.h>
#include <signal.h>

#include <spdlog/spdlog.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "control/control_socket.h"
#include "control/peer_access.h"
#include "metrics/metrics_page.h"
#include "metrics/metrics_server.h"
#include "transport/endpoint.h"

#include "config/auth_reload.h"
#include "config/identity_store.h"
#include "config/server_config.h"
#include "config/web_session_key.h"
#include "server/auth_guard.h"
#include "server/config_store.h"
#include "server/control_handler.h"
#include "server/event_log.h"
#include "server/file_steward.h"
#include "server/panel_child.h"
#include "server/profile_runtime.h"
#include "server/reload_verdict.h"
#include "server/startup_privileges.h"
#include "server/traffic_accounts.h"
#include "server/usage_store.h"
#include "server/user_directory.h"
#include "server/webhook_dispatcher.h"
#include "sys/daemon_signals.h"
#include "sys/log_output.h"
#include "sys/privilege.h"
#include "sys/privilege_check.h"
#include "sys/service_notify.h"

namespace qeli::server {
namespace {

UserSnapshot users_of(const config::ServerConfig& c) { return UserSnapshot{c.users, c.groups}; }

BruteForcePolicy policy_of(const config::BruteForceConfig& b) {
  return {b.enabled, b.max_attempts,         b.window,
          b.lockout, b.address_max_attempts, b.per_address_only};
}

// Before any TUN or socket: the privileges start-up needs, named (sys/privilege_check.h).
// Without `cfg` (not read yet): only what every server needs.
std::optional<std::string> missing_server_privileges(const config::ServerConfig* cfg) {
  std::vector<sys::PrivilegeNeed> needs = {
      {CAP_NET_ADMIN, "create the TUN devices, their addresses and the NAT tables"}};
  // The first privileged port of any listener (bind.port or a `listen` entry).
  std::optional<std::pair<std::uint16_t, std::string>> low;
  for (const auto& p : cfg != nullptr ? cfg->profiles : std::vector<config::ProfileConfig>{}) {
    if (!p.enabled) continue;
    std::vector<std::uint16_t> ports{p.bind_port};
    for (const auto& l : p.listen) ports.push_back(l.port);
    for (const auto port : ports) {
      if (!low && port != 0 && port < 1024) low.emplace(port, p.name);
    }
  }
  if (low) {
    needs.push_back({CAP_NET_BIND_SERVICE, "listen on port " + std::to_string(low->first) +
                                               " (profile " + low->second + ")"});
  }
  if (cfg != nullptr && cfg->metrics.enabled && cfg->metrics.listen_port < 1024) {
    needs.push_back(
        {CAP_NET_BIND_SERVICE,
         "listen on port " + std::to_string(cfg->metrics.listen_port) + " ([metrics])"});
  }
  return sys::missing_privileges("qeli server", needs);
}

// After a reload: ends the sessions the new users no longer allow (server/reload_verdict.h).
std::size_t end_stale_sessions(const std::vector<std::unique_ptr<ProfileRuntime>>& profiles,
                               const UserSnapshot& before, const UserSnapshot& after) {
  std::size_t ended = 0;
  for (const auto& p : profiles) {
    for (const auto& s : p->sessions().list()) {
      const auto v =
          reload_verdict(before.find(s->user), after.find(s->user), p->name(), s->credential());
      if (!v) continue;
      spdlog::info("[{}] ending the session of '{}': {} (reload)", p->name(), s->user, v->why);
      s->end(v->close);
      ++ended;
    }
  }
  return ended;
}

// The panel's command line and session key ([web] enabled = true). Errors: no control
// socket (the panel's only way in), a session key file that cannot be read or created.
Result<std::unique_ptr<PanelChild>, std::string> make_panel_child(const ServerOptions& options,
                                                                  const config::ServerConfig& cfg,
                                                                  const std::string& identity_dir,
                                                                  const std::string& account) {
  if (options.control_socket.empty()) {
    return fail(std::string(
        "enabled = true needs the control socket (the panel's only way into the server); "
        "do not start the server with --socket ''"));
  }
  auto key = cfg.web.persist_session_key
                 ? config::load_or_create_session_key(config::session_key_path(identity_dir))
                 : Result<config::WebSessionKey, std::string>(config::random_session_key());
  if (!key.ok()) return fail("session key: " + key.error());
  const auto abs = [](const std::string& p) { return std::filesystem::absolute(p).string(); };
  std::vector<std::string> argv = {"/proc/self/exe", "panel",
                                   "--config",       abs(options.config_path),
                                   "--socket",       abs(options.control_socket),
                                   "--identity-dir", abs(identity_dir)};
  if (!account.empty()) {
    argv.push_back("--user");
    argv.push_back(account);
  }
  return std::make_unique<PanelChild>(std::move(argv), *key);
}

void print_findings(const config::Findings& f) {
  for (const auto& item : f.all()) {
    if (item.severity == config::Severity::kError) {
      spdlog::error("{}", item.to_string());
    } else {
      spdlog::warn("{}", item.to_string());
    }
  }
}

// The usage database lives in the service user's state directory (qeli:qeli 0750 from
// the package), where root without CAP_DAC_OVERRIDE (the unit's bounding set) may not
// create files: with --user it is opened as that user, so its files belong to the user
// who writes them after the privilege drop. A directory only root may write (a path of
// the operator's choosing) is then tried as root, as without --user.
// The webhook outbox follows the same rule.
template <class Open>
auto open_as_service_user(const ServerOptions& options, Open open) -> decltype(open()) {
  if (!options.run_as.empty()) {
    if (auto as_user = sys::FilesAsUser::enter(options.run_as); as_user.ok()) {
      auto st = open();
      if (st.ok()) return st;
    }
  }
  return open();
}

Result<std::unique_ptr<UsageStore>, std::string> open_usage_store(const ServerOptions& options) {
  return open_as_service_user(options, [&] { return open_sqlite_usage_store(options.usage_db); });
}

}  // namespace

int run_server(const ServerOptions& options) {
  // Signals are taken synchronously by this thread only: block them before any thread
  // starts so every thread inherits the mask.
  const sigset_t set = sys::block_daemon_signals();

  // Journal-aware from the first line (config errors included); [logging] once it is read.
  (void)sys::configure_logging({});
  sys::ServiceNotifier notifier;
  // Say which privilege is missing before a config it may not even be able to read.
  if (auto why = missing_server_privileges(nullptr)) {
    spdlog::error("{}", *why);
    return 1;
  }
  auto load = config::load_server_config(options.config_path);
  print_findings(load.findings);
  if (!load.ok()) {
    spdlog::error("{}: refusing to start with the errors above", options.config_path);
    return 1;
  }
  const config::ServerConfig& cfg = load.config;
  if (auto st = sys::configure_logging(cfg.logging.options()); !st.ok()) {
    spdlog::error("{}: [logging] file: {}", options.config_path, st.error());
    return 1;
  }
  if (auto why = missing_server_privileges(&cfg)) {
    spdlog::error("{}", *why);
    return 1;
  }
  const Instant started = std::chrono::steady_clock::now();
  const std::int64_t started_unix = std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
  EventLog events;
  // After the privilege drop the server cannot create files beside root's config: the
  // file steward (file_steward.h), started now as root, writes what the control API saves.
  const std::string config_abs = std::filesystem::absolute(options.config_path).string();
  const ConfigStore plain_store(config_abs);
  std::unique_ptr<FileStewardClient> steward;
  if (!options.run_as.empty()) {
    auto st = FileStewardClient::spawn({"/proc/self/exe", "file-steward", "--config", config_abs,
                                        "--users",
                                        std::filesystem::absolute(cfg.users_file_path()).string(),
                                        "--history", plain_store.history_dir()});
    if (!st.ok()) {
      spdlog::error("{}", st.error());
      return 1;
    }
    steward = std::move(*st);
  }
  ConfigStore config_store(config_abs, {}, steward.get());
  UserDirectory users(users_of(cfg));
  std::unique_ptr<UsageStore> usage_store;
  if (!options.usage_db.empty()) {
    const auto dir = std::filesystem::path(options.usage_db).parent_path();
    std::error_code ec;
    if (options.usage_db == ServerOptions::kDefaultUsageDb &&
        !std::filesystem::is_directory(dir, ec)) {
      spdlog::warn(
          "{} does not exist: per-user traffic totals are kept in memory only "
          "(data_limit_gb counts from zero after a restart; see --usage-db)",
          dir.string());
    } else if (auto st = open_usage_store(options); st.ok()) {
      usage_store = std::move(*st);
    } else {
      spdlog::error("usage store: {}", st.error());
      return 1;
    }
  }
  TrafficAccounts accounts(std::move(usage_store), users_of(cfg));
  // [webhooks]: every selected event goes to the dispatcher's bounded queue (no disk on the
  // event's thread); its one thread writes it to the durable outbox and delivers. A broken
  // outbox stops the start (events would be lost silently).
  std::unique_ptr<WebhookDispatcher> webhooks;
  if (cfg.webhooks.enabled) {
    auto d = open_as_service_user(options, [&] { return make_webhook_dispatcher(cfg); });
    if (!d.ok()) {
      spdlog::error("{}", d.error());
      return 1;
    }
    webhooks = std::move(*d);
    events.set_observer([w = webhooks.get()](const control::Event& e) { w->on_event(e); });
    webhooks->start();
    spdlog::info("[webhooks] delivering to {} ({} pending in {})", cfg.webhooks.url,
                 webhooks->outbox().pending(), cfg.webhooks_outbox_path());
  }
  AuthGuard guard(policy_of(cfg.auth.brute_force));
  const std::string identity_dir =
      options.identity_dir.empty() ? cfg.identity_dir_path() : options.identity_dir;
  config::IdentityStore identities(identity_dir);

  // One client_subnet table for every profile: the host has one routing table.
  SubnetClaims subnet_claims;
  std::vector<std::unique_ptr<ProfileRuntime>> profiles;
  for (const auto& p : cfg.profiles) {
    if (!p.enabled) continue;
    auto id = identities.load_or_create(p.name, p.identity_key);
    if (!id.ok()) {
      spdlog::error("profile {}: identity key: {}", p.name, id.error().detail);
      return 1;
    }
    if (id->created) spdlog::info("profile {}: created identity key {}", p.name, id->path);
    crypto::X25519KeyPair kp{std::move(id->private_key), id->public_key};
    spdlog::info("profile {}: identity {}", p.name, to_hex(kp.public_key));
    auto rt = std::make_unique<ProfileRuntime>(p, cfg.auth, std::move(kp), users, guard);
    rt->set_events(&events);
    rt->set_accounts(&accounts);
    rt->set_subnet_claims(&subnet_claims);
    // Beside the identity key it protects (opened now, before privileges are dropped).
    rt->set_reality_replay_path(id->path + ".reality-replay");
    if (auto st = rt->start(); !st.ok()) {
      spdlog::error("{}", st.error());
      for (auto& r : profiles) r->stop();
      return 1;
    }
    profiles.push_back(std::move(rt));
    if (!profiles.back()->run_post_up()) {
      spdlog::error("profile {}: routing.post_up failed; stopping", p.name);
      for (auto& r : profiles) r->stop();
      return 1;
    }
  }
  if (profiles.empty()) {
    spdlog::error("{}: no enabled profile", options.config_path);
    return 1;
  }
  // [metrics] as running: per_user and per_user_limit follow a reload (the scrape thread
  // reads them), enabled and listen need a restart (the socket is bound before the
  // privilege drop, as the profiles' are).
  config::MetricsConfig metrics_running = cfg.metrics;
  std::atomic<bool> metrics_per_user{cfg.metrics.per_user};
  std::atomic<std::uint32_t> metrics_per_user_limit{cfg.metrics.per_user_limit};
  auto apply_metrics = [&](const config::MetricsConfig& m) {
    if (m == metrics_running) return;
    metrics_per_user = m.per_user;
    metrics_per_user_limit = m.per_user_limit;
    metrics_running.per_user = m.per_user;
    metrics_running.per_user_limit = m.per_user_limit;
    if (m.enabled != metrics_running.enabled ||
        m.listen_address != metrics_running.listen_address ||
        m.listen_port != metrics_running.listen_port) {
      spdlog::warn(
          "[metrics] enabled/listen changed: that needs a restart; the endpoint keeps its "
          "current state ({})",
          metrics_running.enabled ? "serving on " + metrics_running.listen_address.to_string() +
                                        ":" + std::to_string(metrics_running.listen_port)
                                  : "off");
    } else {
      spdlog::info("[metrics] per_user = {}, per_user_limit = {} (reload)", m.per_user,
                   m.per_user_limit);
    }
  };
  // SIGHUP and the control API's reload / config-save: re-read the config; on any
  // error finding keep the running one, else replace the users (sessions stay).
  std::mutex reload_mu;
  config::WebConfig web_running = cfg.web;
  // Set once the panel runs; the reload lambda reads it on the control socket's thread.
  std::atomic<PanelChild*> panel_ptr{nullptr};
  auto reload = [&]() -> control::ValidationResult {
    std::lock_guard lock(reload_mu);
    auto again = config::load_server_config(options.config_path);
    print_findings(again.findings);
    control::ValidationResult r{again.ok(), to_api_findings(again.findings), 0};
    if (!again.ok()) {
      // The log file is reopened even so: logrotate's SIGHUP must not depend on the
      // config being valid at that moment.
      if (auto st = sys::reopen_log_file(); !st.ok()) spdlog::warn("{}", st.error());
      spdlog::error("reload refused: {} has errors; keeping the running configuration",
                    options.config_path);
      return r;
    }
    if (auto st = sys::configure_logging(again.config.logging.options()); !st.ok()) {
      if (auto re = sys::reopen_log_file(); !re.ok()) spdlog::warn("{}", re.error());
      spdlog::warn("[logging] file: {}; keeping the previous log output", st.error());
    }
    apply_metrics(again.config.metrics);
    // [auth] except users_file is read at start only (AuthGuard, the profiles, the
    // identity keys): the same.
    if (const auto keys = config::auth_keys_needing_restart(cfg.auth, again.config.auth);
        !keys.empty()) {
      std::string names;
      for (const auto& k : keys) names += (names.empty() ? "" : ", ") + k;
      spdlog::warn("[auth] {} changed: that needs a restart; the running values stay", names);
    }
    // [webhooks] is read at start only: say so rather than keep old settings silently.
    if (!(again.config.webhooks == cfg.webhooks)) {
      spdlog::warn(
          "[webhooks] changed: that needs a restart; webhooks keep their current settings "
          "({})",
          cfg.webhooks.enabled ? "delivering to " + cfg.webhooks.url : "off");
    }
    // [web]: the panel reads its settings when it starts, so a change restarts it (its
    // admins stay logged in: the session key is the server's). Turning it off stops it
    // at once; turning it on needs a restart of the server (its port is bound before the
    // privilege drop).
    if (!(again.config.web == web_running)) {
      if (!again.config.web.enabled && panel_ptr.load() != nullptr) {
        spdlog::info("[web] enabled = false: stopping the panel");
        panel_ptr.load()->stop();
        panel_ptr = nullptr;
        web_running = again.config.web;
      } else if (again.config.web.enabled != web_running.enabled || panel_ptr.load() == nullptr) {
        spdlog::warn("[web] enabled = true: starting the panel needs a restart of the server");
      } else {
        spdlog::info("[web] changed: restarting the panel");
        panel_ptr.load()->restart();
        web_running = again.config.web;
      }
    } else if (auto* pc = panel_ptr.load(); pc != nullptr) {
      pc->reopen_logs();
    }
    const auto before = users.snapshot();
    users.replace(users_of(again.config));
    accounts.apply(users_of(again.config));
    const std::size_t ended = end_stale_sessions(profiles, *before, *users.snapshot());
    for (auto& p : profiles) p->on_reload();
    r.sessions_ended = static_cast<std::uint32_t>(ended);
    spdlog::info("reloaded users from {} ({} users{}); profile changes need a restart",
                 options.config_path, again.config.users.size(),
                 ended == 0 ? std::string() : ", " + std::to_string(ended) + " session(s) ended");
    control::Event e;
    e.type = "users.changed";
    e.reason = "reload";
    events.push(std::move(e));
    return r;
  };
  UserAdmin user_admin(config_abs, &profiles, reload, crypto::system_rng(), steward.get());
  ControlHandler handler(ControlTargets{.profiles = &profiles,
                                        .users = &users,
                                        .guard = &guard,
                                        .events = &events,
                                        .config = &config_store,
                                        .accounts = &accounts,
                                        .webhooks = webhooks.get(),
                                        .user_admin = &user_admin,
                                        .reload = reload,
                                        .started = started,
                                        .started_unix_secs = started_unix});
  control::ControlServer control;
  if (!options.control_socket.empty()) {
    auto st =
        control.start(options.control_socket, handler, control::host_access_policy(std::nullopt));
    if (!st.ok()) spdlog::warn("control socket disabled: {}", st.error());
  }
  // The Prometheus endpoint reads the same answers as `qeli stats`, from the handler in
  // this process (no socket round trip, no permission check: it publishes only counters).
  metrics::MetricsServer metrics_server;
  if (cfg.metrics.enabled) {
    auto st = metrics_server.start(
        cfg.metrics.listen_address.value, cfg.metrics.listen_port,
        [&](std::string& body, std::string& error) {
          auto page = metrics::metrics_page(handler, {metrics_per_user, metrics_per_user_limit});
          if (!page.ok()) {
            error = page.error();
            return false;
          }
          body = std::move(*page);
          return true;
        });
    if (!st.ok()) {
      spdlog::error("[metrics] listen: {}", st.error());
      control.stop();
      for (auto& r : profiles) r->stop();
      return 1;
    }
    spdlog::info("metrics: serving /metrics on {}:{}", cfg.metrics.listen_address.to_string(),
                 metrics_server.port());
  }
  // [web]: the panel as a child process of its own (server/panel_child.h), started before
  // the drop so that it binds a port below 1024 too; it drops every capability itself.
  std::unique_ptr<PanelChild> panel;
  if (cfg.web.enabled) {
    // The panel's account: the service user (--user), else `qeli` when the host has it
    // (the package creates it), so that the panel is never root — a uid 0 without
    // capabilities still owns every root file (keys, /etc/shadow).
    const std::string account = !options.run_as.empty()       ? options.run_as
                                : control::lookup_uid("qeli") ? std::string("qeli")
                                                              : std::string();
    if (account.empty()) {
      spdlog::warn(
          "[web] no 'qeli' account on this host and no --user: the panel runs as root "
          "without capabilities; create the account (the Debian package does) or start the "
          "server with --user");
    } else if (auto uid = control::lookup_uid(account)) {
      // Every permission for the panel's account: it applies its own rules to its admins.
      control.set_panel_uid(*uid);
    }
    auto p = make_panel_child(options, cfg, identity_dir, account);
    if (!p.ok()) {
      spdlog::error("[web] {}", p.error());
      metrics_server.stop();
      control.stop();
      for (auto& r : profiles) r->stop();
      return 1;
    }
    panel = std::move(*p);
    panel->start();
    panel_ptr = panel.get();
  }
  if (!options.run_as.empty()) {
    if (auto st = drop_startup_privileges(options, cfg); !st.ok()) {
      spdlog::error("{}", st.error());
      if (panel) panel->stop();
      metrics_server.stop();
      control.stop();
      for (auto& r : profiles) r->stop();
      return 1;
    }
  }
  const std::string serving = std::to_string(profiles.size()) + " profile(s) serving";
  notifier.ready(serving);

  const auto tick = notifier.watchdog_period();
  for (;;) {
    int sig = 0;
    if (tick) {
      const timespec ts{static_cast<time_t>(tick->count() / 1000),
                        static_cast<long>(tick->count() % 1000) * 1'000'000L};
      sig = sigtimedwait(&set, nullptr, &ts);
      notifier.watchdog();
      if (sig < 0) continue;
    } else if (sigwait(&set, &sig) != 0) {
      continue;
    }
    if (sig == SIGHUP) {
      notifier.reloading();
      reload();
      notifier.ready(serving);
      continue;
    }
    spdlog::info("signal {}: stopping", sig);
    break;
  }
  notifier.stopping();
  if (panel) panel->stop();
  metrics_server.stop();
  control.stop();
  for (auto& r : profiles) r->stop();
  // Last: the sessions' ends above are in the outbox; what is not delivered now is after
  // the next start.
  if (webhooks) webhooks->stop();
  return 0;
}

}  // namespace qeli::server
