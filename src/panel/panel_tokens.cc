// API tokens in the panel (panel/api_tokens.h): the Bearer check in front of the JSON API
// and /metrics, the scope each route needs, and the page where the admin makes (shown
// once) and revokes tokens. Tokens are made only from an admin's session: a token cannot
// make another token.
#include <spdlog/spdlog.h>

#include "metrics/metrics_page.h"
#include "panel/answers.h"
#include "panel/api_tokens.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/pages.h"
#include "panel/panel_app.h"

namespace qeli::panel {
namespace {

// The scope a Bearer request needs (api_tokens.h lists them).
TokenScope scope_for(const HttpRequest& r, const std::string& path) {
  if (path == "/metrics") return TokenScope::kMetrics;
  // The config text holds the admin's password hash and inline users' hashes, the logs
  // what the config holds (a webhook URL, hook commands): admin only.
  if (r.method != "POST" &&
      (path == "/api/v1/config" || path.starts_with("/api/v1/config/") || path == "/api/v1/logs")) {
    return TokenScope::kAdmin;
  }
  if (r.method != "POST" || path == "/api/v1/config/validate") return TokenScope::kRead;
  if (path == "/api/v1/sessions/kick") return TokenScope::kSessionsKick;
  if (path.starts_with("/api/v1/users") || path.starts_with("/api/v1/devices")) {
    return TokenScope::kUsersWrite;
  }
  return TokenScope::kAdmin;  // config saves, and whatever comes later
}

std::string tokens_table(const PageContext& c, const std::vector<TokenInfo>& tokens,
                         std::int64_t now) {
  const Lang l = c.lang;
  if (tokens.empty()) return "<p class=\"muted\">" + tr(l, "No API tokens.") + "</p>";
  std::string s = "<table>" + th_row(l, {"Name", "Id", "Scopes", "Created (UTC)", "Expires (UTC)",
                                         "Last used", ""});
  for (const auto& t : tokens) {
    const std::string expires =
        human_time_utc(t.expires_unix) + (t.expires_unix <= now ? " " + tr(l, "(expired)") : "");
    const std::string used =
        t.last_used_unix == 0
            ? tr(l, "never")
            : tr_text(l, "{time} from {ip}",
                      {{"time", human_time_utc(t.last_used_unix)}, {"ip", t.last_ip}});
    s += "<tr>" + td(t.name) + td(t.id) + td(scope_list(t.scopes)) +
         td(human_time_utc(t.created_unix)) + td(expires) + td(used) + "<td>" +
         post_button(c.base, "/tokens/revoke", c.csrf, tr(l, "Revoke"), {{"id", t.id}}, true) +
         "</td></tr>";
  }
  return s + "</table>";
}

std::string new_token_form(const PageContext& c) {
  const Lang l = c.lang;
  std::string s = "<h2>" + tr(l, "New token") +
                  "</h2><form class=\"add\" method=\"post\" action=\"" + escape(c.base) +
                  "/tokens/create\"><input type=\"hidden\" name=\"csrf\" value=\"" +
                  escape(c.csrf) + "\"><label>" + tr(l, "Name") +
                  "<input name=\"name\" required maxlength=\"64\" "
                  "placeholder=\"prometheus\"></label>";
  for (const auto sc : kAllScopes) {
    const std::string n(scope_name(sc));
    s += "<label><input type=\"checkbox\" name=\"scope\" value=\"" + escape(n) + "\"" +
         (sc == TokenScope::kRead ? " checked" : "") + "> " + escape(n) + "</label>";
  }
  s += "<label>" + tr(l, "Expires in (days)") +
       "<input name=\"days\" type=\"number\" min=\"1\" max=\"" + std::to_string(kMaxTokenDays) +
       "\" value=\"90\" required></label><button type=\"submit\">" + tr(l, "Create token") +
       "</button><p class=\"muted\">" +
       tr(l,
          "Use it as <code>Authorization: Bearer &lt;token&gt;</code> on <code>/api/v1/</code> "
          "and <code>/metrics</code>. It is shown once; the panel keeps only its SHA-256.") +
       "</p></form>";
  return s;
}

// Why the form's token cannot be made, as a sentence (HTML) in `l`.
std::string fault_text(Lang l, TokenRequestFault fault) {
  switch (fault) {
    case TokenRequestFault::kName:
      return tr(l, "Not created: a token needs a name of 1 to 64 printable characters.");
    case TokenRequestFault::kScopes: return tr(l, "Not created: choose at least one scope.");
    case TokenRequestFault::kDays: break;
  }
  return escape(tr_count(l, "Not created: a token expires within 1 to {n} days.",
                         static_cast<std::uint64_t>(kMaxTokenDays)));
}

}  // namespace

std::optional<HttpResponse> PanelApp::bearer(Ctx& c, bool is_api) {
  const std::string_view auth = c.req.header("authorization");
  if (auth.empty() || !(is_api || c.path == "/metrics")) return std::nullopt;
  if (!auth.starts_with("Bearer ")) {
    return problem(401, "Unauthorized", "only Authorization: Bearer <API token> is accepted");
  }
  if (tokens_ == nullptr) {
    return problem(503, "Service Unavailable", "API tokens are off: " + tokens_off_);
  }
  const auto t = tokens_->verify(auth.substr(7), clock_.unix_now(), c.ip);
  if (!t) {
    spdlog::warn("panel: {} {} from {}: unknown, expired or revoked API token; refused",
                 c.req.method, c.path, c.ip);
    return problem(401, "Unauthorized", "unknown, expired or revoked API token");
  }
  const TokenScope need = scope_for(c.req, c.path);
  if (!t->allows(need)) {
    spdlog::warn("panel: {} {} from {}: token '{}' lacks the scope {}; refused", c.req.method,
                 c.path, c.ip, loggable(t->name), scope_name(need));
    if (c.req.method == "POST") audit(c, 403, "token:" + t->name);
    return problem(403, "Forbidden", "the token lacks the scope " + std::string(scope_name(need)));
  }
  c.by_token = true;
  c.actor = "token:" + t->name;
  c.who = "token '" + loggable(t->name) + "'";
  if (c.path == "/metrics") return metrics(c);
  auto r = api(c);
  if (c.req.method == "POST") audit(c, r.status);
  return r;
}

HttpResponse PanelApp::metrics(Ctx&) {
  auto page = metrics::metrics_page(server_, {s_.metrics_per_user, s_.metrics_per_user_limit});
  if (!page.ok()) return plain(502, "Bad Gateway: the VPN server did not answer: " + page.error());
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = std::move(*page);
  return r;
}

std::optional<HttpResponse> PanelApp::tokens_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/tokens") return std::nullopt;
  std::string content = message_paragraph(pc.message);
  if (tokens_ == nullptr) {
    content += "<p class=\"err\">" +
               tr_html(c.lang, "API tokens are off: {why}",
                       {{"why", state_off_reason(c.lang, tokens_off_)}}) +
               "</p>";
  } else {
    content += tokens_table(pc, tokens_->list(), clock_.unix_now()) + new_token_form(pc);
  }
  HttpResponse r;
  r.body = render_page(frame(c, tr(c.lang, "API tokens"), NavItem::kTokens, pc.csrf), content);
  return r;
}

