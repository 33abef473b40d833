#include "panel/admin_accounts.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>

namespace qeli::panel {
namespace {

bool under(std::string_view path, std::string_view prefix) {
  return path == prefix ||
         (path.starts_with(prefix) && path.size() > prefix.size() && path[prefix.size()] == '/');
}

AdminAccount row(server::Statement& st) {
  AdminAccount a;
  a.name = st.column_text(0);
  a.role = parse_role(st.column_text(1)).value_or(AdminRole::kReadOnly);
  a.password_hash = st.column_text(2);
  a.created_unix = sqlite3_column_int64(st.get(), 3);
  a.created_by = st.column_text(4);
  a.totp_secret = st.column_text(5);
  a.generation = static_cast<std::uint64_t>(sqlite3_column_int64(st.get(), 6));
  return a;
}

}  // namespace

std::string_view role_name(AdminRole r) {
  switch (r) {
    case AdminRole::kReadOnly: return "read-only";
    case AdminRole::kAdmin: return "admin";
    case AdminRole::kOwner: return "owner";
  }
  return "?";
}

std::optional<AdminRole> parse_role(std::string_view name) {
  for (const auto r : kAllRoles) {
    if (role_name(r) == name) return r;
  }
  return std::nullopt;
}

AdminRole role_needed(bool post, std::string_view path) {
  // The config text holds password hashes and every setting; tokens and admins are the
  // keys to the panel itself; the logs may carry what the config holds (a webhook URL,
  // hook commands and their output).
  for (const std::string_view owners : {"/config", "/api/v1/config", "/tokens", "/api/v1/tokens",
                                        "/admins", "/api/v1/admins", "/logs", "/api/v1/logs"}) {
    if (under(path, owners)) return AdminRole::kOwner;
  }
  if (post) {
    // A language (POST /lang) is a preference of the browser's, anyone's to choose.
    if (path == "/logout" || path == "/lang" || under(path, "/account")) {
      return AdminRole::kReadOnly;
    }
    for (const std::string_view admins :
         {"/sessions", "/users", "/devices", "/blocked", "/api/v1/sessions", "/api/v1/users",
          "/api/v1/devices", "/api/v1/blocked"}) {
      if (under(path, admins)) return AdminRole::kAdmin;
    }
    return AdminRole::kOwner;
  }
  // What every admin may look at; anything else is an owner's until someone decides.
  for (const std::string_view readers :
       {"/sessions", "/users", "/blocked", "/events", "/audit", "/webhooks", "/account", "/metrics",
        "/api/v1/session", "/api/v1/status", "/api/v1/sessions", "/api/v1/users", "/api/v1/usage",
        "/api/v1/blocked", "/api/v1/host", "/api/v1/traffic", "/api/v1/webhooks", "/api/v1/events",
        "/api/v1/audit"}) {
    if (under(path, readers)) return AdminRole::kReadOnly;
  }
  return path == "/" ? AdminRole::kReadOnly : AdminRole::kOwner;
}

bool admin_name_valid(std::string_view name) {
  return !name.empty() && name.size() <= kMaxAdminName &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '@' || c == '-';
         });
}

std::string session_credential(const AdminAccount& a) {
  std::string c = a.password_hash + "\nrole:" + std::string(role_name(a.role));
  if (!a.totp_secret.empty()) c += "\ntotp:" + a.totp_secret;
  return c + "\ngen:" + std::to_string(a.generation);
}

Result<std::unique_ptr<AdminAccounts>, std::string> AdminAccounts::open(const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS panel_admins ("
      " name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT NOT NULL,"
      " created INTEGER NOT NULL, created_by TEXT NOT NULL DEFAULT '',"
      " totp_secret TEXT NOT NULL DEFAULT '', totp_step INTEGER NOT NULL DEFAULT 0,"
      " generation INTEGER NOT NULL DEFAULT 0);");
  if (!db.ok()) return fail(db.error());
  // A table of the first version (no second factor) gains the columns; where they exist
  // already this fails, harmlessly.
  (void)(*db)->exec("ALTER TABLE panel_admins ADD COLUMN totp_secret TEXT NOT NULL DEFAULT ''");
  (void)(*db)->exec("ALTER TABLE panel_admins ADD COLUMN totp_step INTEGER NOT NULL DEFAULT 0");
  (void)(*db)->exec("ALTER TABLE panel_admins ADD COLUMN generation INTEGER NOT NULL DEFAULT 0");
  return std::unique_ptr<AdminAccounts>(new AdminAccounts(std::move(*db)));
}

