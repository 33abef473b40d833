// The audit log in the panel (panel/audit_log.h): what one POST becomes as a row — its
// target read from the form or the JSON body, never a secret — and the Audit page.
#include <nlohmann/json.hpp>

#include "panel/answers.h"
#include "panel/audit_log.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/pages.h"
#include "panel/panel_app.h"

namespace qeli::panel {
namespace {

// The fields that name what an action acts on (forms and the JSON API use the same
// names); passwords, credentials, config texts and CSRF tokens are never among them.
constexpr const char* kTargetFields[] = {"user", "name", "id", "ip", "role"};

std::string target_of(const HttpRequest& r, bool json_body) {
  std::string out;
  auto add = [&](const char* k, std::string_view v) {
    if (v.empty()) return;
    out += (out.empty() ? "" : " ") + std::string(k) + "=" + loggable(v);
  };
  if (json_body) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (!j.is_object()) return out;
    for (const char* k : kTargetFields) {
      if (auto it = j.find(k); it != j.end() && it->is_string()) add(k, it->get<std::string>());
    }
    return out;
  }
  const auto form = parse_form(r.body);
  if (!form) return out;
  for (const char* k : kTargetFields) add(k, form->get(k));
  return out;
}

}  // namespace

void PanelApp::audit(const Ctx& c, int status, std::string actor) {
  if (audit_ == nullptr) return;
  AuditEntry e;
  e.unix_secs = clock_.unix_now();
  e.ip = c.ip;
  if (actor.starts_with("login:")) {
    // A login names the user it tried; its body holds the password, so no target.
    e.action = "login";
    e.actor = actor.substr(6);
  } else {
    e.actor = actor.empty() ? c.actor : std::move(actor);
    e.action = c.path;
    e.target = target_of(c.req, c.path.starts_with("/api/"));
  }
  e.status = status;
  audit_->append(std::move(e));
}

std::optional<HttpResponse> PanelApp::audit_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/audit") return std::nullopt;
  const Lang l = c.lang;
  std::string content = message_paragraph(pc.message);
  if (audit_ == nullptr) {
    content += "<p class=\"err\">" +
               tr_html(l, "No audit log: {why}", {{"why", state_off_reason(l, tokens_off_)}}) +
               "</p>";
  } else {
    const auto rows = audit_->newest(500);
    if (rows.empty()) {
      content += "<p class=\"muted\">" + tr(l, "Nothing recorded yet.") + "</p>";
    } else {
      content += "<table>" + th_row(l, {"Time (UTC)", "Who", "From", "Action", "On", "#Result"});
      for (const auto& e : rows) {
        content += "<tr>" + td(human_time_utc(e.unix_secs)) + td(e.actor) + td(e.ip) +
                   td(e.action) + td(e.target) + td_num(std::to_string(e.status)) + "</tr>";
      }
      content += "</table>";
    }
  }
  HttpResponse r;
  r.body = render_page(frame(c, tr(l, "Audit log"), NavItem::kAudit, pc.csrf), content);
  return r;
}

}  // namespace qeli::panel
