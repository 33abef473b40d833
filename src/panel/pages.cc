#include "panel/pages.h"

#include <cstdio>
#include <ctime>
#include <string_view>
#include <unordered_map>

#include "base/human_units.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/session_pages.h"
#include "panel/traffic_history.h"

namespace qeli::panel {
namespace {

std::string message_box(const PageContext& c) { return message_paragraph(c.message); }

std::string event_rows(Lang l, const control::EventList& events, std::size_t last_n) {
  if (events.events.empty()) return "<p class=\"muted\">" + tr(l, "No events yet.") + "</p>";
  std::string s = "<table>" + th_row(l, {"Time (UTC)", "Event", "User", "Device", "Profile",
                                         "Address", "Reason"});
  const std::size_t n = events.events.size();
  const std::size_t from = n > last_n ? n - last_n : 0;
  for (std::size_t i = n; i-- > from;) {  // newest first
    const auto& e = events.events[i];
    s += "<tr>" + td(human_time_utc(e.unix_ms / 1000)) + td(e.type) + td(e.username) +
         td(e.device) + td(e.profile) + td(e.ip) + td(e.reason) + "</tr>";
  }
  return s + "</table>";
}

}  // namespace

std::string_view user_state(const control::UserInfo& u) {
  return !u.enabled ? "disabled (config)" : u.disabled_live ? "disabled" : "enabled";
}

std::string login_content(Lang l, const std::string& base, const std::string& error, bool totp,
                          bool totp_required) {
  std::string s = "<form class=\"login\" method=\"post\" action=\"" + escape(base) + "/login\">";
  if (!error.empty()) s += "<p class=\"err\">" + escape(error) + "</p>";
  s += "<label>" + tr(l, "User name") +
       "<input name=\"username\" autocomplete=\"username\" required autofocus></label><label>" +
       tr(l, "Password") +
       "<input name=\"password\" type=\"password\" autocomplete=\"current-password\" "
       "required></label>";
  if (totp) {
    s += "<label>" + tr(l, "Code from your authenticator app") +
         "<input name=\"code\" inputmode=\"numeric\" pattern=\"[0-9]{6}\" maxlength=\"6\" "
         "autocomplete=\"one-time-code\"" +
         std::string(totp_required ? " required" : "") + "></label>";
  }
  s += "<button type=\"submit\">" + tr(l, "Log in") + "</button></form>";
  return s;
}

std::string dashboard_content(const PageContext& c, const control::StatsSnapshot& stats,
                              const control::SessionList& sessions,
                              const std::vector<std::optional<SessionRate>>& rates,
                              const control::EventList& events) {
  std::string s = message_box(c);
  std::uint64_t live = 0;
  for (const auto& p : stats.profiles) live += p.sessions;
  const TrafficTotals totals = totals_of(stats);
  const std::uint64_t rx = totals.up_bytes, tx = totals.down_bytes;
  const Lang l = c.lang;
  auto card = [l](std::string_view label, const std::string& value) {
    return "<div class=\"card\"><b>" + escape(value) + "</b>" + escape(tr(l, label)) + "</div>";
  };
  s += "<section>" + card("live sessions", std::to_string(live)) +
       card("users", std::to_string(stats.users)) +
       card("disabled users", std::to_string(stats.users_disabled)) +
       card("locked-out sources", std::to_string(stats.blocked_ips)) +
       card("received since start", human_bytes(static_cast<double>(rx))) +
       card("sent since start", human_bytes(static_cast<double>(tx))) +
       card("uptime", human_duration(stats.uptime_secs)) + card("version", stats.version) +
       "</section>";
  s += "<h2>" + tr(l, "Profiles") + "</h2><table>" +
       th_row(l, {"Profile", "Transport", "Mode", "#Port", "#Sessions", "TLS target",
                  "#UDP receive buffer", "#UDP kernel drops", "#UDP buffer grows"});
  for (const auto& p : stats.profiles) {
    s += "<tr>" + td(p.profile) + td(p.transport) + td(p.mode) + td_num(std::to_string(p.port)) +
         td_num(std::to_string(p.sessions)) + td(p.tls_target);
    // A UDP profile's worker sockets (control::UdpSocketFigures): drops that keep rising
    // while the buffer stays at net.core.rmem_max say the host's limit is too low
    // (OPERATIONS.md). TCP profiles have no such socket.
    if (const auto& u = p.udp_socket) {
      s += td_num(human_bytes(static_cast<double>(u->recv_buffer_bytes))) +
           td_num(std::to_string(u->kernel_drops)) + td_num(std::to_string(u->buffer_grows));
    } else {
      s += td_num("—") + td_num("—") + td_num("—");
    }
    s += "</tr>";
  }
  s += "</table><h2>" + tr(l, "Live sessions") + "</h2>" + session_table(c, sessions, rates);
  s += "<h2>" + tr(l, "Recent events") + "</h2>" + event_rows(l, events, 15);
  return s;
}

std::string host_content(Lang l, const sys::HostLoad& h) {
  auto card = [](const std::string& label, const std::string& value) {
    return "<div class=\"card\"><b>" + escape(value) + "</b>" + escape(label) + "</div>";
  };
  char buf[64];
  std::string cpu = "—";
  if (h.cpu_percent) {
    std::snprintf(buf, sizeof buf, "%.0f %%", *h.cpu_percent);
    cpu = buf;
  }
  std::string load = "—";
  if (h.load) {
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", h.load->one, h.load->five, h.load->fifteen);
    load = buf;
  }
  std::string mem = "—";
  if (h.memory) {
    const std::string used =
        human_bytes(static_cast<double>(h.memory->total_bytes - h.memory->available_bytes));
    const std::string total = human_bytes(static_cast<double>(h.memory->total_bytes));
    mem = tr_text(l, "{used} of {total}", {{"used", used}, {"total", total}});
  }
  return "<h2>" + tr(l, "Host") + "</h2><section>" +
         card(tr_count(l, "CPU busy ({n} CPUs, since the last view)", h.cpus), cpu) +
         card(tr(l, "load 1 / 5 / 15 min"), load) + card(tr(l, "memory in use"), mem) +
         "</section>";
}

std::string users_content(const PageContext& c, const control::UserList& users,
                          const control::UsageList& usage) {
  const Lang l = c.lang;
  std::string s = message_box(c);
  if (users.users.empty()) return s + "<p class=\"muted\">" + tr(l, "No users.") + "</p>";
  s += "<table>" + th_row(l, {"User", "Group", "State", "#Sessions", "Profiles", "Static IP",
                              "#Down", "#Up", "Quota", "Expires (UTC)", "Notes", ""});
  // By name once, not a scan per row (1000 users: a million comparisons otherwise).
  std::unordered_map<std::string_view, const control::UserUsage*> by_name;
  by_name.reserve(usage.users.size());
  for (const auto& x : usage.users) by_name[x.username] = &x;
  for (const auto& u : users.users) {
    const auto found = by_name.find(u.name);
    const control::UserUsage* use = found == by_name.end() ? nullptr : found->second;
    const bool off = !u.enabled || u.disabled_live;
    std::string profiles;
    for (const auto& p : u.profiles) profiles += (profiles.empty() ? "" : ", ") + p;
    std::string notes;
    for (const auto& [k, v] : u.metadata) notes += (notes.empty() ? "" : "; ") + k + "=" + v;
    s +=
        "<tr><td><a href=\"" + escape(c.base) +
        "/users/view?name=" + escape(percent_encode(u.name)) + "\">" + escape(u.name) +
        "</a></td>" + td(u.group) + td(tr(l, user_state(u))) + td_num(std::to_string(u.sessions)) +
        td(profiles.empty() ? tr(l, "all") : profiles) + td(u.static_ip) +
        td_num(use != nullptr ? human_bytes(static_cast<double>(use->down_bytes)) : "") +
        td_num(use != nullptr ? human_bytes(static_cast<double>(use->up_bytes)) : "") +
        td(use != nullptr && use->quota_bytes ? human_bytes(static_cast<double>(*use->quota_bytes))
                                              : tr(l, "none")) +
        td(u.expire_at ? human_time_utc(static_cast<std::int64_t>(*u.expire_at)) : tr(l, "never")) +
        td(notes) + "<td>";
    if (u.enabled) {
      s += off ? post_button(c.base, "/users/enable", c.csrf, tr(l, "Enable"), {{"user", u.name}})
               : post_button(c.base, "/users/disable", c.csrf, tr(l, "Disable"), {{"user", u.name}},
                             true);
    }
    if (u.sessions > 0) {
      s += " " + post_button(c.base, "/sessions/kick", c.csrf, tr(l, "Kick all"),
                             {{"user", u.name}}, true);
    }
    s += "</td></tr>";
  }
  return s + "</table>";
}

std::string blocked_content(const PageContext& c, const control::BlockedList& blocked) {
  const Lang l = c.lang;
  std::string s = message_box(c);
  if (blocked.blocked.empty()) {
    return s + "<p class=\"muted\">" + tr(l, "No lockouts in force.") + "</p>";
  }
  s += "<p>" +
       post_button(c.base, "/blocked/unblock-all", c.csrf, tr(l, "Lift every lockout"), {}, true) +
       "</p><table>" + th_row(l, {"Source", "User", "#Failures", "#Time left", ""});
  for (const auto& b : blocked.blocked) {
    s += "<tr>" + td(b.ip) + td(b.user.empty() ? tr(l, "(every user)") : b.user) +
         td_num(std::to_string(b.failures)) + td_num(human_duration(b.seconds_left)) + "<td>" +
         post_button(c.base, "/blocked/unblock", c.csrf, tr(l, "Unblock"), {{"ip", b.ip}}) +
         "</td></tr>";
  }
  return s + "</table>";
}

std::string events_content(const PageContext& c, const control::EventList& events) {
  return message_box(c) + event_rows(c.lang, events, 200);
}

namespace {

std::string findings_list(Lang l, const ConfigEditor& e) {
  if (!e.validated) return {};
  if (e.findings.empty()) {
    return "<p class=\"msg\">" + tr(l, "Valid: check-config finds nothing.") + "</p>";
  }
  std::size_t errors = 0;
  for (const auto& f : e.findings) errors += f.severity == "error" ? 1 : 0;
  std::string s =
      errors == 0
          ? "<p class=\"msg\">" +
                tr_count(l, "Valid, with {n} warning(s) below.", e.findings.size()) + "</p>"
          : "<p class=\"err\">" +
                tr_count(l, "{n} error(s): check-config refuses this file.", errors) + "</p>";
  s += "<table>" + th_row(l, {"Severity", "Line", "Section", "Key", "Message"});
  for (const auto& f : e.findings) {
    s += "<tr>" + td(f.severity) + td_num(std::to_string(f.line)) + td(f.section) + td(f.key) +
         td(f.message) + "</tr>";
  }
  return s + "</table>";
}

}  // namespace

// The editor's form is multipart/form-data: httplib 0.11 refuses urlencoded bodies above
// 8 KiB, and a config file is often larger (panel/http_listener.h re-encodes it).
std::string config_content(const PageContext& c, const ConfigEditor& e,
                           const control::ConfigHistory& history) {
  const Lang l = c.lang;
  std::string s = message_box(c);
  if (!e.error.empty()) s += "<p class=\"err\">" + escape(e.error) + "</p>";
  s += findings_list(l, e);
  s += "<p class=\"muted\">" +
       tr_html(l,
               "{path} — saved only if check-config accepts it and no hook or file path "
               "changes; the previous file goes to the history, then the server reloads.",
               {{"path", e.path}}) +
       "</p>";
  s += "<form method=\"post\" enctype=\"multipart/form-data\" action=\"" + escape(c.base) +
       "/config/save\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape(c.csrf) +
       "\"><input type=\"hidden\" name=\"base\" value=\"" + escape(e.base_sha256) +
       "\"><textarea name=\"text\" rows=\"30\" spellcheck=\"false\">\n" + escape(e.text) +
       "</textarea><p><button type=\"submit\" formaction=\"" + escape(c.base) +
       "/config/validate\">" + tr(l, "Validate") + "</button> <button type=\"submit\" " +
       "class=\"danger\">" + tr(l, "Save and reload") + "</button></p></form>";
  s += "<h2>" + tr(l, "History") + "</h2>";
  if (history.versions.empty()) {
    return s + "<p class=\"muted\">" + tr(l, "No saved versions yet.") + "</p>";
  }
  s += "<table>" + th_row(l, {"Version", "Saved (UTC)", "By", "#Size", ""});
  for (const auto& v : history.versions) {
    s += "<tr>" + td(v.id) + td(human_time_utc(v.unix_secs)) + td(v.actor) +
         td_num(human_bytes(static_cast<double>(v.size))) + "<td><a href=\"" + escape(c.base) +
         "/config/version?id=" + escape(percent_encode(v.id)) + "\">" + tr(l, "View") +
         "</a></td></tr>";
  }
  return s + "</table>";
}

std::string config_version_content(const PageContext& c, const control::ConfigText& version,
                                   const std::string& id, const std::string& current_sha256) {
  return message_box(c) + "<p>" +
         post_button(c.base, "/config/restore", c.csrf, tr(c.lang, "Restore this version"),
                     {{"id", id}, {"base", current_sha256}}, true) +
         " <a href=\"" + escape(c.base) + "/config\">" + tr(c.lang, "Back to the editor") +
         "</a></p><pre>\n" + escape(version.text) + "</pre>";
}

}  // namespace qeli::panel