Result<AdminAccount, std::string> AdminAccounts::create(const std::string& name, AdminRole role,
                                                        const std::string& password_hash,
                                                        std::int64_t now_unix,
                                                        const std::string& by) {
  if (!admin_name_valid(name)) {
    return fail("an admin's name is 1.." + std::to_string(kMaxAdminName) +
                " letters, digits or . _ @ -");
  }
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "INSERT OR IGNORE INTO panel_admins (name, role, password_hash, created,"
                       " created_by) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!st.ok()) return fail(db_->error("prepare"));
  st.bind_text(1, name);
  st.bind_text(2, role_name(role));
  st.bind_text(3, password_hash);
  sqlite3_bind_int64(st.get(), 4, now_unix);
  st.bind_text(5, by);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return fail(db_->error("insert"));
  if (sqlite3_changes(db_->get()) == 0) return fail("an admin named " + name + " exists");
  return AdminAccount{name, role, password_hash, now_unix, by, {}, 0};
}

std::optional<AdminAccount> AdminAccounts::find(std::string_view name) {
  std::lock_guard lock(mu_);
  server::Statement st(
      *db_,
      "SELECT name, role, password_hash, created, created_by, totp_secret, generation"
      " FROM panel_admins"
      " WHERE name = ?1");
  if (!st.ok()) return std::nullopt;
  st.bind_text(1, name);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
  return row(st);
}

std::vector<AdminAccount> AdminAccounts::list() {
  std::lock_guard lock(mu_);
  std::vector<AdminAccount> out;
  server::Statement st(
      *db_,
      "SELECT name, role, password_hash, created, created_by, totp_secret, generation"
      " FROM panel_admins"
      " ORDER BY name");
  if (!st.ok()) return out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) out.push_back(row(st));
  return out;
}

bool AdminAccounts::change(const char* sql, std::string_view name,
                           std::optional<std::string_view> value) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_, sql);
  if (!st.ok()) return false;
  st.bind_text(1, name);
  if (value) st.bind_text(2, *value);
  return sqlite3_step(st.get()) == SQLITE_DONE && sqlite3_changes(db_->get()) > 0;
}

bool AdminAccounts::remove(std::string_view name) {
  return change("DELETE FROM panel_admins WHERE name = ?1", name);
}

bool AdminAccounts::set_role(std::string_view name, AdminRole role) {
  return change("UPDATE panel_admins SET role = ?2, generation = generation + 1 WHERE name = ?1",
                name, role_name(role));
}

bool AdminAccounts::set_password(std::string_view name, const std::string& password_hash) {
  return change(
      "UPDATE panel_admins SET password_hash = ?2, generation = generation + 1 WHERE name = ?1",
      name, password_hash);
}

bool AdminAccounts::set_totp(std::string_view name, const std::string& secret) {
  return change(
      "UPDATE panel_admins SET totp_secret = ?2, totp_step = 0, generation = generation + 1"
      " WHERE name = ?1",
      name, secret);
}

bool AdminAccounts::use_totp_step(std::string_view name, std::uint64_t step) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "UPDATE panel_admins SET totp_step = ?2 WHERE name = ?1 AND totp_step < ?2");
  if (!st.ok()) return false;
  st.bind_text(1, name);
  sqlite3_bind_int64(st.get(), 2,
                     static_cast<std::int64_t>(std::min<std::uint64_t>(step, INT64_MAX)));
  return sqlite3_step(st.get()) == SQLITE_DONE && sqlite3_changes(db_->get()) > 0;
}

bool AdminAccounts::end_sessions(std::string_view name) {
  return change("UPDATE panel_admins SET generation = generation + 1 WHERE name = ?1", name);
}

bool AdminAccounts::any_totp() {
  std::lock_guard lock(mu_);
  server::Statement st(*db_, "SELECT 1 FROM panel_admins WHERE totp_secret != '' LIMIT 1");
  return st.ok() && sqlite3_step(st.get()) == SQLITE_ROW;
}

}  // namespace qeli::panel