std::optional<HttpResponse> PanelApp::tokens_action(Ctx& c, const FormFields& form) {
  if (c.path != "/tokens/create" && c.path != "/tokens/revoke") return std::nullopt;
  if (tokens_ == nullptr) {
    return refused_page(c, 503,
                        tr_html(c.lang, "API tokens are off: {why}",
                                {{"why", state_off_reason(c.lang, tokens_off_)}}));
  }
  if (c.path == "/tokens/revoke") {
    const std::string id(form.get("id"));
    if (!tokens_->revoke(id)) return redirect(s_.base_path + "/tokens?done=failed");
    spdlog::info("panel: admin '{}' revoked API token {} from {}", c.admin, loggable(id), c.ip);
    return redirect(s_.base_path + "/tokens?done=token-revoked");
  }
  TokenScopes scopes = 0;
  for (const auto& [k, v] : form.all()) {
    if (k != "scope") continue;
    const auto sc = parse_scope(v);
    if (!sc) return refused_page(c, 400, unexpected_value(c.lang, "scope"));
    scopes |= static_cast<TokenScopes>(*sc);
  }
  const std::string name(form.get("name"));
  const auto days = static_cast<std::int64_t>(
      std::min<std::uint64_t>(parse_u64(form.get("days")).value_or(0), 100000));
  const PageContext pc = context(c, "");
  const Lang l = c.lang;
  // What is wrong with the form is said in the page's language; what the database says
  // (a full disk, say) only as it said it.
  std::string refusal;
  std::optional<NewToken> made;
  if (const auto fault = token_request_fault(name, scopes, days)) {
    refusal = fault_text(l, *fault);
  } else if (auto m = tokens_->create(name, scopes, days, clock_.unix_now(), crypto::system_rng());
             m.ok()) {
    made = std::move(*m);
  } else {
    refusal = tr_html(l, "Not created: {error}", {{"error", m.error()}});
  }
  HttpResponse r;
  std::string content;
  if (!refusal.empty()) {
    r.status = 422;
    content = "<p class=\"err\">" + refusal + "</p>" + new_token_form(pc);
  } else {
    spdlog::info("panel: admin '{}' created API token '{}' (id {}, scopes {}) from {}", c.admin,
                 loggable(name), made->info.id, scope_list(scopes), c.ip);
    content = "<p class=\"msg\">" +
              tr_html(l,
                      "Token {name} (id {id}, scopes {scopes}, expires {expires} UTC) created. "
                      "Copy it now: it is shown only once.",
                      {{"name", name},
                       {"id", made->info.id},
                       {"scopes", scope_list(scopes)},
                       {"expires", human_time_utc(made->info.expires_unix)}}) +
              "</p><textarea id=\"token\" readonly rows=\"2\">" + escape(made->token) +
              "</textarea><p><a href=\"" + escape(s_.base_path) + "/tokens\">" +
              tr(l, "Back to the tokens") + "</a></p>";
  }
  r.body = render_page(frame(c, tr(l, "API tokens"), NavItem::kTokens, pc.csrf), content);
  return r;
}

}  // namespace qeli::panel
