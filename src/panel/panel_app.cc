#include "panel/panel_app.h"

#include <arpa/inet.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "config/values.h"
#include "control/api_json.h"
#include "crypto/base32.h"
#include "crypto/ct.h"
#include "crypto/totp.h"
#include "panel/answers.h"
#include "panel/audit_log.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/i18n.h"
#include "panel/lang_choice.h"
#include "panel/login_state.h"
#include "panel/pages.h"
#include "panel/post_routes.h"
#include "panel/session_pages.h"
#include "panel/traffic_history.h"
#include "server/source_key.h"

namespace qeli::panel {
namespace {

using nlohmann::json;

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void add_security_headers(HttpResponse& r, bool tls) {
  r.add("Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'");
  r.add("X-Content-Type-Options", "nosniff");
  r.add("X-Frame-Options", "DENY");
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with
  // every form POST (Fetch §3.1), which the Origin check must then refuse.
  r.add("Referrer-Policy", "same-origin");
  r.add("Cross-Origin-Opener-Policy", "same-origin");
  r.add("Cross-Origin-Resource-Policy", "same-origin");
  r.add("Cache-Control", "no-store");
  if (tls) r.add("Strict-Transport-Security", "max-age=31536000");
}

// Every value of one cookie in a Cookie header ("a=1; qeli_session=v1...."): a browser
// sends a more specific path's cookie first, so a planted one must not hide the real one.
std::vector<std::string_view> cookie_values(std::string_view header, std::string_view name) {
  std::vector<std::string_view> out;
  while (!header.empty() && out.size() < 8) {
    const std::size_t semi = header.find(';');
    std::string_view part = header.substr(0, semi);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.starts_with(name) && part[name.size()] == '=') {
      out.push_back(part.substr(name.size() + 1));
    }
    if (semi == std::string_view::npos) break;
    header.remove_prefix(semi + 1);
  }
  return out;
}

std::optional<std::uint32_t> ipv4_of(std::string_view ip) {
  if (ip.starts_with("::ffff:")) ip.remove_prefix(7);
  auto a = config::Ipv4Addr::parse(ip);
  if (!a) return std::nullopt;
  return a->value;
}

bool in_any(const std::vector<config::Ipv4Cidr>& nets, std::string_view ip) {
  const auto v4 = ipv4_of(ip);
  if (!v4) return false;
  for (const auto& n : nets)
    if (n.contains(config::Ipv4Addr{*v4})) return true;
  return false;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// "https://host:port/path" → "https://host:port" (the origin of a Referer).
std::string origin_of_url(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::size_t slash = url.find('/', scheme + 3);
  return std::string(url.substr(0, slash));
}

std::string lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Browsers submit a textarea with CRLF line ends (HTML §4.10.21.8); the file keeps LF.
std::string lf_only(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

// The fixed sentences a redirect after an action may show (never text from the request:
// a link cannot make the panel say something it did not).
std::string done_message(const FormFields& q, Lang l) {
  const auto what = q.get("done");
  const std::uint64_t count = parse_u64(q.get("n")).value_or(0);
  // A sentence with {n} agrees with the count in Russian (tr_count); the others ignore it.
  struct Done {
    std::string_view done, sentence;
  };
  static constexpr Done kDone[] = {
      {"kicked", "Ended {n} session(s)."},
      {"disabled", "User disabled; ended {n} session(s)."},
      {"user-removed", "User removed; ended {n} session(s)."},
      {"user-edited", "User saved; the server reloaded (ended {n} session(s))."},
      {"revoked", "Device revoked; ended {n} session(s)."},
      {"enabled", "User enabled."},
      {"unblocked", "Lockout lifted."},
      {"unblocked-all", "Every lockout lifted."},
      {"failed", "The server refused the action (see the panel's log)."},
      {"user-added", "User added: give each device a link of its own below."},
      {"token-revoked", "API token revoked."},
      {"admin-removed", "Admin removed; its sessions ended."},
      {"admin-role", "Role changed; that admin's sessions ended."},
      {"admin-logged-out", "That admin's sessions ended."},
      {"admin-totp-reset",
       "Second factor removed; that admin's sessions ended (it logs in with its password and "
       "can set up a new one)."},
      {"password-wrong", "Not changed: the current password is wrong."},
      {"password-weak",
       "Not changed: the new password needs 12..256 characters, typed the same twice."},
      {"saved", "Saved; the server reloaded the config."},
      {"unchanged", "Nothing to save: the text is the file's already."},
      {"restored", "Restored that version; the server reloaded the config."}};
  for (const auto& m : kDone) {
    if (what == m.done) return tr_count(l, m.sentence, count);
  }
  return {};
}

// Where the language switch may send the browser back to: a path of this panel (never
// "//host" or "/\\host", which a browser reads as another site), else the dashboard.
std::string local_path(std::string_view to) {
  const bool ok = to.starts_with('/') && !to.starts_with("//") &&
                  std::none_of(to.begin(), to.end(), [](char ch) {
                    const auto u = static_cast<unsigned char>(ch);
                    return u <= 0x20 || u == 0x7f || ch == '\\';
                  });
  return ok ? std::string(to) : std::string("/");
}

}  // namespace

PanelSettings settings_of(const config::WebConfig& w) {
  PanelSettings s;
  s.username = w.username;
  s.password_hash = w.password_hash;
  s.totp_secret = w.totp_secret;
  s.base_path = w.base_path;
  while (!s.base_path.empty() && s.base_path.back() == '/') s.base_path.pop_back();
  s.csrf = w.csrf;
  s.secure_cookie = w.secure_cookie;
  s.session_ttl_secs = w.session_ttl.count();
  s.allowed_ips = w.allowed_ips;
  s.trusted_proxies = w.trusted_proxies;
  s.public_host = w.public_host;
  s.allowed_origins = w.allowed_origins;
  const auto& b = w.brute_force;
  s.brute_force = {b.enabled, b.max_attempts,         b.window,
                   b.lockout, b.address_max_attempts, b.per_address_only};
  return s;
}

PanelClock system_panel_clock() {
  return {[] {
            return std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                .count();
          },
          [] { return std::chrono::steady_clock::now(); },
          [](Duration d) { std::this_thread::sleep_for(d); }};
}

PanelApp::PanelApp(PanelSettings settings, control::ControlService& server, const SessionKey& key,
                   PanelClock clock)
    : s_(std::move(settings)),
      server_(server),
      sessions_(key, s_.session_ttl_secs),
      guard_(s_.brute_force),
      clock_(std::move(clock)) {
  // check-config refuses a secret that does not decode; one that slips past (a caller
  // without the config's checks) leaves the key empty and every code refused: never a
  // login without the second factor the settings ask for.
  if (!s_.totp_secret.empty()) {
    if (auto decoded = crypto::base32_decode(s_.totp_secret)) totp_key_ = std::move(*decoded);
  }
}

void PanelApp::keep_login_state(LoginStateStore& store) {
  const std::int64_t now = clock_.unix_now();
  sessions_.restore(store.generation(), store.live(now), now, &store);
  std::lock_guard lock(totp_mu_);
  totp_last_step_ = std::max(totp_last_step_, store.totp_step());
  login_state_ = &store;
}

std::optional<PanelApp::Identity> PanelApp::identity(std::string_view name) const {
  if (name.size() == s_.username.size() &&
      crypto::ct_equal(bytes_of(name), bytes_of(s_.username))) {
    return Identity{
        AdminRole::kOwner, s_.password_hash,
        s_.totp_secret.empty() ? s_.password_hash : s_.password_hash + "\ntotp:" + s_.totp_secret,
        true, s_.totp_secret};
  }
  if (admins_ == nullptr || !admin_name_valid(name)) return std::nullopt;
  auto a = admins_->find(name);
  if (!a) return std::nullopt;
  return Identity{a->role, a->password_hash, session_credential(*a), false, a->totp_secret};
}

PageFrame PanelApp::frame(const Ctx& c, std::string title, NavItem active,
                          const std::string& csrf) const {
  // A page answered to a POST (a refused form, a new device's link) has no address to
  // come back to: the switch goes to the dashboard.
  std::string here = "/";
  if (c.req.method == "GET") here = c.req.query.empty() ? c.path : c.path + "?" + c.req.query;
  return {std::move(title), s_.base_path, c.admin, csrf, active, 0, c.lang, std::move(here)};
}

PageContext PanelApp::context(const Ctx& c, std::string message) const {
  return {s_.base_path, sessions_.csrf_token(c.session->sid), std::move(message), c.lang};
}

std::string PanelApp::day_chart(Lang l, const std::string* user) const {
  std::string s = "<h2>" + tr(l, "Traffic, the last 24 hours") + "</h2>";
  if (traffic_ == nullptr) {
    return s + "<p class=\"muted\">" +
           tr_html(l, "No history: {why}", {{"why", state_off_reason(l, traffic_off_)}}) + "</p>";
  }
  const std::int64_t now = clock_.unix_now();
  const std::int64_t from = traffic_bucket_of(now - 86400);
  return s + traffic_chart_svg(l,
                               user != nullptr ? traffic_->user_range(*user, from, now + 1)
                                               : traffic_->range(from, now + 1),
                               now - 86400, now);
}

HttpResponse PanelApp::refused_page(const Ctx& c, int status, const std::string& html) const {
  std::string_view title = "Unavailable";
  switch (status) {
    case 400: title = "Bad request"; break;
    case 403: title = "Forbidden"; break;
    case 404: title = "Not found"; break;
    case 409: title = "Conflict"; break;
    default: break;
  }
  const bool in = c.session.has_value();
  HttpResponse r;
  r.status = status;
  r.body = render_page(
      frame(c, tr(c.lang, title), NavItem::kNone, in ? sessions_.csrf_token(c.session->sid) : ""),
      "<p class=\"err\">" + html + "</p>" +
          (in ? std::string()
              : "<p><a href=\"" + escape(s_.base_path) + "/login\">" + tr(c.lang, "Log in") +
                    "</a></p>"));
  return r;
}

HttpResponse PanelApp::login_page(const Ctx& c, int status, const std::string& error) const {
  HttpResponse r;
  r.status = status;
  PageFrame f{tr(c.lang, "Log in"), s_.base_path, "", "", NavItem::kNone, 0, c.lang, "/login"};
  bool required = false;
  const bool code = login_asks_code(&required);
  r.body = render_page(f, login_content(c.lang, s_.base_path, error, code, required));
  return r;
}

std::string PanelApp::lang_cookie(Lang lang) const {
  return std::string(kLangCookie) + "=" + std::string(lang_code(lang)) +
         "; Path=" + (s_.base_path.empty() ? "/" : s_.base_path) +
         "; Max-Age=31536000; HttpOnly; SameSite=Strict" + (s_.secure_cookie ? "; Secure" : "");
}

HttpResponse PanelApp::set_lang(Ctx& c) {
  const auto form = parse_form(c.req.body).value_or(FormFields{});
  const auto lang = lang_of_code(form.get("lang"));
  if (!lang) return refused_page(c, 400, unexpected_value(c.lang, "lang"));
  auto r = redirect(s_.base_path + local_path(form.get("to")));
  r.add("Set-Cookie", lang_cookie(*lang));
  return r;
}

bool PanelApp::admin_totp_ok(const std::string& name, const std::string& secret,
                             std::string_view code) {
  if (secret.empty()) return true;
  const auto key = crypto::base32_decode(secret);
  if (!key || key->size() < crypto::kTotpMinSecretBytes || admins_ == nullptr) return false;
  const auto step = crypto::totp_match(*key, code, clock_.unix_now());
  return step && admins_->use_totp_step(name, *step);
}

bool PanelApp::login_asks_code(bool* required) const {
  *required = !s_.totp_secret.empty();
  return *required || (admins_ != nullptr && admins_->any_totp());
}

bool PanelApp::totp_ok(std::string_view code) {
  if (s_.totp_secret.empty()) return true;
  if (totp_key_.size() < crypto::kTotpMinSecretBytes) return false;
  const auto step = crypto::totp_match(totp_key_, code, clock_.unix_now());
  std::lock_guard lock(totp_mu_);
  if (!step || *step <= totp_last_step_) return false;
  totp_last_step_ = *step;
  if (login_state_ != nullptr) login_state_->totp_step_used(*step);
  return true;
}

std::string PanelApp::client_ip(const HttpRequest& r) const {
  if (s_.trusted_proxies.empty() || !in_any(s_.trusted_proxies, r.remote_ip)) return r.remote_ip;
  // The rightmost address that is not one of our proxies (RFC 7239 §5.2's reasoning for
  // X-Forwarded-For: every hop appends, only our own proxies' entries are trustworthy).
  // Every X-Forwarded-For line in order, as one list (RFC 9110 §5.3): a proxy that adds
  // its own line after the client's must not leave the client's line to be read alone.
  std::string all;
  for (const auto& [k, v] : r.headers) {
    if (k != "x-forwarded-for") continue;
    if (!all.empty()) all += ',';
    all += v;
  }
  std::string_view xff = all;
  std::string chosen = r.remote_ip;
  while (!xff.empty()) {
    const std::size_t comma = xff.rfind(',');
    const std::string hop = trim(comma == std::string_view::npos ? xff : xff.substr(comma + 1));
    xff = comma == std::string_view::npos ? std::string_view{} : xff.substr(0, comma);
    in_addr a4{};
    in6_addr a6{};
    if (inet_pton(AF_INET, hop.c_str(), &a4) != 1 && inet_pton(AF_INET6, hop.c_str(), &a6) != 1) {
      break;  // garbage: keep the last address we could trust
    }
    chosen = hop;
    if (!in_any(s_.trusted_proxies, hop)) break;
  }
  return chosen;
}

bool PanelApp::source_allowed(const std::string& ip) const {
  return s_.allowed_ips.empty() || in_any(s_.allowed_ips, ip);
}

bool PanelApp::origin_allowed(const HttpRequest& r) const {
  std::string origin = std::string(r.header("origin"));
  if (origin.empty()) origin = origin_of_url(r.header("referer"));
  // No Origin and no Referer: not a browser's cross-site form (browsers send Origin on
  // every POST); the CSRF token still has to match.
  if (origin.empty()) return true;
  origin = lower(origin);
  const std::string host = lower(std::string(r.header("host")));
  if (!host.empty() && origin == (r.tls ? "https://" : "http://") + host) return true;
  if (!s_.public_host.empty()) {
    const std::string ph = lower(s_.public_host);
    for (const char* scheme : {"https://", "http://"}) {
      if (origin == scheme + ph) return true;
      if (origin.starts_with(scheme + ph + ":")) return true;
    }
  }
  for (const auto& o : s_.allowed_origins) {
    std::string a = lower(o);
    while (!a.empty() && a.back() == '/') a.pop_back();
    if (origin == a) return true;
  }
  return false;
}

bool PanelApp::authenticate(Ctx& c) const {
  // Every valid cookie is looked at: valid ones of two different admins (one planted by a
  // sibling site on a narrower path, say) are refused rather than one picked, so a planted
  // session can never stand in for the admin's own.
  for (const auto v : cookie_values(c.req.header("cookie"), kSessionCookie)) {
    const auto user = AdminSessions::cookie_user(v);
    if (!user) continue;
    const auto id = identity(*user);
    if (!id) continue;
    if (auto ok = sessions_.verify(v, *user, id->credential, clock_.unix_now())) {
      if (c.session && c.admin != *user) {
        spdlog::warn("panel: {} {} from {}: session cookies of two admins; refused", c.req.method,
                     c.path, c.ip);
        c.session.reset();
        return false;
      }
      if (c.session) continue;
      c.session = std::move(ok);
      c.admin = *user;
      c.role = id->role;
    }
  }
  return c.session.has_value();
}

bool PanelApp::host_allowed(std::string_view host) const {
  if (host.empty()) return true;  // HTTP/1.0 without Host: no name to rebind
  std::string h = lower(std::string(host));
  // Without the port ("[::1]:8080", "name:8080").
  if (h.front() == '[') {
    const auto close = h.find(']');
    h = close == std::string::npos ? h : h.substr(1, close - 1);
  } else if (const auto colon = h.rfind(':'); colon != std::string::npos) {
    h.resize(colon);
  }
  in_addr a4{};
  in6_addr a6{};
  // An address cannot be rebound; only names can.
  if (inet_pton(AF_INET, h.c_str(), &a4) == 1 || inet_pton(AF_INET6, h.c_str(), &a6) == 1) {
    return true;
  }
  if (h == "localhost" || (!s_.public_host.empty() && h == lower(s_.public_host))) return true;
  for (const auto& o : s_.allowed_origins) {
    std::string a = lower(o);
    const auto scheme = a.find("://");
    if (scheme != std::string::npos) a = a.substr(scheme + 3);
    a = a.substr(0, a.find('/'));
    if (const auto colon = a.rfind(':'); colon != std::string::npos && a.front() != '[') {
      a.resize(colon);
    }
    if (a == h) return true;
  }
  return false;
}

std::optional<HttpResponse> PanelApp::admit(const HttpRequest& head) const {
  std::optional<HttpResponse> r;
  if (!source_allowed(client_ip(head))) {
    r = plain(403, "Forbidden");
  } else if (!host_allowed(head.header("host"))) {
    r = plain(421, "Misdirected Request: this panel is not that host");
  } else {
    return std::nullopt;
  }
  add_security_headers(*r, head.tls);
  return r;
}

HttpResponse PanelApp::handle(const HttpRequest& request) {
  if (auto refused = admit(request)) return std::move(*refused);
  Ctx c{request, {}, client_ip(request), std::nullopt, {}, AdminRole::kReadOnly, {}, {}, false};
  c.lang = request_lang(request.header("accept-language"),
                        cookie_values(request.header("cookie"), kLangCookie));
  HttpResponse r;
  {
    std::string_view p = request.path;
    const std::string& base = s_.base_path;
    if (!base.empty()) {
      if (p == base) {
        p = "/";
      } else if (p.starts_with(base) && p.size() > base.size() && p[base.size()] == '/') {
        p.remove_prefix(base.size());
      } else {
        p = {};
      }
    }
    if (p.empty() || p.front() != '/') {
      r = refused_page(c, 404, tr(c.lang, "No such page."));
    } else {
      c.path = std::string(p);
      r = route(c);
    }
  }
  add_security_headers(r, request.tls);
  return r;
}

HttpResponse PanelApp::route(Ctx& c) {
  const auto& m = c.req.method;
  const bool get = m == "GET" || m == "HEAD";
  if (!get && m != "POST") {
    auto r = plain(405, "Method Not Allowed");
    r.add("Allow", "GET, HEAD, POST");
    return r;
  }
  if (get && c.path == "/assets/panel.css") {
    HttpResponse r;
    r.content_type = "text/css; charset=utf-8";
    r.body = std::string(stylesheet());
    return r;
  }
  if (c.path == "/login") {
    if (get) {
      // ?lang= is the login page's language switch (html.cc lang_switch: no session, so
      // no CSRF token to post with); it sets only the language cookie.
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      const auto chosen = lang_of_code(q.get("lang"));
      if (chosen) c.lang = *chosen;
      auto r = login_page(c, 200, "");
      if (chosen) r.add("Set-Cookie", lang_cookie(*chosen));
      return r;
    }
    auto r = login(c);
    // Not the lockout's own refusals (429: they would only repeat, and flood the log). The
    // name tried is kept only when it is the admin's: anything else may be a password
    // typed into the wrong field.
    if (r.status != 429) {
      const auto form = c.req.body.size() <= kMaxLoginBody ? parse_form(c.req.body) : std::nullopt;
      const std::string tried = form ? std::string(form->get("username")) : std::string();
      const bool admin = identity(tried).has_value();
      audit(c, r.status, "login:" + (admin ? tried : std::string("(another name)")));
    }
    return r;
  }
  const bool is_api = c.path.starts_with("/api/");
  // A script's or Prometheus's Bearer token: no cookie, so no CSRF to check.
  if (auto done = bearer(c, is_api)) return std::move(*done);
  if (!authenticate(c)) {
    if (is_api || c.path == "/metrics") {
      return problem(401, "Unauthorized", "log in first (POST /login), or send an API token");
    }
    if (get) return redirect(s_.base_path + "/login");
    return refused_page(c, 403,
                        tr(c.lang,
                           "Not done: you are not logged in (or your session ended). Log "
                           "in and do it again."));
  }
  if (!get) {
    if (s_.csrf) {
      if (!origin_allowed(c.req)) {
        spdlog::warn("panel: {} {} from {}: Origin {} is not this panel's; refused", m, c.path,
                     c.ip, loggable(c.req.header("origin")));
        audit(c, 403, "panel:" + c.admin);
        return is_api ? problem(403, "Forbidden", "cross-origin request")
                      : refused_page(c, 403,
                                     tr(c.lang,
                                        "Not done: the request came from a page of "
                                        "another site, not of this panel."));
      }
      std::string token(c.req.header("x-csrf-token"));
      if (token.empty() && !is_api) {
        if (auto f = parse_form(c.req.body)) token = std::string(f->get("csrf"));
      }
      if (!sessions_.csrf_ok(c.session->sid, token)) {
        spdlog::warn("panel: {} {} from {}: missing or wrong CSRF token; refused", m, c.path, c.ip);
        audit(c, 403, "panel:" + c.admin);
        return is_api ? problem(403, "Forbidden", "missing or wrong CSRF token")
                      : refused_page(c, 403,
                                     tr(c.lang,
                                        "Not done: the form's security token is missing "
                                        "or stale. Open the page again and repeat."));
      }
    }
  }
  c.actor = "panel:" + c.admin;
  c.who = "admin '" + c.admin + "'";
  if (const AdminRole need = role_needed(!get, c.path); c.role < need) {
    const std::string why = "the role " + std::string(role_name(c.role)) + " cannot do this (" +
                            std::string(role_name(need)) + " can)";
    spdlog::warn("panel: {} {} by {} from {}: {}; refused", m, c.path, c.who, c.ip, why);
    if (!get) audit(c, 403);
    if (is_api || c.path == "/metrics") return problem(403, "Forbidden", why);
    return refused_page(c, 403,
                        tr_html(c.lang, "Your role, {role}, cannot do this ({need} can).",
                                {{"role", role_name(c.role)}, {"need", role_name(need)}}));
  }
  // Every POST route is in one table (panel/post_routes.h): a path it lacks is no route,
  // whatever handler might match it.
  if (!get && !is_post_route(c.path)) {
    audit(c, 404);
    return is_api ? problem(404, "Not Found") : refused_page(c, 404, tr(c.lang, "No such page."));
  }
  if (!get && c.path == "/logout") {
    auto r = logout(c);
    audit(c, r.status);
    return r;
  }
  // A display preference of this browser, not an action on the server or the panel:
  // not audited.
  if (!get && c.path == "/lang") return set_lang(c);
  if (is_api) {
    auto r = api(c);
    if (!get) audit(c, r.status);
    return r;
  }
  if (get && c.path == "/metrics") return metrics(c);
  if (get) return page(c);
  auto r = action(c);
  audit(c, r.status);
  return r;
}

HttpResponse PanelApp::login(Ctx& c) {
  auto page_with = [&](int status, std::string_view error) {
    return login_page(c, status, tr(c.lang, error));
  };
  if (s_.csrf && !origin_allowed(c.req)) {
    spdlog::warn("panel: login from {}: Origin {} is not this panel's; refused", c.ip,
                 loggable(c.req.header("origin")));
    return refused_page(c, 403,
                        tr(c.lang,
                           "Not done: the request came from a page of another site, not "
                           "of this panel."));
  }
  if (c.req.body.size() > kMaxLoginBody) return page_with(413, "The form is too large.");
  auto form = parse_form(c.req.body);
  if (!form) return page_with(400, "The form could not be read.");
  const std::string user(form->get("username"));
  const std::string password(form->get("password"));
  const std::string code(form->get("code"));
  const auto key = server::parse_source_key(c.ip).value_or(0);
  const Instant now = clock_.steady_now();
  const auto id = identity(user);
  // Only an admin's name goes to the log (which the Logs page shows): anything else may be
  // a password typed into the wrong field.
  const std::string shown = id ? loggable(user) : std::string("(another name)");
  if (guard_.locked_out(key, user, now)) {
    spdlog::warn("panel: login of '{}' from {} refused: locked out", shown, c.ip);
    return page_with(429, "Too many failed logins; try again later.");
  }
  if (const auto d = guard_.tarpit(user, now); d > Duration::zero()) clock_.sleep(d);
  // A wrong name costs the same Argon2id work as a wrong password (a dummy hash).
  const bool password_ok =
      guard_.verify_password(id ? id->password_hash : std::string(), password) && id;
  // The code is looked at only after the password (a guessed code never uses up a step
  // for the real admin), and a wrong one reads the same as a wrong password.
  const bool ok = password_ok &&
                  (id->config_owner ? totp_ok(code) : admin_totp_ok(user, id->totp_secret, code));
  if (!ok) {
    const bool locked = guard_.record_failure(key, user, clock_.steady_now());
    spdlog::warn("panel: failed login of '{}' from {}{}{}", shown, c.ip,
                 password_ok ? " (wrong or reused one-time code)" : "",
                 locked ? " (now locked out)" : "");
    bool required = false;
    return page_with(401, login_asks_code(&required) ? "Wrong user name, password or code."
                                                     : "Wrong user name or password.");
  }
  guard_.record_success(key, user);
  const std::string cookie = sessions_.issue(user, id->credential, clock_.unix_now());
  spdlog::info("panel: admin '{}' logged in from {}", shown, c.ip);
  auto r = redirect(s_.base_path + "/");
  r.add("Set-Cookie", std::string(kSessionCookie) + "=" + cookie +
                          "; Path=" + (s_.base_path.empty() ? "/" : s_.base_path) +
                          "; Max-Age=" + std::to_string(s_.session_ttl_secs) +
                          "; HttpOnly; SameSite=Strict" + (s_.secure_cookie ? "; Secure" : ""));
  return r;
}

HttpResponse PanelApp::logout(Ctx& c) {
  sessions_.revoke(*c.session, clock_.unix_now());
  spdlog::info("panel: admin '{}' logged out from {}", c.admin, c.ip);
  auto r = redirect(s_.base_path + "/login");
  r.add("Set-Cookie",
        std::string(kSessionCookie) + "=; Path=" + (s_.base_path.empty() ? "/" : s_.base_path) +
            "; Max-Age=0; HttpOnly; SameSite=Strict" + (s_.secure_cookie ? "; Secure" : ""));
  return r;
}

HttpResponse PanelApp::page(Ctx& c) {
  const auto query = parse_form(c.req.query).value_or(FormFields{});
  const PageContext pc = context(c, done_message(query, c.lang));
  PageFrame frame = this->frame(c, "", NavItem::kNone, pc.csrf);
  const Lang l = c.lang;
  std::string error, content;
  if (c.path == "/") {
    frame.title = tr(l, "Dashboard");
    frame.active = NavItem::kDashboard;
    frame.refresh_secs = 10;
    auto stats = ask(server_, control::GetStats{}, error);
    auto sessions = stats ? ask(server_, control::ListSessions{}, error) : std::nullopt;
    auto events = sessions ? ask(server_, control::GetEvents{0, 1000}, error) : std::nullopt;
    if (!events) return server_unavailable(s_.base_path, error, c.lang);
    const auto rates = rates_.observe(*sessions, clock_.steady_now());
    content = dashboard_content(pc, *stats, *sessions, rates, *events) +
              host_content(l, host_.sample()) + day_chart(l, nullptr);
  } else if (c.path == "/sessions") {
    frame.title = tr(l, "Live sessions");
    frame.active = NavItem::kSessions;
    frame.refresh_secs = 10;
    auto sessions = ask(server_, control::ListSessions{}, error);
    if (!sessions) return server_unavailable(s_.base_path, error, c.lang);
    content = sessions_content(pc, *sessions, rates_.observe(*sessions, clock_.steady_now()));
  } else if (c.path == "/sessions/view") {
    // One session: its packets, drops and rates (every session is sampled, as on the list).
    auto sessions = ask(server_, control::ListSessions{}, error);
    if (!sessions) return server_unavailable(s_.base_path, error, c.lang);
    const auto rates = rates_.observe(*sessions, clock_.steady_now());
    const auto id = parse_u64(query.get("id"));
    const std::string_view profile = query.get("profile");
    std::size_t at = 0;
    while (at < sessions->clients.size() &&
           !(id && sessions->clients[at].id == *id && sessions->clients[at].profile == profile)) {
      ++at;
    }
    if (at == sessions->clients.size()) {
      return refused_page(c, 404, tr(l, "No such session: it has ended, or never was."));
    }
    const auto& x = sessions->clients[at];
    frame.title =
        tr_text(l, "Session {id} of {user}", {{"id", std::to_string(x.id)}, {"user", x.username}});
    frame.active = NavItem::kSessions;
    frame.refresh_secs = 10;
    content = session_content(pc, x, rates[at]);
  } else if (auto users = users_page(c, pc)) {
    return std::move(*users);
  } else if (auto tokens = tokens_page(c, pc)) {
    return std::move(*tokens);
  } else if (auto audit = audit_page(c, pc)) {
    return std::move(*audit);
  } else if (auto logs = logs_page(c, pc)) {
    return std::move(*logs);
  } else if (auto admins = admins_page(c, pc)) {
    return std::move(*admins);
  } else if (auto hooks = webhooks_page(c, pc)) {
    return std::move(*hooks);
  } else if (c.path == "/blocked") {
    frame.title = tr(l, "Lockouts");
    frame.active = NavItem::kBlocked;
    auto blocked = ask(server_, control::ListBlocked{}, error);
    if (!blocked) return server_unavailable(s_.base_path, error, c.lang);
    content = blocked_content(pc, *blocked);
  } else if (c.path == "/events") {
    frame.title = tr(l, "Events");
    frame.active = NavItem::kEvents;
    auto events = ask(server_, control::GetEvents{0, 1000}, error);
    if (!events) return server_unavailable(s_.base_path, error, c.lang);
    content = events_content(pc, *events);
  } else if (c.path == "/config") {
    auto text = ask(server_, control::GetConfig{}, error);
    if (!text) return server_unavailable(s_.base_path, error, c.lang);
    return config_page(c, ConfigEditor{text->path, text->text, text->sha256, {}, false, ""}, 200);
  } else if (c.path == "/config/version") {
    frame.active = NavItem::kConfig;
    const std::string id(query.get("id"));
    auto current = ask(server_, control::GetConfig{}, error);
    auto version = current ? ask(server_, control::GetConfigVersion{id}, error) : std::nullopt;
    if (!version) return refused_page(c, 404, tr(l, "No such config version."));
    frame.title = tr_text(l, "Config version {id}", {{"id", id}});
    content = config_version_content(pc, *version, id, current->sha256);
  } else {
    return refused_page(c, 404, tr(l, "No such page."));
  }
  HttpResponse r;
  r.body = render_page(frame, content);
  return r;
}

HttpResponse PanelApp::config_page(Ctx& c, ConfigEditor editor, int status) {
  const auto query = parse_form(c.req.query).value_or(FormFields{});
  const PageContext pc =
      context(c, c.req.method == "GET" ? done_message(query, c.lang) : std::string());
  std::string error;
  auto history = ask(server_, control::ListConfigHistory{}, error);
  if (!history) return server_unavailable(s_.base_path, error, c.lang);
  HttpResponse r;
  r.status = status;
  r.body = render_page(frame(c, tr(c.lang, "Server config"), NavItem::kConfig, pc.csrf),
                       config_content(pc, editor, *history));
  return r;
}

HttpResponse PanelApp::config_action(Ctx& c, const FormFields& form) {
  std::string error;
  auto current = ask(server_, control::GetConfig{}, error);
  if (!current) return server_unavailable(s_.base_path, error, c.lang);
  if (c.path == "/config/restore") {
    const std::string id(form.get("id"));
    auto version = ask(server_, control::GetConfigVersion{id}, error);
    if (!version) return refused_page(c, 404, tr(c.lang, "No such config version."));
    control::SaveConfig save{version->text, std::string(form.get("base")), "panel:" + c.admin};
    auto saved = ask(server_, save, error);
    if (!saved) {
      return config_page(c,
                         ConfigEditor{current->path,
                                      version->text,
                                      current->sha256,
                                      {},
                                      false,
                                      tr_text(c.lang, "Not restored: {error}", {{"error", error}})},
                         409);
    }
    spdlog::info("panel: admin '{}' restored config version {} from {}", c.admin, loggable(id),
                 c.ip);
    return after_save(c, *saved, current->path, version->text, true);
  }
  ConfigEditor e{
      current->path, lf_only(form.get("text")), std::string(form.get("base")), {}, false, ""};
  auto checked = ask(server_, control::ValidateConfig{e.text}, error);
  if (!checked) return server_unavailable(s_.base_path, error, c.lang);
  e.findings = checked->findings;
  e.validated = true;
  if (c.path == "/config/validate") return config_page(c, std::move(e), 200);
  if (!checked->ok) {
    e.error = tr(c.lang, "Not saved: fix the errors below first.");
    return config_page(c, std::move(e), 422);
  }
  auto saved = ask(server_, control::SaveConfig{e.text, e.base_sha256, "panel:" + c.admin}, error);
  if (!saved) {
    // A lost update (someone saved meanwhile) or a refusal: the admin's text stays.
    e.error = tr_text(c.lang, "Not saved: {error}", {{"error", error}});
    return config_page(c, std::move(e), 409);
  }
  spdlog::info("panel: admin '{}' saved the config from {} (previous version {})", c.admin, c.ip,
               saved->history_id);
  return after_save(c, *saved, current->path, e.text, false);
}

HttpResponse PanelApp::after_save(Ctx& c, const control::ConfigSaved& saved,
                                  const std::string& path, const std::string& text, bool restore) {
  if (saved.history_id.empty()) return redirect(s_.base_path + "/config?done=unchanged");
  if (saved.reloaded) {
    return redirect(s_.base_path + (restore ? "/config?done=restored" : "/config?done=saved"));
  }
  // Saved, but the server keeps running the previous config: say so with its reason on
  // the editor (the reason is the server's text, which a redirect's fixed sentences
  // cannot carry), over the file as it is now.
  spdlog::warn("panel: the config {} by admin '{}' is saved but the server refused to reload: {}",
               restore ? "restored" : "saved", c.admin, saved.reload_error);
  const std::string why =
      saved.reload_error.empty() ? tr(c.lang, "no reason given") : saved.reload_error;
  ConfigEditor e{path,
                 text,
                 saved.sha256,
                 saved.findings,
                 false,
                 tr_text(c.lang,
                         restore ? "Restored, but the server refused to reload it and keeps "
                                   "running the previous configuration: {error}"
                                 : "Saved, but the server refused to reload it and keeps running "
                                   "the previous configuration: {error}",
                         {{"error", why}})};
  return config_page(c, std::move(e), 200);
}

HttpResponse PanelApp::action(Ctx& c) {
  auto form = parse_form(c.req.body);
  if (!form) return refused_page(c, 400, tr(c.lang, "The form could not be read."));
  const std::string user(form->get("user"));
  std::string error;
  auto back = [&](const std::string& page, const std::string& done, std::uint64_t n) {
    return redirect(s_.base_path + page + "?done=" + done + "&n=" + std::to_string(n));
  };
  auto failed = [&](const std::string& page) {
    spdlog::warn("panel: {} by '{}' from {} failed: {}", c.path, c.admin, c.ip, error);
    return redirect(s_.base_path + page + "?done=failed");
  };
  if (auto done = users_action(c, *form)) return std::move(*done);
  if (auto done = tokens_action(c, *form)) return std::move(*done);
  if (auto done = admins_action(c, *form)) return std::move(*done);
  const std::string from = std::string(c.req.header("referer")).find("/users") != std::string::npos
                               ? "/users"
                               : "/sessions";
  if (c.path == "/sessions/kick") {
    control::Kick k;
    k.username = user;
    if (form->has("id")) {
      const auto id = parse_u64(form->get("id"));
      if (!id) return refused_page(c, 400, unexpected_value(c.lang, "id"));
      k.session_id = *id;
    }
    auto r = ask(server_, k, error);
    if (!r) return failed(from);
    spdlog::info("panel: admin '{}' kicked {} session(s) of '{}' from {}", c.admin, r->kicked,
                 loggable(user), c.ip);
    return back(from, "kicked", r->kicked);
  }
  if (c.path == "/users/disable" || c.path == "/users/enable") {
    const bool disable = c.path == "/users/disable";
    auto r = disable ? ask(server_, control::DisableUser{user}, error)
                     : ask(server_, control::EnableUser{user}, error);
    if (!r) return failed("/users");
    spdlog::info("panel: admin '{}' {} user '{}' from {}", c.admin,
                 disable ? "disabled" : "enabled", loggable(user), c.ip);
    return back("/users", disable ? "disabled" : "enabled", r->kicked);
  }
  if (c.path == "/blocked/unblock") {
    auto r = ask(server_, control::Unblock{std::string(form->get("ip"))}, error);
    if (!r) return failed("/blocked");
    spdlog::info("panel: admin '{}' lifted the lockout of {} from {}", c.admin, loggable(r->ip),
                 c.ip);
    return back("/blocked", "unblocked", 1);
  }
  if (c.path == "/config/validate" || c.path == "/config/save" || c.path == "/config/restore") {
    return config_action(c, *form);
  }
  if (c.path == "/blocked/unblock-all") {
    auto r = ask(server_, control::UnblockAll{}, error);
    if (!r) return failed("/blocked");
    spdlog::info("panel: admin '{}' lifted every lockout from {}", c.admin, c.ip);
    return back("/blocked", "unblocked-all", 0);
  }
  return refused_page(c, 404, tr(c.lang, "No such page."));
}

HttpResponse PanelApp::api(Ctx& c) {
  const bool get = c.req.method != "POST";
  if (!c.path.starts_with("/api/v1/")) return problem(404, "Not Found");
  const std::string p = c.path.substr(std::string_view("/api/v1").size());
  // One mapping of the server's refusals for every route (answers.h http_status_of):
  // unreachable 502/503, unknown names 404, stale or taken 409, refused values 422.
  std::string error;
  control::ErrorCode code = control::ErrorCode::kInternal;
  auto reply = [&](auto&& opt) -> HttpResponse {
    if (!opt) return refusal(code, error);
    return json_answer(control::encode_reply(control::Response{std::move(*opt)}));
  };
  if (get) {
    if (p == "/session" && c.by_token) return json_answer({{"token", c.actor}});
    if (p == "/session") {
      return json_answer({{"user", c.admin},
                          {"role", role_name(c.role)},
                          {"csrf_token", sessions_.csrf_token(c.session->sid)},
                          {"expires_unix", c.session->expires_unix}});
    }
    if (p == "/status") return reply(ask(server_, control::GetStats{}, error, &code));
    if (p == "/sessions") return reply(ask(server_, control::ListSessions{}, error, &code));
    if (p == "/users") return reply(ask(server_, control::ListUsers{}, error, &code));
    if (p == "/usage") return reply(ask(server_, control::GetUsage{}, error, &code));
    if (p == "/blocked") return reply(ask(server_, control::ListBlocked{}, error, &code));
    if (p == "/config") return reply(ask(server_, control::GetConfig{}, error, &code));
    if (p == "/config/history")
      return reply(ask(server_, control::ListConfigHistory{}, error, &code));
    if (p == "/config/version") {
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      return reply(ask(server_, control::GetConfigVersion{std::string(q.get("id"))}, error, &code));
    }
    if (p == "/audit") {
      if (audit_ == nullptr)
        return problem(503, "Service Unavailable", "no audit log: " + tokens_off_);
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      json rows = json::array();
      for (const auto& e : audit_->newest(parse_u64(q.get("limit")).value_or(200))) {
        rows.push_back({{"seq", e.seq},
                        {"unix_secs", e.unix_secs},
                        {"actor", e.actor},
                        {"ip", e.ip},
                        {"action", e.action},
                        {"target", e.target},
                        {"status", e.status}});
      }
      return json_answer({{"entries", rows}});
    }
    if (p == "/host") {
      const sys::HostLoad h = host_.sample();
      json j = {{"cpus", h.cpus},
                {"cpu_percent", nullptr},
                {"load", nullptr},
                {"memory_total_bytes", nullptr},
                {"memory_available_bytes", nullptr}};
      if (h.cpu_percent) j["cpu_percent"] = *h.cpu_percent;
      if (h.load) j["load"] = {h.load->one, h.load->five, h.load->fifteen};
      if (h.memory) {
        j["memory_total_bytes"] = h.memory->total_bytes;
        j["memory_available_bytes"] = h.memory->available_bytes;
      }
      return json_answer(j);
    }
    if (p == "/logs") {
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      control::GetLogs req;
      req.after = parse_u64(q.get("after")).value_or(0);
      req.limit = static_cast<std::uint32_t>(
          std::clamp<std::uint64_t>(parse_u64(q.get("limit")).value_or(200), 1, 1000));
      if (const auto level = q.get("level"); !level.empty()) req.level = std::string(level);
      return reply(ask(server_, req, error, &code));
    }
    if (p == "/traffic") {
      if (traffic_ == nullptr) {
        return problem(503, "Service Unavailable", "no traffic history: " + traffic_off_);
      }
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      const std::string_view h = q.get("hours");
      const auto hours = h.empty() ? std::optional<std::uint64_t>(24) : parse_u64(h);
      if (!hours || *hours < 1 || *hours > kRetentionSecs / 3600) {
        return problem(400, "Bad Request",
                       "hours: 1.." + std::to_string(kRetentionSecs / 3600) + " (default 24)");
      }
      // One user's: a name the loader would take, of a user the server has now.
      const bool one = q.has("user");
      const std::string user(q.get("user"));
      if (one && !config::is_valid_object_name(user)) {
        return problem(400, "Bad Request", "user: 1..64 letters, digits or . _ @ -");
      }
      if (one) {
        auto users = ask(server_, control::ListUsers{}, error, &code);
        if (!users) return refusal(code, error);
        if (std::none_of(users->users.begin(), users->users.end(),
                         [&](const control::UserInfo& u) { return u.name == user; })) {
          return problem(404, "Not Found", "no user '" + user + "'");
        }
      }
      const std::int64_t to = clock_.unix_now() + 1;
      // From the start of the bucket the span begins in (that bucket's traffic is in).
      const std::int64_t from = traffic_bucket_of(to - static_cast<std::int64_t>(*hours) * 3600);
      json points = json::array();
      for (const auto& pt :
           one ? traffic_->user_range(user, from, to) : traffic_->range(from, to)) {
        points.push_back({{"start_unix", pt.start_unix},
                          {"down_bytes", pt.down_bytes},
                          {"up_bytes", pt.up_bytes}});
      }
      json answer = {{"bucket_secs", kBucketSecs},
                     {"from_unix", from},
                     {"to_unix", to},
                     {"points", std::move(points)}};
      if (one) answer["user"] = user;
      return json_answer(answer);
    }
    if (p == "/webhooks") {
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      control::GetWebhookLog wl;
      wl.limit = static_cast<std::uint32_t>(
          std::clamp<std::uint64_t>(parse_u64(q.get("limit")).value_or(100), 1, 1000));
      return reply(ask(server_, wl, error, &code));
    }
    if (p == "/events") {
      const auto q = parse_form(c.req.query).value_or(FormFields{});
      control::GetEvents ge;
      ge.after = parse_u64(q.get("after")).value_or(0);
      ge.limit = static_cast<std::uint32_t>(
          std::clamp<std::uint64_t>(parse_u64(q.get("limit")).value_or(200), 1, 1000));
      return reply(ask(server_, ge, error, &code));
    }
    return problem(404, "Not Found");
  }
  json body = json::parse(c.req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return problem(400, "Bad Request", "the body must be a JSON object");
  }
  auto str = [&](const char* k) {
    return body.contains(k) && body[k].is_string() ? body[k].get<std::string>() : std::string();
  };
  if (auto done = users_api(c, body, p)) return std::move(*done);
  if (p == "/sessions/kick") {
    control::Kick k;
    k.username = str("user");
    if (body.contains("id")) {
      if (!body["id"].is_number_unsigned()) return problem(400, "Bad Request", "id");
      k.session_id = body["id"].get<std::uint64_t>();
    }
    auto r = ask(server_, k, error, &code);
    if (!r) return refusal(code, error);
    spdlog::info("panel: {} kicked {} session(s) of '{}' from {} (API)", c.who, r->kicked,
                 loggable(k.username), c.ip);
    return json_answer(control::encode_reply(control::Response{*r}));
  }
  if (p == "/config/validate") {
    return reply(ask(server_, control::ValidateConfig{lf_only(str("text"))}, error, &code));
  }
  if (p == "/config") {
    control::SaveConfig save{lf_only(str("text")), str("base_sha256"), c.actor};
    auto r = ask(server_, save, error, &code);
    if (!r) return refusal(code, error);
    spdlog::info("panel: {} saved the config from {} (API)", c.who, c.ip);
    return json_answer(control::encode_reply(control::Response{*r}));
  }
  if (p == "/users/disable" || p == "/users/enable") {
    const bool disable = p == "/users/disable";
    auto r = disable ? ask(server_, control::DisableUser{str("user")}, error, &code)
                     : ask(server_, control::EnableUser{str("user")}, error, &code);
    if (!r) return refusal(code, error);
    spdlog::info("panel: {} {} user '{}' from {} (API)", c.who, disable ? "disabled" : "enabled",
                 loggable(str("user")), c.ip);
    return json_answer(control::encode_reply(control::Response{*r}));
  }
  return problem(404, "Not Found");
}

}  // namespace qeli::panel
