// Users and devices in the panel: the users list and one user's page, and the actions
// and API calls that add, edit and remove users and issue and revoke device links. Every
// change is the server's (control API add-user, edit-user, remove-user, add-device,
// revoke-device): the panel writes no file. A new device's credential is in the one answer to its
// POST (never a redirect, never a URL, never a log line).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "control/api_json.h"
#include "panel/answers.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/pages.h"
#include "panel/panel_app.h"
#include "panel/user_edit_form.h"
#include "panel/user_pages.h"

namespace qeli::panel {
namespace {

std::vector<std::string> profile_names(const control::StatsSnapshot& stats) {
  std::vector<std::string> out;
  for (const auto& p : stats.profiles) out.push_back(p.profile);
  return out;
}

// "a, b,c" → {"a","b","c"}; empty parts dropped.
std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

std::string user_page_path(const std::string& name) {
  return "/users/view?name=" + percent_encode(name);
}

// The members POST /api/v1/users/edit takes: a misspelt limit is refused, never ignored
// (an edit that silently changes nothing reads as done).
constexpr std::array<std::string_view, 11> kEditMembers = {
    "user",          "group",     "static_ip",        "max_sessions",
    "profiles",      "routes",    "allowed_networks", "bandwidth_limit_mbps",
    "data_limit_gb", "expire_at", "enabled"};

}  // namespace

HttpResponse PanelApp::user_edit_page(Ctx& c, const UserEditForm& form, int status) {
  const PageContext pc = context(c, "");
  HttpResponse r;
  r.status = status;
  r.body = render_page(
      frame(c, tr_text(c.lang, "Edit {user}", {{"user", form.user}}), NavItem::kUsers, pc.csrf),
      user_edit_content(pc, form));
  return r;
}

std::optional<HttpResponse> PanelApp::users_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/users" && c.path != "/users/view" && c.path != "/users/edit") {
    return std::nullopt;
  }
  if (c.path == "/users/edit") {
    std::string error;
    auto users = ask(server_, control::ListUsers{}, error);
    if (!users) return server_unavailable(s_.base_path, error, c.lang);
    const auto query = parse_form(c.req.query).value_or(FormFields{});
    for (const auto& u : users->users) {
      if (u.name == query.get("user")) return user_edit_page(c, edit_form_of(u), 200);
    }
    return refused_page(c, 404, tr(c.lang, "No such user."));
  }
  std::string error;
  auto users = ask(server_, control::ListUsers{}, error);
  auto usage = users ? ask(server_, control::GetUsage{}, error) : std::nullopt;
  auto stats = usage ? ask(server_, control::GetStats{}, error) : std::nullopt;
  if (!stats) return server_unavailable(s_.base_path, error, c.lang);
  PageFrame frame = this->frame(c, tr(c.lang, "Users"), NavItem::kUsers, pc.csrf);
  HttpResponse r;
  if (c.path == "/users") {
    r.body = render_page(
        frame, users_content(pc, *users, *usage) + new_user_form(pc, profile_names(*stats)));
    return r;
  }
  const auto query = parse_form(c.req.query).value_or(FormFields{});
  const std::string_view name = query.get("name");
  const control::UserInfo* user = nullptr;
  for (const auto& u : users->users) {
    if (u.name == name) user = &u;
  }
  if (user == nullptr) return refused_page(c, 404, tr(c.lang, "No such user."));
  const control::UserUsage* use = nullptr;
  for (const auto& u : usage->users) {
    if (u.username == name) use = &u;
  }
  frame.title = tr_text(c.lang, "User {user}", {{"user", user->name}});
  r.body = render_page(frame, user_content(pc, *user, use, profile_names(*stats), s_.public_host,
                                           day_chart(c.lang, &user->name)));
  return r;
}

std::optional<HttpResponse> PanelApp::users_action(Ctx& c, const FormFields& form) {
  const std::string user(form.get("user"));
  std::string error;
  auto failed = [&](const std::string& page) {
    spdlog::warn("panel: {} by '{}' from {} failed: {}", c.path, c.admin, c.ip, error);
    return redirect(s_.base_path + page + (page.find('?') == std::string::npos ? "?" : "&") +
                    "done=failed");
  };
  if (c.path == "/users/add") {
    control::AddUser add;
    add.username = std::string(form.get("name"));
    add.profiles = split_list(form.get("profiles"));
    add.max_sessions = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(parse_u64(form.get("max_sessions")).value_or(0), 1'000'000));
    add.actor = c.actor;
    auto r = ask(server_, add, error);
    if (!r) return failed("/users");
    spdlog::info("panel: admin '{}' added user '{}' from {}", c.admin, loggable(add.username),
                 c.ip);
    return redirect(s_.base_path + user_page_path(add.username) + "&done=user-added");
  }
  if (c.path == "/users/edit") {
    // A refusal (the form's numbers, or the server's judgement) shows the form again with
    // what the admin typed and the reason above it.
    UserEditForm posted = edit_form_posted(form);
    auto edit = edit_request_of(posted, c.lang);
    if (!edit.ok()) {
      posted.error = edit.error();
      return user_edit_page(c, posted, 422);
    }
    edit->actor = c.actor;
    control::ErrorCode code = control::ErrorCode::kInternal;
    auto r = ask(server_, *edit, error, &code);
    if (!r) {
      spdlog::warn("panel: {} by {} from {} refused: {}", c.path, c.who, c.ip, error);
      posted.error = error;
      return user_edit_page(c, posted, http_status_of(code));
    }
    spdlog::info("panel: {} edited user '{}' from {}", c.who, loggable(user), c.ip);
    return redirect(s_.base_path + user_page_path(user) +
                    "&done=user-edited&n=" + std::to_string(r->sessions_ended));
  }
  if (c.path == "/users/remove") {
    auto r = ask(server_, control::RemoveUser{user, c.actor}, error);
    if (!r) return failed(user_page_path(user));
    spdlog::info("panel: admin '{}' removed user '{}' from {}", c.admin, loggable(user), c.ip);
    return redirect(s_.base_path +
                    "/users?done=user-removed&n=" + std::to_string(r->sessions_ended));
  }
  if (c.path == "/devices/add") {
    control::AddDevice add{user, std::string(form.get("name")), std::string(form.get("host")),
                           std::string(form.get("profile")), c.actor};
    auto r = ask(server_, add, error);
    if (!r) return failed(user_page_path(user));
    spdlog::info("panel: admin '{}' added device '{}' (id {}) of '{}' from {}", c.admin,
                 loggable(r->name), r->id, loggable(user), c.ip);
    const PageContext pc = context(c, "");
    HttpResponse page;
    page.body = render_page(frame(c, tr(c.lang, "Device link"), NavItem::kUsers, pc.csrf),
                            device_issued_content(pc, *r));
    return page;
  }
  if (c.path == "/devices/revoke") {
    const std::string id(form.get("id"));
    auto r = ask(server_, control::RevokeDevice{user, id, c.actor}, error);
    if (!r) return failed(user_page_path(user));
    spdlog::info("panel: admin '{}' revoked device {} of '{}' from {}", c.admin, loggable(id),
                 loggable(user), c.ip);
    return redirect(s_.base_path + user_page_path(user) +
                    "&done=revoked&n=" + std::to_string(r->sessions_ended));
  }
  return std::nullopt;
}

