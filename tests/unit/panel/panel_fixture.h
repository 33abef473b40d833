// The panel's test fixture: a fake server (canned answers, every request recorded) and a
// PanelApp over it with a fixed clock; shared by the panel's route tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "crypto/argon2id.h"
#include "panel/admin_accounts.h"
#include "panel/api_tokens.h"
#include "panel/audit_log.h"
#include "panel/panel_app.h"

namespace qeli::panel::panel_test {

using nlohmann::json;

inline constexpr char kEvil[] = "<script>alert(1)</script>";
/// EditUser with this static_ip is refused (kInvalid) with kEditRefusal, as the loader
/// refuses an address outside the pool; the refusal carries markup to be escaped.
inline constexpr char kOutsidePool[] = "10.99.0.5";
inline constexpr char kEditRefusal[] =
    "users.conf:3: [user:alice] static_ip: 10.99.0.5 is not a free host of any of the user's "
    "pools <script>alert(1)</script>";
inline constexpr char kCredential[] = "qd1.fedcba98.c2VjcmV0LXNlY3JldC1zZWNyZXQtc2Vj";

// The control API of a server that answers canned lists and records what it was asked.
class FakeServer : public control::ControlService {
 public:
  FakeServer() {
    control::SessionInfo alice;
    alice.id = 42;
    alice.profile = "main";
    alice.username = "alice";
    alice.device = "alice";
    alice.tunnel_ip = "10.9.0.2";
    alice.peer = "198.51.100.7:50000";
    alice.rx_bytes = 2048;
    control::SessionInfo evil;
    evil.id = 43;
    evil.profile = "main";
    evil.username = kEvil;
    evil.device = kEvil;
    sessions.clients = {alice, evil};

    stats.version = "9.9.9-test";
    stats.users = 2;
    control::ProfileStats p;
    p.profile = "main";
    p.transport = "tcp";
    p.mode = "fake-tls";
    p.port = 443;
    p.sessions = 2;
    control::ProfileStats u;
    u.profile = "fast";
    u.transport = "udp";
    u.mode = "udp-quic";
    u.port = 8443;
    u.udp_socket = control::UdpSocketFigures{7, 2, 8U << 20};
    stats.profiles = {p, u};

    control::UserInfo ua;
    ua.name = "alice";
    ua.sessions = 1;
    ua.max_sessions = 2;
    ua.bandwidth_limit_mbps = 7.5;
    ua.routes = {"10.1.0.0/16", "10.2.0.0/16 metric=3"};
    control::UserInfo ue;
    ue.name = kEvil;
    ue.group = kEvil;
    ue.metadata = {{"note", kEvil}};
    ue.devices = {{"0123abcd", kEvil}};
    ua.devices = {{"89abcdef", "alice-phone"}};
    ue.sessions = 1;
    users.users = {ua, ue};
    usage.users = {{"alice", 1000, 2000, std::nullopt, 0, false}};

    blocked.blocked = {{"203.0.113.9", kEvil, 60, 5}};
    blocked.blocked_ips = 1;

    control::Event e;
    e.seq = 1;
    e.unix_ms = 1'700'000'000'000;
    e.type = "session.connected";
    e.username = "alice";
    e.reason = kEvil;
    events.boot = "b00t";
    events.last_seq = 1;
    events.events = {e};
  }

