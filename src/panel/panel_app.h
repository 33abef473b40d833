// PanelApp: everything the web panel decides, as a function from an HttpRequest to an
// HttpResponse (sans-I/O: the listener, the clock and the server are passed in).
//
//   * source allowlist (`allowed_ips`, after `trusted_proxies`' X-Forwarded-For): a bare
//     403 on every route for anyone else; a Host header that names neither an address, nor
//     localhost, nor public_host / an allowed origin's host is refused (421): a name that
//     an attacker's DNS points at 127.0.0.1 cannot make a browser talk to the panel;
//   * login (`username` / `password_hash`, Argon2id, and with `totp_secret` a one-time
//     code, RFC 6238: ±1 step, each step accepted once) behind the same defences as the
//     VPN's logins, with their own counters (`[web] brute_force.*`): per (address, user)
//     lockout, per-address ceiling, per-username tarpit, a dummy verify for wrong names;
//     a wrong code counts as a failed login and reads the same as a wrong password;
//   * admins with roles (panel/admin_accounts.h): the config's admin is an owner, the
//     others live in the state_db; every route needs a role (role_needed), checked
//     after the session and the CSRF token; a changed role or password ends the admin's
//     sessions, a removed admin's cookie names nobody;
//   * sessions in an HMAC cookie (panel/admin_sessions.h): HttpOnly, SameSite=Strict,
//     Secure with `secure_cookie`, Path = base_path; ended by logout, a new password or
//     a new (or removed) TOTP secret;
//   * every state-changing request (POST) needs the session's CSRF token (form field
//     `csrf` or header X-CSRF-Token) and, when the browser names one, an Origin (or
//     Referer) of this panel: its own Host, `public_host`, or `allowed_origins`;
//   * security headers on every answer (CSP without scripts, no framing, no-store, …).
//
// The pages and the JSON API (/api/v1/…) call the server through the control API
// (control::ControlService: the control socket in production, a fake in tests). The
// panel holds no state of the server's: every page is the server's answer of now.
//
// Thread-safe (the listener calls handle() from several threads).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/bytes.h"
#include "base/clock.h"
#include "config/server_config.h"
#include "control/api.h"
#include "panel/admin_accounts.h"
#include "panel/admin_sessions.h"
#include "panel/html.h"
#include "panel/http_message.h"
#include "panel/i18n.h"
#include "panel/session_rates.h"
#include "server/auth_guard.h"
#include "sys/host_load.h"

namespace qeli::panel {

inline constexpr std::size_t kMaxLoginBody = 8 * 1024;

class ApiTokens;
class AuditLog;
class LoginStateStore;
class TrafficHistory;
class FormFields;
struct ConfigEditor;
struct PageContext;
struct UserEditForm;

struct PanelSettings {
  std::string username = "admin";
  std::string password_hash;  ///< Argon2id PHC; the panel does not start without one
  std::string totp_secret;    ///< Base32 ([web] totp_secret); empty = no second factor
  std::string base_path;      ///< "" or "/prefix" (no trailing slash)
  bool csrf = true;
  bool secure_cookie = false;
  std::int64_t session_ttl_secs = 86400;
  std::vector<config::Ipv4Cidr> allowed_ips;      ///< empty = any
  std::vector<config::Ipv4Cidr> trusted_proxies;  ///< whose X-Forwarded-For is believed
  std::string public_host;                        ///< a host name or address, no scheme
  std::vector<std::string> allowed_origins;       ///< "https://vpn.example.com[:port]"
  server::BruteForcePolicy brute_force;
  /// GET /metrics: per-user series as [metrics] per_user / per_user_limit say.
  bool metrics_per_user = false;
  std::uint32_t metrics_per_user_limit = 100;
};

/// The settings of a [web] section.
PanelSettings settings_of(const config::WebConfig& web);

/// Wall and monotonic time (tests pass fixed ones).
struct PanelClock {
  std::function<std::int64_t()> unix_now;
  std::function<Instant()> steady_now;
  /// Sleeps the tarpit delay (tests record it instead).
  std::function<void(Duration)> sleep;
};
PanelClock system_panel_clock();

class PanelApp {
 public:
  PanelApp(PanelSettings settings, control::ControlService& server, const SessionKey& key,
           PanelClock clock = system_panel_clock());