std::optional<HttpResponse> PanelApp::users_api(Ctx& c, const nlohmann::json& body,
                                                const std::string& p) {
  auto str = [&](const char* k) {
    return body.contains(k) && body[k].is_string() ? body[k].get<std::string>() : std::string();
  };
  std::string error;
  control::ErrorCode code = control::ErrorCode::kInternal;
  auto answer = [&](auto&& opt) -> HttpResponse {
    if (!opt) return refusal(code, error);
    return json_answer(control::encode_reply(control::Response{std::move(*opt)}));
  };
  const std::string actor = c.actor;
  if (p == "/users") {
    control::AddUser add;
    add.username = str("user");
    add.actor = actor;
    if (body.contains("profiles")) {
      if (!body["profiles"].is_array()) return problem(400, "Bad Request", "profiles");
      for (const auto& x : body["profiles"]) {
        if (!x.is_string()) return problem(400, "Bad Request", "profiles");
        add.profiles.push_back(x.get<std::string>());
      }
    }
    if (body.contains("max_sessions")) {
      if (!body["max_sessions"].is_number_unsigned() ||
          body["max_sessions"].get<std::uint64_t>() > 1'000'000)
        return problem(400, "Bad Request", "max_sessions");
      add.max_sessions = body["max_sessions"].get<std::uint32_t>();
    }
    auto r = ask(server_, add, error, &code);
    if (r) {
      spdlog::info("panel: {} added user '{}' from {} (API)", c.who, loggable(add.username), c.ip);
    }
    return answer(std::move(r));
  }
  if (p == "/users/edit") {
    // The control API's own codec reads the fields (one set of type checks and words).
    if (!body.contains("user") || !body["user"].is_string()) {
      return problem(400, "Bad Request", "\"user\" must be a string");
    }
    nlohmann::json req = nlohmann::json::object();
    for (const auto& [k, v] : body.items()) {
      if (std::find(kEditMembers.begin(), kEditMembers.end(), k) == kEditMembers.end()) {
        return problem(400, "Bad Request", "unknown member \"" + loggable(k) + "\"");
      }
      req[k == "user" ? "username" : k] = v;
    }
    req["cmd"] = std::string(control::EditUser::kName);
    req["actor"] = actor;
    auto decoded = control::decode_request(req);
    if (!decoded.ok()) return problem(400, "Bad Request", decoded.error().message);
    const auto& edit = std::get<control::EditUser>(*decoded);
    auto r = ask(server_, edit, error, &code);
    if (r) {
      spdlog::info("panel: {} edited user '{}' from {} (API)", c.who, loggable(edit.username),
                   c.ip);
    }
    return answer(std::move(r));
  }
  if (p == "/users/remove") {
    auto r = ask(server_, control::RemoveUser{str("user"), actor}, error, &code);
    if (r) {
      spdlog::info("panel: {} removed user '{}' from {} (API)", c.who, loggable(str("user")), c.ip);
    }
    return answer(std::move(r));
  }
  if (p == "/devices") {
    control::AddDevice add{str("user"), str("name"), str("host"), str("profile"), actor};
    auto r = ask(server_, add, error, &code);
    if (r) {
      spdlog::info("panel: {} added device '{}' (id {}) of '{}' from {} (API)", c.who,
                   loggable(r->name), r->id, loggable(add.username), c.ip);
    }
    return answer(std::move(r));
  }
  if (p == "/devices/revoke") {
    auto r = ask(server_, control::RevokeDevice{str("user"), str("id"), actor}, error, &code);
    if (r) {
      spdlog::info("panel: {} revoked device {} of '{}' from {} (API)", c.who, loggable(str("id")),
                   loggable(str("user")), c.ip);
    }
    return answer(std::move(r));
  }
  return std::nullopt;
}

}  // namespace qeli::panel
