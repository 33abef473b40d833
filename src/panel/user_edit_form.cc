#include "panel/user_edit_form.h"

#include <charconv>
#include <limits>

#include "config/values.h"
#include "panel/answers.h"
#include "panel/html.h"

namespace qeli::panel {
namespace {

// The shortest text that reads back as `v` ("12.5", "0").
std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, r.ptr};
}

std::string joined(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

// One text field; `hint` is the title (and placeholder) that says what empty means.
std::string field(Lang l, std::string_view label, std::string_view name, std::string_view value,
                  std::string_view hint, std::string_view type = "text") {
  const std::string h = escape(tr(l, hint));
  return "<label>" + escape(tr(l, label)) + "<input name=\"" + escape(name) + "\" type=\"" +
         escape(type) + "\" value=\"" + escape(value) + "\" placeholder=\"" + h + "\" title=\"" +
         h + "\"" + (type == "number" ? " step=\"any\" min=\"0\"" : "") + "></label>";
}

}  // namespace

UserEditForm edit_form_of(const control::UserInfo& u) {
  UserEditForm f;
  f.user = u.name;
  f.group = u.group;
  f.static_ip = u.static_ip;
  f.max_sessions = std::to_string(u.max_sessions);
  f.profiles = joined(u.profiles, ", ");
  f.routes = joined(u.routes, "\n");
  f.allowed_networks = joined(u.allowed_networks, ", ");
  f.bandwidth_limit_mbps = number_text(u.bandwidth_limit_mbps);
  f.data_limit_gb = number_text(u.data_limit_gb);
  if (u.expire_at) f.expire_at = std::to_string(*u.expire_at);
  f.enabled = u.enabled;
  return f;
}

UserEditForm edit_form_posted(const FormFields& form) {
  UserEditForm f;
  f.user = form.get("user");
  f.group = form.get("group");
  f.static_ip = form.get("static_ip");
  f.max_sessions = form.get("max_sessions");
  f.profiles = form.get("profiles");
  f.routes = form.get("routes");
  f.allowed_networks = form.get("allowed_networks");
  f.bandwidth_limit_mbps = form.get("bandwidth_limit_mbps");
  f.data_limit_gb = form.get("data_limit_gb");
  f.expire_at = form.get("expire_at");
  f.enabled = form.has("enabled");
  return f;
}

Result<control::EditUser, std::string> edit_request_of(const UserEditForm& f, Lang l) {
  control::EditUser e;
  e.username = f.user;
  e.group = std::string(config::trim(f.group));
  e.static_ip = std::string(config::trim(f.static_ip));
  e.profiles = config::split_list(f.profiles);
  e.allowed_networks = config::split_list(f.allowed_networks);
  // One route per line (CRLF from the browser's textarea); blank lines are nothing.
  std::vector<std::string> routes;
  std::string_view rest = f.routes;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const auto line = config::trim(rest.substr(0, nl));
    if (!line.empty()) routes.emplace_back(line);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  e.routes = std::move(routes);
  // Empty number fields are 0 (unlimited / never). A refusal names the field by the
  // label the form shows it under.
  const auto whole = [l](std::string_view label, std::string_view text,
                         std::uint64_t max) -> Result<std::uint64_t, std::string> {
    const auto t = config::trim(text);
    if (t.empty()) return std::uint64_t{0};
    const auto v = parse_u64(t);
    if (!v || *v > max) {
      return fail(tr_text(l, "{field}: not a whole number from 0 to {max}",
                          {{"field", tr(l, label)}, {"max", std::to_string(max)}}));
    }
    return *v;
  };
  const auto real = [l](std::string_view label,
                        std::string_view text) -> Result<double, std::string> {
    const auto t = config::trim(text);
    if (t.empty()) return 0.0;
    const auto v = config::parse_double(t);
    if (!v) return fail(tr_text(l, "{field}: not a number", {{"field", tr(l, label)}}));
    return *v;
  };
  const auto max_sessions =
      whole("Max sessions", f.max_sessions, std::numeric_limits<std::uint32_t>::max());
  if (!max_sessions.ok()) return fail(max_sessions.error());
  e.max_sessions = static_cast<std::uint32_t>(*max_sessions);
  const auto expire =
      whole("Expires at (unix seconds)", f.expire_at, std::numeric_limits<std::uint64_t>::max());
  if (!expire.ok()) return fail(expire.error());
  e.expire_at = *expire;
  const auto bw = real("Bandwidth limit (Mbit/s)", f.bandwidth_limit_mbps);
  if (!bw.ok()) return fail(bw.error());
  e.bandwidth_limit_mbps = *bw;
  const auto quota = real("Data limit (GB)", f.data_limit_gb);
  if (!quota.ok()) return fail(quota.error());
  e.data_limit_gb = *quota;
  e.enabled = f.enabled;
  return e;
}