  HttpResponse handle(const HttpRequest& request);
  /// The decisions that need no body (the listener asks before it reads one): a source
  /// outside allowed_ips, or a Host this panel is not (DNS rebinding). nullopt: go on.
  std::optional<HttpResponse> admit(const HttpRequest& head) const;

  /// For tests: the guard that counts login failures.
  server::AuthGuard& guard() { return guard_; }
  /// The API tokens (panel/api_tokens.h); null: tokens are off (a Bearer request gets
  /// 503, the tokens page says why: `why_off`).
  void set_tokens(ApiTokens* tokens, std::string why_off = {}) {
    tokens_ = tokens;
    tokens_off_ = std::move(why_off);
  }
  /// Where admin actions are recorded (panel/audit_log.h); null: nowhere (logged only).
  void set_audit(AuditLog* audit) { audit_ = audit; }
  /// The admins beyond the config's owner (panel/admin_accounts.h); null: only the
  /// owner (the admins page says why: `why_off`).
  void set_admins(AdminAccounts* admins, std::string why_off = {}) {
    admins_ = admins;
    admins_off_ = std::move(why_off);
  }
  /// Traffic over time (panel/traffic_history.h) for the dashboard and GET
  /// /api/v1/traffic; null: none (why: `why_off`).
  void set_traffic(TrafficHistory* traffic, std::string why_off = {}) {
    traffic_ = traffic;
    traffic_off_ = std::move(why_off);
  }
  /// Logins' memory in the state_db (panel/login_state.h): logouts and the last used
  /// TOTP step an earlier panel process recorded hold again, and later ones are written.
  void keep_login_state(LoginStateStore& store);

 private:
  /// One request as the routes see it.
  struct Ctx {
    const HttpRequest& req;
    std::string path;  ///< without base_path, "/" at least
    std::string ip;    ///< the client's address (after trusted proxies)
    std::optional<AdminSession> session;
    std::string admin;  ///< the logged-in admin's name ("" for a token)
    AdminRole role = AdminRole::kReadOnly;
    /// Who acts, for logs and the server's records: "panel:<admin>" or "token:<name>".
    std::string actor;
    /// The same for log lines: "admin 'boss'" or "token 'ci'".
    std::string who;
    bool by_token = false;  ///< a Bearer token, not the admin's cookie (no CSRF check)
    Lang lang = Lang::kEn;  ///< the pages' language (panel/lang_choice.h)
  };
  HttpResponse route(Ctx& c);
  HttpResponse login(Ctx& c);
  HttpResponse logout(Ctx& c);
  /// The login page in c.lang, answered with `status`, `error` (already translated) above.
  HttpResponse login_page(const Ctx& c, int status, const std::string& error) const;
  /// POST /lang: the qeli_lang cookie, and back to the page the switch was on.
  HttpResponse set_lang(Ctx& c);
  /// The Set-Cookie value that remembers `lang` in this browser.
  std::string lang_cookie(Lang lang) const;
  HttpResponse page(Ctx& c);
  HttpResponse action(Ctx& c);
  HttpResponse api(Ctx& c);
  HttpResponse config_action(Ctx& c, const FormFields& form);
  HttpResponse config_page(Ctx& c, ConfigEditor editor, int status);
  /// The answer to a config save or restore the server took: back to the editor with
  /// what happened — unchanged, saved and reloaded, or saved while the reload was refused
  /// (the server's reason, on the editor over the saved `text`).
  HttpResponse after_save(Ctx& c, const control::ConfigSaved& saved, const std::string& path,
                          const std::string& text, bool restore);
  // Users and devices (panel_users.cc): nullopt = not one of theirs.
  std::optional<HttpResponse> users_page(Ctx& c, const PageContext& pc);
  std::optional<HttpResponse> users_action(Ctx& c, const FormFields& form);
  std::optional<HttpResponse> users_api(Ctx& c, const nlohmann::json& body, const std::string& p);
  /// The "Edit user" page over `form` (its values, its error), answered with `status`.
  HttpResponse user_edit_page(Ctx& c, const UserEditForm& form, int status);
  // API tokens and /metrics (panel_tokens.cc).
  std::optional<HttpResponse> bearer(Ctx& c, bool is_api);
  HttpResponse metrics(Ctx& c);
  std::optional<HttpResponse> tokens_page(Ctx& c, const PageContext& pc);
  std::optional<HttpResponse> tokens_action(Ctx& c, const FormFields& form);
  /// One audit row for a POST that got `status` (panel_audit.cc); `actor` empty = c.actor.
  void audit(const Ctx& c, int status, std::string actor = {});
  std::optional<HttpResponse> audit_page(Ctx& c, const PageContext& pc);
  // Admins and each admin's own account (panel_admins.cc).
  std::optional<HttpResponse> admins_page(Ctx& c, const PageContext& pc);
  std::optional<HttpResponse> admins_action(Ctx& c, const FormFields& form);
  /// An admin's current password, asked again to change its credentials: counted and
  /// locked out as logins are.
  bool current_password_ok(const Ctx& c, const std::string& hash, const std::string& password);
  // A further admin's own second factor on its Account page (panel_account_totp.cc).
  std::string account_totp_content(const Ctx& c, const PageContext& pc);
  std::optional<HttpResponse> account_totp_action(Ctx& c, const FormFields& form);
  // The server's and the panel's newest log lines (panel_logs.cc).
  std::optional<HttpResponse> logs_page(Ctx& c, const PageContext& pc);
  // The webhook delivery log (panel_webhooks.cc).
  std::optional<HttpResponse> webhooks_page(Ctx& c, const PageContext& pc);

