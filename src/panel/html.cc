#include "panel/html.h"

#include "base/human_units.h"

namespace qeli::panel {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string td(std::string_view text) { return "<td>" + escape(text) + "</td>"; }
std::string td_num(std::string_view text) {
  return "<td class=\"num\">" + std::string(text) + "</td>";
}
std::string th_row(Lang lang, std::initializer_list<std::string_view> labels) {
  std::string s = "<tr>";
  for (std::string_view l : labels) {
    const bool num = l.starts_with('#');
    if (num) l.remove_prefix(1);
    s +=
        (num ? "<th class=\"num\">" : "<th>") + (l.empty() ? std::string() : tr(lang, l)) + "</th>";
  }
  return s + "</tr>";
}
std::string message_paragraph(std::string_view message) {
  return message.empty() ? std::string() : "<p class=\"msg\">" + escape(message) + "</p>";
}
std::string human_time_utc(std::int64_t unix_secs) { return human_time(unix_secs, true); }

namespace {

struct Nav {
  NavItem item;
  const char* path;
  const char* label;
};
constexpr Nav kNav[] = {{NavItem::kDashboard, "/", "Dashboard"},
                        {NavItem::kSessions, "/sessions", "Sessions"},
                        {NavItem::kUsers, "/users", "Users"},
                        {NavItem::kBlocked, "/blocked", "Lockouts"},
                        {NavItem::kEvents, "/events", "Events"},
                        {NavItem::kConfig, "/config", "Config"},
                        {NavItem::kWebhooks, "/webhooks", "Webhooks"},
                        {NavItem::kTokens, "/tokens", "API tokens"},
                        {NavItem::kLogs, "/logs", "Logs"},
                        {NavItem::kAdmins, "/admins", "Admins"},
                        {NavItem::kAudit, "/audit", "Audit"}};

}  // namespace

std::string post_button(const std::string& base, std::string_view action, std::string_view csrf,
                        std::string_view label,
                        std::initializer_list<std::pair<std::string_view, std::string_view>> fields,
                        bool danger) {
  std::string s = "<form method=\"post\" class=\"inline\" action=\"" + escape(base) +
                  escape(action) + "\"><input type=\"hidden\" name=\"csrf\" value=\"" +
                  escape(csrf) + "\">";
  for (const auto& [name, value] : fields) {
    s += "<input type=\"hidden\" name=\"" + escape(name) + "\" value=\"" + escape(value) + "\">";
  }
  s += std::string("<button type=\"submit\"") + (danger ? " class=\"danger\"" : "") + ">" +
       escape(label) + "</button></form>";
  return s;
}

namespace {

// The switch to the other language, in that language's own words. A logged-in page
// posts it (a state change like any other: CSRF token, panel_app.cc set_lang). The login
// page has no session and so no token: there it is a link, GET /login?lang=ru, which
// sets only the cookie — a forged link can change no more than the language of a page.
std::string lang_switch(const PageFrame& f) {
  const bool ru = f.lang == Lang::kRu;
  const std::string_view code = ru ? "en" : "ru";
  const std::string_view label = ru ? "English" : "Русский";
  if (f.admin.empty()) {
    return "<a href=\"" + escape(f.base) + "/login?lang=" + std::string(code) + "\" lang=\"" +
           std::string(code) + "\">" + std::string(label) + "</a>";
  }
  return post_button(f.base, "/lang", f.csrf, label, {{"lang", code}, {"to", f.here}});
}

}  // namespace

std::string render_page(const PageFrame& f, std::string_view content) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"" + std::string(lang_code(f.lang)) +
                  "\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  if (f.refresh_secs > 0) {
    s += "<meta http-equiv=\"refresh\" content=\"" + std::to_string(f.refresh_secs) + "\">";
  }
  s += "<title>" + escape(f.title) + " · qeli</title><link rel=\"stylesheet\" href=\"" +
       escape(f.base) +
       "/assets/panel.css\"><link rel=\"icon\" href=\"data:,\"></head><body><header><span "
       "class=\"brand\">qeli</span>";
  if (!f.admin.empty()) {
    s += "<nav>";
    for (const auto& n : kNav) {
      const std::string href =
          f.base + (std::string_view(n.path) == "/" && !f.base.empty() ? std::string()
                                                                       : std::string(n.path));
      s += "<a href=\"" + escape(href.empty() ? "/" : href) + "\"" +
           (n.item == f.active ? " class=\"active\"" : "") + ">" +
           std::string(tr(f.lang, n.label)) + "</a>";
    }
    s += "</nav><span class=\"who\"><a href=\"" + escape(f.base) + "/account\"" +
         (f.active == NavItem::kAccount ? " class=\"active\"" : "") + ">" + escape(f.admin) +
         "</a> " + post_button(f.base, "/logout", f.csrf, tr(f.lang, "Log out")) + " " +
         lang_switch(f) + "</span>";
  } else if (!f.here.empty()) {
    s += "<span class=\"who\">" + lang_switch(f) + "</span>";
  }
  s += "</header><main><h1>" + escape(f.title) + "</h1>";
  s += content;
  s += "</main></body></html>\n";
  return s;
}

std::string_view stylesheet() {
  return R"(body{font-family:system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#1d2330;color:#fff}
header a{color:#cfd6e4;text-decoration:none;margin-right:1em}header a.active{color:#fff;font-weight:600}
.brand{font-weight:700;letter-spacing:.05em}.who{margin-left:auto}
main{padding:1em 1.5em;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff;margin:.5em 0 1.5em}
th,td{text-align:left;padding:.35em .6em;border-bottom:1px solid #e3e6ec;font-size:.92em}
th{background:#eef0f4}.num{text-align:right;font-variant-numeric:tabular-nums}
form.inline{display:inline;margin:0}button{cursor:pointer;padding:.2em .7em}
button.danger{color:#fff;background:#b3261e;border:1px solid #8c1d18}
.card{display:inline-block;background:#fff;padding:.6em 1em;margin:0 .8em .8em 0;border:1px solid #e3e6ec}
.card b{display:block;font-size:1.4em}.msg{padding:.5em 1em;background:#fff4ce;border:1px solid #e6c84f}
svg.chart{display:block;width:100%;max-width:760px;height:auto}
table.logs td{font-family:ui-monospace,monospace;font-size:.85em;white-space:pre-wrap}
tr.lvl-error td{background:#fde7e9}tr.lvl-warning td{background:#fff4ce}
.err{padding:.5em 1em;background:#fde7e9;border:1px solid #d13438}
.login{max-width:22em;margin:4em auto;background:#fff;padding:1.5em;border:1px solid #e3e6ec}
.login input{width:100%;box-sizing:border-box;margin:.2em 0 .8em;padding:.4em}
.muted{color:#6b7385}
textarea{width:100%;box-sizing:border-box;font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#fff;border:1px solid #e3e6ec;padding:.8em;overflow:auto}
form.add{background:#fff;border:1px solid #e3e6ec;padding:.8em 1em;margin:.5em 0 1.5em}
form.add label{display:inline-block;margin:0 1em .4em 0}form.add input,form.add select{margin-left:.4em}
img.qr{display:block;background:#fff;padding:.5em;border:1px solid #e3e6ec;image-rendering:pixelated}
dl.props{display:grid;grid-template-columns:max-content auto;gap:.2em 1.2em}dl.props dd{margin:0}
)";
}

}  // namespace qeli::panel
