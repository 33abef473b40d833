// The Admins page (owners: make an admin with a random password shown once, change its
// role, remove it) and every admin's own Account page (its role; its password, which only
// it can change — knowing the current one). The config's owner is listed but not
// editable here: its password is `[web] password_hash`, set with `qeli set-web-password`.
#include <spdlog/spdlog.h>

#include <array>

#include "crypto/argon2id.h"
#include "crypto/base64.h"
#include "crypto/random.h"
#include "panel/answers.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/pages.h"
#include "panel/panel_app.h"
#include "server/source_key.h"

namespace qeli::panel {
namespace {

inline constexpr std::size_t kMinPassword = 12;
inline constexpr std::size_t kMaxPassword = 256;

std::string role_select(AdminRole selected) {
  std::string s = "<select name=\"role\">";
  for (const auto r : kAllRoles) {
    const std::string n(role_name(r));
    s += "<option value=\"" + n + "\"" + (r == selected ? " selected" : "") + ">" + n + "</option>";
  }
  return s + "</select>";
}

std::string admins_table(const PageContext& c, const std::string& owner,
                         const std::vector<AdminAccount>& admins) {
  const Lang l = c.lang;
  std::string s = "<table>" +
                  th_row(l, {"Name", "Role", "Created (UTC)", "By", "Second factor", ""}) + "<tr>" +
                  td(owner) + td("owner") + td("") + td("server.conf ([web] username)") +
                  td("[web] totp_secret") + "<td class=\"muted\">" +
                  tr(l, "password: <code>qeli set-web-password</code>") + "</td></tr>";
  for (const auto& a : admins) {
    s += "<tr>" + td(a.name) + "<td><form method=\"post\" class=\"inline\" action=\"" +
         escape(c.base) + "/admins/role\"><input type=\"hidden\" name=\"csrf\" value=\"" +
         escape(c.csrf) + "\"><input type=\"hidden\" name=\"name\" value=\"" + escape(a.name) +
         "\">" + role_select(a.role) + "<button type=\"submit\">" + tr(l, "Set") +
         "</button></form></td>" + td(human_time_utc(a.created_unix)) + td(a.created_by) +
         td(a.totp_secret.empty() ? "—" : "TOTP") + "<td>" +
         (a.totp_secret.empty() ? std::string()
                                : post_button(c.base, "/admins/totp-reset", c.csrf,
                                              tr(l, "Remove second factor"), {{"name", a.name}})) +
         post_button(c.base, "/admins/logout", c.csrf, tr(l, "End its sessions"),
                     {{"name", a.name}}) +
         post_button(c.base, "/admins/remove", c.csrf, tr(l, "Remove"), {{"name", a.name}}, true) +
         "</td></tr>";
  }
  return s + "</table>";
}

std::string new_admin_form(const PageContext& c) {
  const Lang l = c.lang;
  return "<h2>" + tr(l, "New admin") + "</h2><form class=\"add\" method=\"post\" action=\"" +
         escape(c.base) + "/admins/create\"><input type=\"hidden\" name=\"csrf\" value=\"" +
         escape(c.csrf) + "\"><label>" + tr(l, "Name") +
         "<input name=\"name\" required maxlength=\"" + std::to_string(kMaxAdminName) +
         "\" pattern=\"[A-Za-z0-9._@\\-]+\"></label><label>" + tr(l, "Role") +
         role_select(AdminRole::kReadOnly) + "</label><button type=\"submit\">" +
         tr(l, "Create admin") + "</button><p class=\"muted\">" +
         tr(l,
            "owner: everything; admin: users, devices, sessions, lockouts; read-only: looks "
            "only. The password is generated and shown once; the admin changes it on its "
            "Account page.") +
         "</p></form>";
}

std::string password_form(const PageContext& c) {
  const Lang l = c.lang;
  return "<h2>" + tr(l, "Change your password") +
         "</h2><form class=\"add\" method=\"post\" action=\"" + escape(c.base) +
         "/account/password\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape(c.csrf) +
         "\"><label>" + tr(l, "Current password") +
         "<input type=\"password\" name=\"current\" required "
         "autocomplete=\"current-password\"></label><label>" +
         tr(l, "New password") + "<input type=\"password\" name=\"new\" required minlength=\"" +
         std::to_string(kMinPassword) + "\" maxlength=\"" + std::to_string(kMaxPassword) +
         "\" autocomplete=\"new-password\"></label><label>" + tr(l, "Again") +
         "<input type=\"password\" name=\"again\" required autocomplete=\"new-password\">"
         "</label><button type=\"submit\">" +
         tr(l, "Change") + "</button><p class=\"muted\">" +
         tr(l, "Every session of yours ends; log in again with the new password.") + "</p></form>";
}

std::string generated_password() {
  std::array<std::uint8_t, 18> raw{};
  crypto::system_rng().fill(raw);
  return crypto::base64url_encode(raw);  // 24 characters, 144 bits
}

}  // namespace

bool PanelApp::current_password_ok(const Ctx& c, const std::string& hash,
                                   const std::string& password) {
  // The login's lockout and counters: a stolen session cannot guess the password here
  // faster than at the login, nor fill the Argon2id queue for everyone else.
  const auto key = server::parse_source_key(c.ip).value_or(0);
  if (guard_.locked_out(key, c.admin, clock_.steady_now())) return false;
  if (guard_.verify_password(hash, password)) return true;
  (void)guard_.record_failure(key, c.admin, clock_.steady_now());
  return false;
}

std::optional<HttpResponse> PanelApp::admins_page(Ctx& c, const PageContext& pc) {
  if (c.path != "/admins" && c.path != "/account") return std::nullopt;
  HttpResponse r;
  if (c.path == "/account") {
    const Lang l = c.lang;
    std::string content = message_paragraph(pc.message) + "<p>" +
                          tr_html(l, "You are <b>{admin}</b>, role <b>{role}</b>.",
                                  {{"admin", c.admin}, {"role", role_name(c.role)}}) +
                          "</p>";
    const auto id = identity(c.admin);
    content += id && id->config_owner
                   ? "<p class=\"muted\">" +
                         tr(l,
                            "Your password is the server config's <code>[web] "
                            "password_hash</code>: change it on the server with <code>qeli "
                            "set-web-password</code>.") +
                         "</p>"
                   : password_form(pc);
    content += account_totp_content(c, pc);
    r.body = render_page(frame(c, tr(l, "Account"), NavItem::kAccount, pc.csrf), content);
    return r;
  }
  std::string content = message_paragraph(pc.message);
  if (admins_ == nullptr) {
    content += admins_table(pc, s_.username, {}) + "<p class=\"err\">" +
               tr_html(c.lang, "Further admins are off: {why}",
                       {{"why", state_off_reason(c.lang, admins_off_)}}) +
               "</p>";
  } else {
    content += admins_table(pc, s_.username, admins_->list()) + new_admin_form(pc);
  }
  r.body = render_page(frame(c, tr(c.lang, "Admins"), NavItem::kAdmins, pc.csrf), content);
  return r;
}

std::optional<HttpResponse> PanelApp::admins_action(Ctx& c, const FormFields& form) {
  if (auto done = account_totp_action(c, form)) return std::move(*done);
  if (!c.path.starts_with("/admins/") && c.path != "/account/password") return std::nullopt;
  const std::string name(form.get("name"));
  auto done = [&](const std::string& page, const std::string& what) {
    return redirect(s_.base_path + page + "?done=" + what);
  };
  if (c.path == "/account/password") {
    const auto id = identity(c.admin);
    if (!id || id->config_owner || admins_ == nullptr) {
      return refused_page(c, 409,
                          tr(c.lang,
                             "Your password is the server config's <code>[web] "
                             "password_hash</code>: change it on the server with <code>qeli "
                             "set-web-password</code>."));
    }
    const std::string current(form.get("current")), next(form.get("new"));
    if (!current_password_ok(c, id->password_hash, current)) {
      spdlog::warn("panel: {} from {}: wrong current password; not changed", c.who, c.ip);
      return done("/account", "password-wrong");
    }
    if (next.size() < kMinPassword || next.size() > kMaxPassword || next != form.get("again")) {
      return done("/account", "password-weak");
    }
    const auto hash = crypto::argon2id_hash(next);
    if (!hash || !admins_->set_password(c.admin, *hash)) return done("/account", "failed");
    spdlog::info("panel: {} changed its password from {}", c.who, c.ip);
    return redirect(s_.base_path + "/login");
  }
  if (admins_ == nullptr) {
    return refused_page(c, 503,
                        tr_html(c.lang, "Further admins are off: {why}",
                                {{"why", state_off_reason(c.lang, admins_off_)}}));
  }
  if (c.path == "/admins/totp-reset") {
    const auto a = admins_->find(name);
    if (!a || a->totp_secret.empty() || !admins_->set_totp(name, "")) {
      return done("/admins", "failed");
    }
    spdlog::info("panel: {} removed the second factor of admin '{}' from {}", c.who, loggable(name),
                 c.ip);
    return done("/admins", "admin-totp-reset");
  }
  if (c.path == "/admins/logout") {
    if (!admins_->end_sessions(name)) return done("/admins", "failed");
    spdlog::info("panel: {} ended the sessions of admin '{}' from {}", c.who, loggable(name), c.ip);
    return done("/admins", "admin-logged-out");
  }
  if (c.path == "/admins/remove") {
    if (!admins_->remove(name)) return done("/admins", "failed");
    spdlog::info("panel: {} removed admin '{}' from {}", c.who, loggable(name), c.ip);
    return done("/admins", "admin-removed");
  }
  const auto role = parse_role(form.get("role"));
  if (!role) return refused_page(c, 400, unexpected_value(c.lang, "role"));
  if (c.path == "/admins/role") {
    if (!admins_->set_role(name, *role)) return done("/admins", "failed");
    spdlog::info("panel: {} made admin '{}' {} from {}", c.who, loggable(name), role_name(*role),
                 c.ip);
    return done("/admins", "admin-role");
  }
  if (c.path != "/admins/create") return refused_page(c, 404, tr(c.lang, "No such page."));
  const PageContext pc = context(c, "");
  const Lang l = c.lang;
  HttpResponse r;
  std::string content;
  const std::string password = generated_password();
  // What is wrong with the form in the page's language (the config's owner is not in the
  // table: a row of its name would never be reached); the database's own words as they are.
  std::string refusal;
  if (!admin_name_valid(name)) {
    refusal = escape(tr_count(
        l, "Not created: an admin's name has 1 to {n} letters, digits or . _ @ -", kMaxAdminName));
  } else if (identity(name).has_value()) {
    refusal = tr_html(l, "Not created: an admin named {name} exists.", {{"name", name}});
  } else {
    const auto hash = crypto::argon2id_hash(password);
    auto made = hash ? admins_->create(name, *role, *hash, clock_.unix_now(), c.admin)
                     : Result<AdminAccount, std::string>(fail(std::string("out of memory")));
    if (!made.ok()) refusal = tr_html(l, "Not created: {error}", {{"error", made.error()}});
  }
  if (!refusal.empty()) {
    r.status = 422;
    content = "<p class=\"err\">" + refusal + "</p>" + new_admin_form(pc);
  } else {
    spdlog::info("panel: {} created admin '{}' ({}) from {}", c.who, loggable(name),
                 role_name(*role), c.ip);
    content = "<p class=\"msg\">" +
              tr_html(l, "Admin {name} ({role}) created. Its password is shown only once:",
                      {{"name", name}, {"role", role_name(*role)}}) +
              "</p><textarea id=\"password\" readonly rows=\"1\">" + escape(password) +
              "</textarea><p><a href=\"" + escape(s_.base_path) + "/admins\">" +
              tr(l, "Back to the admins") + "</a></p>";
  }
  r.body = render_page(frame(c, tr(l, "Admins"), NavItem::kAdmins, pc.csrf), content);
  return r;
}

}  // namespace qeli::panel