  std::string client_ip(const HttpRequest& r) const;
  bool source_allowed(const std::string& ip) const;
  bool host_allowed(std::string_view host) const;
  bool origin_allowed(const HttpRequest& r) const;
  /// Who an admin is: its role, its password hash and what its session cookies are
  /// bound to (for the config's owner the password hash and the TOTP secret; for the
  /// others the hash and the role), so that changing any of them ends its sessions.
  struct Identity {
    AdminRole role = AdminRole::kReadOnly;
    std::string password_hash;
    std::string credential;
    bool config_owner = false;  ///< the config's [web] admin (TOTP, password from the CLI)
    std::string totp_secret;    ///< Base32; empty = no second factor
  };
  std::optional<Identity> identity(std::string_view name) const;
  /// The session, admin and role a request's cookie proves (false: none).
  bool authenticate(Ctx& c) const;
  /// A page's frame for the admin of `c`.
  PageFrame frame(const Ctx& c, std::string title, NavItem active, const std::string& csrf) const;
  /// The pages' context for the admin of `c`: base path, CSRF token, language.
  PageContext context(const Ctx& c, std::string message) const;
  /// "Traffic, the last 24 hours" and its chart: the server's (`user` null) or one user's;
  /// why there is no history when there is none.
  std::string day_chart(Lang lang, const std::string* user) const;
  /// A refusal on a page route (not the JSON API, not /metrics): an HTML page in c.lang
  /// with `status`, `html` (translated, values escaped) as its one paragraph, the
  /// navigation when logged in and a link to the login page when not.
  HttpResponse refused_page(const Ctx& c, int status, const std::string& html) const;
  /// The second factor: true without one; else `code` must be a current code whose step
  /// is later than every step accepted before (RFC 6238 §5.2: one use per code).
  bool totp_ok(std::string_view code);
  /// The same for a further admin (its secret and used steps in the state_db).
  bool admin_totp_ok(const std::string& name, const std::string& secret, std::string_view code);
  /// Whether the login form asks for a code: someone has a second factor. `required`:
  /// the config's owner has one (a browser must not submit without it).
  bool login_asks_code(bool* required) const;

  PanelSettings s_;
  control::ControlService& server_;
  AdminSessions sessions_;
  server::AuthGuard guard_;
  PanelClock clock_;
  ApiTokens* tokens_ = nullptr;
  AdminAccounts* admins_ = nullptr;
  TrafficHistory* traffic_ = nullptr;
  std::string traffic_off_;
  std::string admins_off_;
  AuditLog* audit_ = nullptr;
  std::string tokens_off_;
  sys::HostSampler host_;  ///< the dashboard's and GET /api/v1/host's figures
  SessionRates rates_;     ///< the live sessions' rates, from the pages' samples
  Bytes totp_key_;         ///< decoded totp_secret; empty = no second factor
  std::mutex totp_mu_;
  std::uint64_t totp_last_step_ = 0;        ///< the newest step a code was accepted for
  LoginStateStore* login_state_ = nullptr;  ///< where totp_last_step_ is kept (or null)
};

}  // namespace qeli::panel
