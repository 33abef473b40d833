// The webhooks page: the outbox's recent delivery attempts as the server reports them
// (control::GetWebhookLog) — when an event went out, to which status, why one failed and
// what waits for a retry. The JSON form is GET /api/v1/webhooks (panel_app.cc).
#include <string>

#include "panel/answers.h"
#include "panel/html.h"
#include "panel/pages.h"
#include "panel/panel_app.h"

namespace qeli::panel {

std::optional<HttpResponse> PanelApp::webhooks_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/webhooks") return std::nullopt;
  std::string error;
  control::GetWebhookLog req;
  req.limit = 200;
  const auto log = ask(server_, req, error);
  if (!log) return server_unavailable(s_.base_path, error, c.lang);
  const Lang l = c.lang;
  std::string content = message_paragraph(pc.message);
  if (!log->enabled) {
    content += "<p class=\"muted\">" +
               tr(l,
                  "Webhooks are off: set <code>[webhooks] enabled = true</code> and a "
                  "<code>url</code> in the server config (docs/OPERATIONS.md \"Webhooks\").") +
               "</p>";
  } else {
    content +=
        "<p>" +
        tr_count(l, "{n} event(s) waiting in the outbox for a delivery or a retry.", log->pending) +
        "</p>";
    if (log->deliveries.empty()) {
      content += "<p class=\"muted\">" + tr(l, "No delivery attempted yet.") + "</p>";
    } else {
      content +=
          "<table>" + th_row(l, {"Time (UTC)", "Event", "Id", "Result", "#HTTP status", "Detail"});
      for (const auto& d : log->deliveries) {
        content += "<tr>" + td(human_time_utc(d.at_ms / 1000)) + td(d.type) + td(d.id) +
                   td(d.result) + td_num(d.status == 0 ? "—" : std::to_string(d.status)) +
                   td(d.detail) + "</tr>";
      }
      content += "</table>";
    }
  }
  HttpResponse r;
  r.body = render_page(frame(c, tr(l, "Webhook deliveries"), NavItem::kWebhooks, pc.csrf), content);
  return r;
}

}  // namespace qeli::panel