  Result<control::Response, control::ControlError> handle(const control::Request& request,
                                                          const control::Caller&) override {
    std::lock_guard lock(mu_);
    seen_.push_back(request);
    if (!fail_with.empty()) {
      return fail(control::ControlError{control::ErrorCode::kUnavailable, fail_with});
    }
    return std::visit(
        [&](const auto& r) -> Result<control::Response, control::ControlError> {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, control::ListSessions>) {
            return control::Response{sessions};
          } else if constexpr (std::is_same_v<T, control::GetStats>) {
            return control::Response{stats};
          } else if constexpr (std::is_same_v<T, control::ListUsers>) {
            return control::Response{users};
          } else if constexpr (std::is_same_v<T, control::GetUsage>) {
            return control::Response{usage};
          } else if constexpr (std::is_same_v<T, control::ListBlocked>) {
            return control::Response{blocked};
          } else if constexpr (std::is_same_v<T, control::GetEvents>) {
            return control::Response{events};
          } else if constexpr (std::is_same_v<T, control::Kick>) {
            return control::Response{control::KickResult{r.session_id ? 1U : 2U}};
          } else if constexpr (std::is_same_v<T, control::DisableUser>) {
            return control::Response{control::UserSwitchResult{false, 1, ""}};
          } else if constexpr (std::is_same_v<T, control::EnableUser>) {
            return control::Response{control::UserSwitchResult{true, 0, ""}};
          } else if constexpr (std::is_same_v<T, control::Unblock>) {
            return control::Response{control::UnblockResult{r.ip}};
          } else if constexpr (std::is_same_v<T, control::UnblockAll>) {
            return control::Response{control::UnblockResult{}};
          } else if constexpr (std::is_same_v<T, control::GetConfig>) {
            return control::Response{config};
          } else if constexpr (std::is_same_v<T, control::ValidateConfig>) {
            return control::Response{validation};
          } else if constexpr (std::is_same_v<T, control::SaveConfig>) {
            if (!save_error.empty()) {
              return fail(control::ControlError{control::ErrorCode::kConflict, save_error});
            }
            return control::Response{saved};
          } else if constexpr (std::is_same_v<T, control::AddUser>) {
            if (r.username == "alice") {
              return fail(control::ControlError{control::ErrorCode::kConflict, "exists"});
            }
            return control::Response{control::UserChanged{r.username, "/u.conf", true, 0}};
          } else if constexpr (std::is_same_v<T, control::EditUser>) {
            if (r.static_ip == kOutsidePool) {
              return fail(control::ControlError{control::ErrorCode::kInvalid, kEditRefusal});
            }
            return control::Response{control::UserChanged{r.username, "/u.conf", true, 1}};
          } else if constexpr (std::is_same_v<T, control::RemoveUser>) {
            return control::Response{control::UserChanged{r.username, "/u.conf", true, 2}};
          } else if constexpr (std::is_same_v<T, control::AddDevice>) {
            if (r.name == "taken") {
              return fail(control::ControlError{control::ErrorCode::kConflict, "name taken"});
            }
            return control::Response{
                control::DeviceIssued{r.username, "fedcba98", r.name, kCredential, "main",
                                      std::string("qeli://") + r.username + ":" + kCredential +
                                          "@" + r.host + ":443?proto=tcp&mode=fake-tls#" + kEvil,
                                      true}};
          } else if constexpr (std::is_same_v<T, control::RevokeDevice>) {
            if (r.id != "89abcdef") {
              return fail(control::ControlError{control::ErrorCode::kNotFound, "no device"});
            }
            return control::Response{control::UserChanged{r.username, "/u.conf", true, 1}};
          } else if constexpr (std::is_same_v<T, control::ListConfigHistory>) {
            return control::Response{history};
          } else if constexpr (std::is_same_v<T, control::GetLogs>) {
            if (r.level != "info" && r.level != "warn" && r.level != "error" &&
                r.level != "debug") {
              return fail(control::ControlError{control::ErrorCode::kBadRequest, "level"});
            }
            return control::Response{logs};
          } else if constexpr (std::is_same_v<T, control::GetWebhookLog>) {
            control::WebhookLog log = webhook_log;
            if (log.deliveries.size() > r.limit) log.deliveries.resize(r.limit);
            return control::Response{std::move(log)};
          } else if constexpr (std::is_same_v<T, control::GetConfigVersion>) {
            if (r.id != "v1") {
              return fail(control::ControlError{control::ErrorCode::kNotFound, "no version"});
            }
            return control::Response{control::ConfigText{"/etc/qeli/server.conf", "# old\n", "o"}};
          } else {
            return fail(control::ControlError{control::ErrorCode::kUnknownCommand, "not faked"});
          }
        },
        request);
  }

  /// Every request of type T that arrived, in order.
  template <class T>
  std::vector<T> seen() const {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    for (const auto& r : seen_)
      if (const auto* x = std::get_if<T>(&r)) out.push_back(*x);
    return out;
  }
  std::size_t total() const {
    std::lock_guard lock(mu_);
    return seen_.size();
  }

