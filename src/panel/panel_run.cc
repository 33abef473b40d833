#include "panel/panel_run.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <optional>
#include <thread>

#include "config/server_config.h"
#include "config/web_session_key.h"
#include "panel/admin_accounts.h"
#include "panel/answers.h"
#include "panel/api_tokens.h"
#include "panel/audit_log.h"
#include "panel/http_listener.h"
#include "panel/login_state.h"
#include "panel/panel_app.h"
#include "panel/traffic_history.h"
#include "panel/traffic_sampler.h"
#include "sys/daemon_signals.h"
#include "sys/log_output.h"
#include "sys/privilege.h"

namespace qeli::panel {
namespace {

Result<SessionKey, std::string> read_key_fd(int fd) {
  SessionKey k{};
  std::size_t got = 0;
  while (got < k.size()) {
    const ssize_t n = ::read(fd, k.data() + got, k.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got != k.size()) return fail(std::string("--session-key-fd: fewer than 32 bytes"));
  return k;
}

// A store in the state_db, handed to `use` — or null and why not (`without`: what the
// panel does without it, for the log).
template <class Store, class Use>
std::unique_ptr<Store> open_state(const std::string& db, const char* without, Use use) {
  if (db.empty()) {
    use(nullptr, std::string(kNoStateDb));
    return nullptr;
  }
  auto opened = Store::open(db);
  if (!opened.ok()) {
    spdlog::warn("panel: [web] state_db: {}; {}", opened.error(), without);
    use(nullptr, "[web] state_db: " + opened.error());
    return nullptr;
  }
  use(opened->get(), std::string());
  return std::move(*opened);
}

}  // namespace

int run_panel(const PanelOptions& options) {
  const sigset_t signals = sys::block_daemon_signals();
  (void)sys::configure_logging({});
  auto load = config::load_server_config(options.config_path);
  for (const auto& f : load.findings.all()) {
    if (f.severity == config::Severity::kError) spdlog::error("{}", f.to_string());
  }
  if (!load.ok()) {
    spdlog::error("panel: {}: refusing to start with the errors above", options.config_path);
    return 1;
  }
  // The server's [logging]: the panel's lines (logins, admin actions) land where the
  // server's do, in the same file or journal, each starting with "panel:".
  if (auto st = sys::configure_logging(load.config.logging.options()); !st.ok()) {
    spdlog::error("panel: [logging] file: {}", st.error());
    return 1;
  }
  const config::WebConfig& web = load.config.web;
  if (web.password_hash.empty()) {
    spdlog::error(
        "panel: {}: [web] password_hash is empty; the panel never runs without a password "
        "(set one with `qeli set-web-password`)",
        options.config_path);
    return 1;
  }
  Result<SessionKey, std::string> key = config::random_session_key();
  if (options.session_key_fd >= 0) {
    key = read_key_fd(options.session_key_fd);
  } else if (web.persist_session_key) {
    const std::string dir =
        options.identity_dir.empty() ? load.config.identity_dir_path() : options.identity_dir;
    key = config::load_or_create_session_key(config::session_key_path(dir));
  }
  if (!key.ok()) {
    spdlog::error("panel: session key: {}", key.error());
    return 1;
  }
  control::SocketClient server(options.control_socket);
  PanelSettings settings = settings_of(web);
  settings.metrics_per_user = load.config.metrics.per_user;
  settings.metrics_per_user_limit = load.config.metrics.per_user_limit;
  PanelApp app(settings, server, *key);
  ListenerOptions lo{web.bind, web.port, "", ""};
  if (web.tls) {
    lo.tls_cert = load.config.web_tls_cert_path();
    lo.tls_key = load.config.web_tls_key_path();
  }
  auto listener = HttpListener::open(
      lo, [&app](const HttpRequest& head) { return app.admit(head); },
      [&app](const HttpRequest& r) { return app.handle(r); });
  if (!listener.ok()) {
    spdlog::error("panel: [web] {}", listener.error());
    return 1;
  }
  // Bound: nothing below needs a privilege.
  // A panel the server restarts after its own drop is that user already: only the
  // capabilities are left to give up.
  if (!options.run_as.empty() && ::geteuid() == 0) {
    auto d = sys::drop_privileges({options.run_as, {}, {}, {}});
    if (!d.ok()) {
      spdlog::error("panel: {}", d.error());
      return 1;
    }
  } else if (auto st = sys::drop_all_capabilities(); !st.ok()) {
    spdlog::error("panel: dropping capabilities: {}", st.error());
    return 1;
  }
  // The panel's own state, opened as the account it runs as (its file is that account's).
  const std::string db = load.config.web_state_db_path();
  auto tokens = open_state<ApiTokens>(db, "API tokens are off", [&](ApiTokens* t, std::string why) {
    app.set_tokens(t, std::move(why));
  });
  auto admins = open_state<AdminAccounts>(
      db, "only the config's admin can log in",
      [&](AdminAccounts* a, std::string why) { app.set_admins(a, std::move(why)); });
  auto traffic = open_state<TrafficHistory>(
      db, "no traffic history",
      [&](TrafficHistory* t, const std::string& why) { app.set_traffic(t, why); });
  auto audit = open_state<AuditLog>(db, "admin actions are logged only",
                                    [&](AuditLog* a, const std::string&) { app.set_audit(a); });
  auto login_state = open_state<LoginStateStore>(
      db, "logouts and used one-time codes are kept in memory only (a restart forgets them)",
      [&](LoginStateStore* l, const std::string&) {
        if (l != nullptr) app.keep_login_state(*l);
      });
  const std::string host =
      web.bind.find(':') != std::string::npos ? "[" + web.bind + "]" : web.bind;
  spdlog::info("panel: serving {}://{}:{}{}/ for admin '{}' (control socket {})",
               web.tls ? "https" : "http", host, (*listener)->port(), settings_of(web).base_path,
               web.username, options.control_socket);
  std::atomic<bool> stopping{false};
  std::atomic<bool> failed{false};
  std::thread serving([&] {
    (*listener)->serve();
    // The accept loop ended without stop(): end the process so that the server starts a
    // new panel, rather than a process that answers nobody.
    if (!stopping) {
      failed = true;
      ::kill(::getpid(), SIGTERM);
    }
  });
  // Traffic over time: the server's counters and each user's totals every kSampleSecs into
  // the state_db (history accrues while no one looks at a page).
  std::optional<TrafficSampler> sampler;
  if (traffic) {
    sampler.emplace(traffic_step(server, *traffic, [] { return system_panel_clock().unix_now(); }),
                    std::chrono::seconds(kSampleSecs));
  }
  for (;;) {
    int sig = 0;
    if (::sigwait(&signals, &sig) != 0) continue;
    if (sig == SIGHUP) {
      // logrotate (through the server's reload): the [logging] file again.
      if (auto st = sys::reopen_log_file(); !st.ok()) spdlog::warn("panel: {}", st.error());
      continue;
    }
    break;
  }
  stopping = true;
  // Nothing waits for a server that does not answer (the sampler's call, a page's): every
  // control call in flight ends now, and the sampler's wait with it.
  server.cancel();
  if (sampler) sampler->stop();
  if (failed) spdlog::error("panel: the listener stopped accepting connections; exiting");
  spdlog::info("panel: stopping");
  (*listener)->stop();
  serving.join();
  return failed ? 1 : 0;
}

}  // namespace qeli::panel
