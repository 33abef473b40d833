#include "panel/user_pages.h"

#include <algorithm>
#include <span>

#include "base/human_units.h"
#include "crypto/base64.h"
#include "panel/form.h"
#include "panel/html.h"
#include "qr/qr_code.h"

namespace qeli::panel {
namespace {

std::string user_url(const PageContext& c, const std::string& name) {
  return c.base + "/users/view?name=" + percent_encode(name);
}

std::string hidden(std::string_view name, std::string_view value) {
  return "<input type=\"hidden\" name=\"" + escape(name) + "\" value=\"" + escape(value) + "\">";
}

std::string join(const std::vector<std::string>& v, std::string_view none) {
  if (v.empty()) return std::string(none);
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::string new_user_form(const PageContext& c, const std::vector<std::string>& profiles) {
  const Lang l = c.lang;
  return "<h2>" + tr(l, "New user") + "</h2><form class=\"add\" method=\"post\" action=\"" +
         escape(c.base) + "/users/add\">" + hidden("csrf", c.csrf) + "<label>" + tr(l, "Name") +
         "<input name=\"name\" required maxlength=\"64\" "
         "pattern=\"[A-Za-z0-9@._\\-]{1,64}\" autocomplete=\"off\"></label><label>" +
         tr(l, "Profiles") + "<input name=\"profiles\" placeholder=\"" +
         escape(join(profiles, "")) + "\" title=\"" +
         tr(l, "comma-separated; empty = every profile") + "\"></label><label>" +
         tr(l, "Max sessions") +
         "<input name=\"max_sessions\" type=\"number\" min=\"0\" max=\"1000000\" "
         "value=\"0\"></label><button type=\"submit\">" +
         tr(l, "Add user") + "</button><p class=\"muted\">" +
         tr(l,
            "The user gets no password: each device gets a link of its own (revoked alone), on "
            "the user's page.") +
         "</p></form>";
}

std::string user_content(const PageContext& c, const control::UserInfo& u,
                         const control::UserUsage* usage, const std::vector<std::string>& profiles,
                         const std::string& default_host, const std::string& traffic_chart) {
  const Lang l = c.lang;
  const auto prop = [l](std::string_view label, std::string_view value) {
    return "<dt>" + escape(tr(l, label)) + "</dt><dd>" + escape(value) + "</dd>";
  };
  std::string s = message_paragraph(c.message);
  std::string notes;
  for (const auto& [k, v] : u.metadata) notes += (notes.empty() ? "" : "; ") + k + "=" + v;
  s += "<dl class=\"props\">" + prop("State", tr(l, user_state(u))) +
       prop("Live sessions", std::to_string(u.sessions)) + prop("Group", u.group) +
       prop("Profiles", join(u.profiles, tr(l, "all"))) + prop("Static IP", u.static_ip) +
       prop("Max sessions", u.max_sessions == 0 ? tr(l, "group default / unlimited")
                                                : std::to_string(u.max_sessions)) +
       prop("Routes", join(u.routes, tr(l, "none"))) +
       prop("Allowed networks", join(u.allowed_networks, tr(l, "any"))) +
       prop("Expires (UTC)", u.expire_at ? human_time_utc(static_cast<std::int64_t>(*u.expire_at))
                                         : tr(l, "never")) +
       prop("Received", usage ? human_bytes(static_cast<double>(usage->up_bytes)) : "0 B") +
       prop("Sent", usage ? human_bytes(static_cast<double>(usage->down_bytes)) : "0 B") +
       prop("Notes", notes) + prop("Defined in", u.source_file) + "</dl>";

  s += "<p><a href=\"" + escape(c.base) + "/users/edit?user=" + escape(percent_encode(u.name)) +
       "\">" + tr(l, "Edit limits") + "</a> <span class=\"muted\">" +
       tr(l,
          "(group, profiles, static IP, sessions, bandwidth, quota, expiry, routes, allowed "
          "networks)") +
       "</span></p>" + traffic_chart;
  s += "<h2>" + tr(l, "Devices") + "</h2>";
  if (u.devices.empty()) {
    s += "<p class=\"muted\">" + tr(l, "No devices: add one below to get its link.") + "</p>";
  } else {
    s += "<table>" + th_row(l, {"Device", "Id", ""});
    for (const auto& d : u.devices) {
      s += "<tr>" + td(d.name) + td(d.id) + "<td>" +
           post_button(c.base, "/devices/revoke", c.csrf, tr(l, "Revoke"),
                       {{"user", u.name}, {"id", d.id}}, true) +
           "</td></tr>";
    }
    s += "</table>";
  }
  // The profiles this user may use (empty list = every profile).
  std::vector<std::string> usable;
  for (const auto& p : profiles) {
    if (u.profiles.empty() ||
        std::find(u.profiles.begin(), u.profiles.end(), p) != u.profiles.end())
      usable.push_back(p);
  }
  s += "<h2>" + tr(l, "Add a device") + "</h2><form class=\"add\" method=\"post\" action=\"" +
       escape(c.base) + "/devices/add\">" + hidden("csrf", c.csrf) + hidden("user", u.name) +
       "<label>" + tr(l, "Device name") +
       "<input name=\"name\" required maxlength=\"64\" pattern=\"[A-Za-z0-9@._\\-]{1,64}\" "
       "placeholder=\"phone\" autocomplete=\"off\"></label><label>" +
       tr(l, "Profile") + "<select name=\"profile\">";
  for (const auto& p : usable) s += "<option>" + escape(p) + "</option>";
  s += "</select></label><label>" + tr(l, "Server address") +
       "<input name=\"host\" required value=\"" + escape(default_host) +
       "\" placeholder=\"vpn.example.com[:port]\" title=\"" + tr(l, "the address clients dial") +
       "\"></label><button type=\"submit\">" + tr(l, "Add device and show its link") +
       "</button></form>";
  s += "<h2>" + tr(l, "Remove") + "</h2><p>" +
       post_button(c.base, "/users/remove", c.csrf, tr_text(l, "Remove {user}", {{"user", u.name}}),
                   {{"user", u.name}}, true) +
       " <span class=\"muted\">" +
       tr(l,
          "Deletes the user from the users file; every session and device link of theirs "
          "ends.") +
       "</span></p>";
  return s;
}

std::string device_issued_content(const PageContext& c, const control::DeviceIssued& d) {
  const Lang l = c.lang;
  std::string s = "<p class=\"msg\">" +
                  tr_html(l,
                          "Device {device} (id {id}) of {user} added. Its link carries the "
                          "device's own credential and is shown only now (the server keeps just "
                          "a hash): scan the QR code with the qeli app, or copy the link. "
                          "Revoking the device ends only this link.",
                          {{"device", d.name}, {"id", d.id}, {"user", d.username}}) +
                  "</p>";
  if (d.link.empty()) {
    s += "<p>" + tr(l, "Credential:") + " <code>" + escape(d.credential) + "</code></p>";
  } else {
    if (const auto m = qr::encode(d.link)) {
      const std::string svg = qr::to_svg(*m, 6);
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(svg.data());
      s += "<img class=\"qr\" id=\"device-qr\" alt=\"" + tr(l, "QR code of the link") +
           "\" src=\"data:image/svg+xml;base64," +
           crypto::base64_encode(std::span(bytes, svg.size())) + "\">";
    } else {
      s += "<p class=\"err\">" + tr(l, "The link is too long for a QR code; copy it instead.") +
           "</p>";
    }
    s += "<p>" + tr_html(l, "Link for profile {profile}:", {{"profile", d.profile}}) +
         "</p><textarea id=\"device-link\" readonly rows=\"4\">" + escape(d.link) + "</textarea>";
  }
  return s + "<p><a href=\"" + escape(user_url(c, d.username)) + "\">" +
         tr_html(l, "Back to {user}", {{"user", d.username}}) + "</a></p>";
}

}  // namespace qeli::panel