  control::SessionList sessions;
  control::StatsSnapshot stats;
  control::UserList users;
  control::UsageList usage;
  control::BlockedList blocked;
  control::EventList events;
  std::string fail_with;  ///< non-empty: every request fails with this message
  control::ConfigText config{"/etc/qeli/server.conf",
                             std::string("# note ") + kEvil + "\n[profile:p]\nobf.mode = plain\n",
                             std::string(64, 'a')};
  control::ValidationResult validation{true, {}, 0};
  std::string save_error;  ///< non-empty: SaveConfig fails (a stale base)
  /// SaveConfig's answer otherwise: saved and reloaded, unless a test says not.
  control::ConfigSaved saved{std::string(64, 'b'), "v1", true, {}, ""};
  control::WebhookLog webhook_log;  ///< GetWebhookLog's answer (off by default)
  control::LogLines logs{2,
                         {{1, 1'700'000'000'000, "info", "server started"},
                          {2, 1'700'000'001'000, "warning", std::string("odd ") + kEvil}}};
  control::ConfigHistory history{{{"v1", 1'700'000'000, "panel:admin", "o", 6}}};

 private:
  mutable std::mutex mu_;
  std::vector<control::Request> seen_;
};

/// The panel's own stores in one state_db file — API tokens, the audit log, further
/// admins — as panel_run opens them.
struct PanelStores {
  void open(const std::string& db) {
    auto t = ApiTokens::open(db);
    auto a = AuditLog::open(db);
    auto d = AdminAccounts::open(db);
    ASSERT_TRUE(t.ok() && a.ok() && d.ok());
    tokens = std::move(*t);
    audit = std::move(*a);
    admins = std::move(*d);
  }
  /// Hands them to `app`.
  void attach(PanelApp& app) const {
    app.set_tokens(tokens.get());
    app.set_audit(audit.get());
    app.set_admins(admins.get());
  }
  std::unique_ptr<ApiTokens> tokens;
  std::unique_ptr<AuditLog> audit;
  std::unique_ptr<AdminAccounts> admins;
};

inline std::string header_of(const HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return {};
}

inline std::size_t count_of(const HttpResponse& r, std::string_view name) {
  std::size_t n = 0;
  for (const auto& [k, v] : r.headers) n += k == name ? 1 : 0;
  return n;
}

inline bool contains(const std::string& s, std::string_view what) {
  return s.find(what) != std::string::npos;
}

class PanelAppTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto h = crypto::argon2id_hash("secret");
    ASSERT_TRUE(h);
    hash_ = *h;
  }

  PanelSettings settings() const {
    PanelSettings s;
    s.password_hash = hash_;
    s.session_ttl_secs = 3600;
    return s;
  }

  PanelClock clock() {
    return {[this] { return now_unix_; }, [this] { return steady_; },
            [this](Duration d) { sleeps_.push_back(d); }};
  }

  std::unique_ptr<PanelApp> make(PanelSettings s) {
    return std::make_unique<PanelApp>(std::move(s), server_, key_, clock());
  }

  static HttpRequest req(std::string method, std::string path, std::string body = {},
                         std::vector<std::pair<std::string, std::string>> headers = {},
                         std::string remote = "127.0.0.1") {
    HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    const auto q = r.path.find('?');
    if (q != std::string::npos) {
      r.query = r.path.substr(q + 1);
      r.path.resize(q);
    }
    r.body = std::move(body);
    r.headers = std::move(headers);
    r.remote_ip = std::move(remote);
    return r;
  }

  /// Logs in; the "qeli_session=…" pair for a Cookie header (empty on failure).
  static std::string login(PanelApp& app, const std::string& prefix = "",
                           const std::string& remote = "127.0.0.1") {
    const auto r = app.handle(req("POST", prefix + "/login", "username=admin&password=secret",
                                  {{"content-type", "application/x-www-form-urlencoded"}}, remote));
    const std::string set = header_of(r, "Set-Cookie");
    return r.status == 303 ? set.substr(0, set.find(';')) : std::string();
  }

  /// The session's CSRF token (from the JSON API).
  static std::string csrf_of(PanelApp& app, const std::string& cookie,
                             const std::string& prefix = "") {
    const auto r = app.handle(req("GET", prefix + "/api/v1/session", {}, {{"cookie", cookie}}));
    if (r.status != 200) return {};
    return json::parse(r.body).at("csrf_token").get<std::string>();
  }

  static inline std::string hash_;
  FakeServer server_;
  SessionKey key_ = [] {
    SessionKey k{};
    k.fill(0x5a);
    return k;
  }();
  std::int64_t now_unix_ = 1'800'000'000;
  Instant steady_ = Instant{} + std::chrono::hours(1000);
  std::vector<Duration> sleeps_;
};

/// A panel with the admin logged in: get/post/api as that admin (CSRF token included).
class LoggedInPanelTest : public PanelAppTest {
 protected:
  void SetUp() override { start(settings()); }
  void start(PanelSettings s) {
    app_ = make(std::move(s));
    cookie_ = login(*app_);
    csrf_ = csrf_of(*app_, cookie_);
    ASSERT_FALSE(csrf_.empty());
  }
  HttpResponse get(const std::string& path) {
    return app_->handle(req("GET", path, {}, {{"cookie", cookie_}}));
  }
  HttpResponse post(const std::string& path, const std::string& body, bool with_csrf = true) {
    return app_->handle(
        req("POST", path, with_csrf ? "csrf=" + csrf_ + "&" + body : body, {{"cookie", cookie_}}));
  }
  HttpResponse api(const std::string& path, const json& body) {
    return app_->handle(
        req("POST", path, body.dump(), {{"cookie", cookie_}, {"x-csrf-token", csrf_}}));
  }
  std::unique_ptr<PanelApp> app_;
  std::string cookie_, csrf_;
};

}  // namespace qeli::panel::panel_test