std::string user_edit_content(const PageContext& c, const UserEditForm& f) {
  const Lang l = c.lang;
  std::string s;
  if (!f.error.empty()) {
    s += "<p class=\"err\">" + tr_html(l, "Not saved: {error}", {{"error", f.error}}) + "</p>";
  }
  std::string expires = tr(l, "never");
  if (const auto at = parse_u64(f.expire_at);
      at && *at != 0 && *at <= std::uint64_t{0xffffffffff}) {
    expires = human_time_utc(static_cast<std::int64_t>(*at)) + " UTC";
  }
  s += "<form class=\"edit\" method=\"post\" action=\"" + escape(c.base) +
       "/users/edit\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape(c.csrf) +
       "\"><input type=\"hidden\" name=\"user\" value=\"" + escape(f.user) + "\">" +
       field(l, "Group", "group", f.group, "empty = no group") +
       field(l, "Profiles", "profiles", f.profiles, "comma-separated; empty = every profile") +
       field(l, "Static IP", "static_ip", f.static_ip, "empty = from the pool") +
       field(l, "Max sessions", "max_sessions", f.max_sessions, "0 = the group's / unlimited",
             "number") +
       field(l, "Bandwidth limit (Mbit/s)", "bandwidth_limit_mbps", f.bandwidth_limit_mbps,
             "0 = unlimited", "number") +
       field(l, "Data limit (GB)", "data_limit_gb", f.data_limit_gb, "0 = unlimited", "number") +
       field(l, "Expires at (unix seconds)", "expire_at", f.expire_at, "empty or 0 = never",
             "number") +
       "<p class=\"muted\">" + tr_html(l, "Expires: {when}", {{"when", expires}}) + "</p>" +
       field(l, "Allowed networks", "allowed_networks", f.allowed_networks,
             "comma-separated CIDRs; empty = any destination") +
       "<label>" + tr(l, "Routes") + "<textarea name=\"routes\" rows=\"4\" placeholder=\"" +
       escape(tr(l,
                 "one per line: a.b.c.d/n [gateway=a.b.c.d] [metric=n]; empty = the profile's "
                 "routes")) +
       "\">" + escape(f.routes) + "</textarea></label>" +
       "<label><input type=\"checkbox\" name=\"enabled\" value=\"1\"" +
       (f.enabled ? " checked" : "") + "> " +
       tr(l, "Enabled (the config's switch; Disable on the users page is the live one)") +
       "</label><button type=\"submit\">" + tr(l, "Save") + "</button></form><p class=\"muted\">" +
       tr(l,
          "The server checks the change as its start-up would and refuses what start-up would "
          "refuse; then it reloads.") +
       " <a href=\"" + escape(c.base) + "/users/view?name=" + escape(percent_encode(f.user)) +
       "\">" + tr_html(l, "Back to {user}", {{"user", f.user}}) + "</a></p>";
  return s;
}

}  // namespace qeli::panel
