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

std::string prop(std::string_view label, std::string_view value) {
  return "<dt>" + escape(label) + "</dt><dd>" + escape(value) + "</dd>";
}

}  // namespace

std::string new_user_form(const PageContext& c, const std::vector<std::string>& profiles) {
  return "<h2>New user</h2><form class=\"add\" method=\"post\" action=\"" + escape(c.base) +
         "/users/add\">" + hidden("csrf", c.csrf) +
         "<label>Name<input name=\"name\" required maxlength=\"64\" "
         "pattern=\"[A-Za-z0-9@._\\-]{1,64}\" autocomplete=\"off\"></label>"
         "<label>Profiles<input name=\"profiles\" placeholder=\"" +
         escape(join(profiles, "")) +
         "\" title=\"comma-separated; empty = every profile\"></label>"
         "<label>Max sessions<input name=\"max_sessions\" type=\"number\" min=\"0\" "
         "max=\"1000000\" value=\"0\"></label><button type=\"submit\">Add user</button>"
         "<p class=\"muted\">The user gets no password: each device gets a link of its own "
         "(revoked alone), on the user's page.</p></form>";
}

std::string user_content(const PageContext& c, const control::UserInfo& u,
                         const control::UserUsage* usage, const std::vector<std::string>& profiles,
                         const std::string& default_host) {
  std::string s = message_paragraph(c.message);
  std::string notes;
  for (const auto& [k, v] : u.metadata) notes += (notes.empty() ? "" : "; ") + k + "=" + v;
  s += "<dl class=\"props\">" +
       prop("State", !u.enabled        ? "disabled (config)"
                     : u.disabled_live ? "disabled"
                                       : "enabled") +
       prop("Live sessions", std::to_string(u.sessions)) + prop("Group", u.group) +
       prop("Profiles", join(u.profiles, "all")) + prop("Static IP", u.static_ip) +
       prop("Max sessions",
            u.max_sessions == 0 ? "group default / unlimited" : std::to_string(u.max_sessions)) +
       prop("Routes", join(u.routes, "none")) +
       prop("Allowed networks", join(u.allowed_networks, "any")) +
       prop("Expires (UTC)",
            u.expire_at ? human_time_utc(static_cast<std::int64_t>(*u.expire_at)) : "never") +
       prop("Received", usage ? human_bytes(static_cast<double>(usage->up_bytes)) : "0 B") +
       prop("Sent", usage ? human_bytes(static_cast<double>(usage->down_bytes)) : "0 B") +
       prop("Notes", notes) + prop("Defined in", u.source_file) + "</dl>";

  s += "<p><a href=\"" + escape(c.base) + "/users/edit?user=" + escape(percent_encode(u.name)) +
       "\">Edit limits</a> <span class=\"muted\">(group, profiles, static IP, sessions, "
       "bandwidth, quota, expiry, routes, allowed networks)</span></p>";
  s += "<h2>Devices</h2>";
  if (u.devices.empty()) {
    s += "<p class=\"muted\">No devices: add one below to get its link.</p>";
  } else {
    s += "<table><tr><th>Device</th><th>Id</th><th></th></tr>";
    for (const auto& d : u.devices) {
      s += "<tr>" + td(d.name) + td(d.id) + "<td>" +
           post_button(c.base, "/devices/revoke", c.csrf, "Revoke",
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
  s += "<h2>Add a device</h2><form class=\"add\" method=\"post\" action=\"" + escape(c.base) +
       "/devices/add\">" + hidden("csrf", c.csrf) + hidden("user", u.name) +
       "<label>Device name<input name=\"name\" required maxlength=\"64\" "
       "pattern=\"[A-Za-z0-9@._\\-]{1,64}\" placeholder=\"phone\" autocomplete=\"off\"></label>"
       "<label>Profile<select name=\"profile\">";
  for (const auto& p : usable) s += "<option>" + escape(p) + "</option>";
  s += "</select></label><label>Server address<input name=\"host\" required value=\"" +
       escape(default_host) +
       "\" placeholder=\"vpn.example.com[:port]\" title=\"the address clients dial\"></label>"
       "<button type=\"submit\">Add device and show its link</button></form>";
  s += "<h2>Remove</h2><p>" +
       post_button(c.base, "/users/remove", c.csrf, "Remove " + u.name, {{"user", u.name}}, true) +
       " <span class=\"muted\">Deletes the user from the users file; every session and device "
       "link of theirs ends.</span></p>";
  return s;
}

std::string device_issued_content(const PageContext& c, const control::DeviceIssued& d) {
  std::string s = "<p class=\"msg\">Device " + escape(d.name) + " (id " + escape(d.id) + ") of " +
                  escape(d.username) +
                  " added. Its link carries the device's own credential and is shown only now "
                  "(the server keeps just a hash): scan the QR code with the qeli app, or copy "
                  "the link. Revoking the device ends only this link.</p>";
  if (d.link.empty()) {
    s += "<p>Credential: <code>" + escape(d.credential) + "</code></p>";
  } else {
    if (const auto m = qr::encode(d.link)) {
      const std::string svg = qr::to_svg(*m, 6);
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(svg.data());
      s += "<img class=\"qr\" id=\"device-qr\" alt=\"QR code of the link\" src=\"data:image/"
           "svg+xml;base64," +
           crypto::base64_encode(std::span(bytes, svg.size())) + "\">";
    } else {
      s += "<p class=\"err\">The link is too long for a QR code; copy it instead.</p>";
    }
    s += "<p>Link for profile " + escape(d.profile) +
         ":</p><textarea id=\"device-link\" readonly rows=\"4\">" + escape(d.link) + "</textarea>";
  }
  return s + "<p><a href=\"" + escape(user_url(c, d.username)) + "\">Back to " +
         escape(d.username) + "</a></p>";
}

}  // namespace qeli::panel
