#include "panel/login_state.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

namespace qeli::panel {
namespace {

bool run(server::SqliteDb& db, const char* sql) {
  server::Statement st(db, sql);
  return st.ok() && sqlite3_step(st.get()) == SQLITE_DONE;
}

}  // namespace

Result<std::unique_ptr<LoginStateStore>, std::string> LoginStateStore::open(
    const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS revoked_sessions (sid TEXT PRIMARY KEY NOT NULL,"
      " expires INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS login_state (id INTEGER PRIMARY KEY CHECK (id = 1),"
      " generation INTEGER NOT NULL DEFAULT 0, totp_step INTEGER NOT NULL DEFAULT 0);"
      "INSERT OR IGNORE INTO login_state (id) VALUES (1);");
  if (!db.ok()) return fail(db.error());
  return std::unique_ptr<LoginStateStore>(new LoginStateStore(std::move(*db)));
}

std::uint64_t LoginStateStore::column(const char* name) {
  const std::string sql = std::string("SELECT ") + name + " FROM login_state WHERE id = 1";
  server::Statement st(*db_, sql.c_str());
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW) return 0;
  return static_cast<std::uint64_t>(sqlite3_column_int64(st.get(), 0));
}

std::uint64_t LoginStateStore::generation() {
  std::lock_guard lock(mu_);
  return column("generation");
}
std::uint64_t LoginStateStore::totp_step() {
  std::lock_guard lock(mu_);
  return column("totp_step");
}

std::vector<std::pair<std::string, std::int64_t>> LoginStateStore::live(std::int64_t now_unix) {
  std::lock_guard lock(mu_);
  {
    server::Statement del(*db_, "DELETE FROM revoked_sessions WHERE expires <= ?");
    if (del.ok()) {
      sqlite3_bind_int64(del.get(), 1, now_unix);
      (void)sqlite3_step(del.get());
    }
  }
  std::vector<std::pair<std::string, std::int64_t>> out;
  server::Statement st(*db_, "SELECT sid, expires FROM revoked_sessions");
  if (!st.ok()) return out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    out.emplace_back(st.column_text(0), sqlite3_column_int64(st.get(), 1));
  }
  return out;
}

void LoginStateStore::revoked(const std::string& sid, std::int64_t expires_unix,
                              std::int64_t now_unix) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "INSERT OR REPLACE INTO revoked_sessions (sid, expires) VALUES (?, ?)");
  bool ok = st.ok();
  if (ok) {
    st.bind_text(1, sid);
    sqlite3_bind_int64(st.get(), 2, expires_unix);
    ok = sqlite3_step(st.get()) == SQLITE_DONE;
  }
  if (!ok) {
    spdlog::warn("panel: state_db: the logout is kept in memory only: {}", db_->error("insert"));
  }
  // The rows of cookies that expired meanwhile go as new ones come.
  server::Statement del(*db_, "DELETE FROM revoked_sessions WHERE expires <= ?");
  if (del.ok()) {
    sqlite3_bind_int64(del.get(), 1, now_unix);
    (void)sqlite3_step(del.get());
  }
}

void LoginStateStore::generation_moved(std::uint64_t generation) {
  std::lock_guard lock(mu_);
  // One transaction: the rows go only with the new generation written (else a restart
  // would load the old generation without its revocations).
  if (!run(*db_, "BEGIN IMMEDIATE")) {
    spdlog::warn("panel: state_db: {}", db_->error("begin"));
    return;
  }
  server::Statement st(*db_, "UPDATE login_state SET generation = ? WHERE id = 1");
  bool ok = st.ok();
  if (ok) {
    sqlite3_bind_int64(st.get(), 1, static_cast<std::int64_t>(generation));
    ok = sqlite3_step(st.get()) == SQLITE_DONE;
  }
  ok = ok && run(*db_, "DELETE FROM revoked_sessions");
  if (!run(*db_, ok ? "COMMIT" : "ROLLBACK") || !ok) {
    spdlog::warn("panel: state_db: the session generation is kept in memory only: {}",
                 db_->error("generation"));
  }
}

void LoginStateStore::totp_step_used(std::uint64_t step) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_, "UPDATE login_state SET totp_step = ? WHERE id = 1 AND totp_step < ?");
  if (!st.ok()) return;
  sqlite3_bind_int64(st.get(), 1, static_cast<std::int64_t>(step));
  sqlite3_bind_int64(st.get(), 2, static_cast<std::int64_t>(step));
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    spdlog::warn("panel: state_db: the used one-time code is kept in memory only: {}",
                 db_->error("totp"));
  }
}

}  // namespace qeli::panel
