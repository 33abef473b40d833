// The Logs page: the newest lines of the server's log (control::GetLogs: the server's
// in-memory ring, sys/log_memory.h) and of this panel's own, merged by time, newest first,
// filtered by level. The panel cannot read the journal or the server's log file (it runs
// without privileges); the ring is what both processes keep for it. The JSON form is
// GET /api/v1/logs (the server's lines; panel_app.cc).
#include <algorithm>
#include <string>

#include "panel/answers.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/i18n.h"
#include "panel/pages.h"
#include "panel/panel_app.h"
#include "sys/log_memory.h"

namespace qeli::panel {
namespace {

inline constexpr std::uint32_t kPageLines = 500;  // the page's text says 500
constexpr const char* kLevels[] = {"error", "warn", "info", "debug"};

struct Shown {
  std::int64_t unix_ms;
  std::uint64_t seq;
  const char* source;
  std::string level, text;
};

std::string time_of(std::int64_t unix_ms) {
  char ms[8];
  std::snprintf(ms, sizeof ms, ".%03d", static_cast<int>(unix_ms % 1000));
  return human_time_utc(unix_ms / 1000) + ms;
}

}  // namespace

std::optional<HttpResponse> PanelApp::logs_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/logs") return std::nullopt;
  const auto query = parse_form(c.req.query).value_or(FormFields{});
  std::string level(query.get("level"));
  spdlog::level::level_enum min{};
  if (level.empty() || !sys::parse_spdlog_level(level, min)) {
    level = "info";
    min = spdlog::level::info;
  }
  std::string error;
  const auto server = ask(server_, control::GetLogs{0, kPageLines, level}, error);
  if (!server) return server_unavailable(s_.base_path, error, c.lang);
  const Lang lang = c.lang;
  std::vector<Shown> lines;
  for (const auto& l : server->lines) {
    lines.push_back({l.unix_ms, l.seq, "server", l.level, l.text});
  }
  for (auto& l : sys::log_memory().since(0, kPageLines, min)) {
    lines.push_back({l.unix_ms, l.seq, "panel", std::move(l.level), std::move(l.text)});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Shown& a, const Shown& b) {
    return a.unix_ms != b.unix_ms ? a.unix_ms > b.unix_ms : a.seq > b.seq;
  });
  if (lines.size() > kPageLines) lines.resize(kPageLines);

  std::string content = "<p>" + tr(lang, "Lowest level:");
  for (const char* l : kLevels) {
    const bool on = level == l || (level == "warning" && std::string_view(l) == "warn");
    content += on ? std::string(" <b>") + l + "</b>"
                  : " <a href=\"" + escape(s_.base_path) + "/logs?level=" + l + "\">" + l + "</a>";
  }
  content += " <span class=\"muted\">" +
             tr(lang,
                "(and above; the newest 500 lines the server and the panel keep in memory — the "
                "full log is in the journal or the [logging] file)") +
             "</span></p>";
  if (lines.empty()) {
    content += "<p class=\"muted\">" + tr(lang, "No lines at this level.") + "</p>";
  } else {
    content +=
        "<table class=\"logs\">" + th_row(lang, {"Time (UTC)", "From", "Log level", "Message"});
    for (const auto& l : lines) {
      content += "<tr class=\"lvl-" + escape(l.level) + "\">" + td(time_of(l.unix_ms)) +
                 td(l.source) + td(l.level) + td(l.text) + "</tr>";
    }
    content += "</table>";
  }
  HttpResponse r;
  auto f = frame(c, tr(lang, "Logs"), NavItem::kLogs, pc.csrf);
  f.refresh_secs = 15;
  r.body = render_page(f, content);
  return r;
}

}  // namespace qeli::panel
