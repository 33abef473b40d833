#include "panel/revoked_sessions.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

namespace qeli::panel {

Result<std::unique_ptr<RevokedSessions>, std::string> RevokedSessions::open(
    const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS revoked_sessions (sid TEXT PRIMARY KEY NOT NULL,"
      " expires INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS session_generation (id INTEGER PRIMARY KEY CHECK (id = 1),"
      " generation INTEGER NOT NULL);");
  if (!db.ok()) return fail(db.error());
  return std::unique_ptr<RevokedSessions>(new RevokedSessions(std::move(*db)));
}

std::uint64_t RevokedSessions::generation() {
  server::Statement st(*db_, "SELECT generation FROM session_generation WHERE id = 1");
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW) return 0;
  return static_cast<std::uint64_t>(sqlite3_column_int64(st.get(), 0));
}

std::vector<std::pair<std::string, std::int64_t>> RevokedSessions::live(std::int64_t now_unix) {
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

void RevokedSessions::revoked(const std::string& sid, std::int64_t expires_unix) {
  server::Statement st(*db_,
                       "INSERT OR REPLACE INTO revoked_sessions (sid, expires) VALUES (?, ?)");
  if (!st.ok()) {
    spdlog::warn("panel: state_db: {}", db_->error("prepare"));
    return;
  }
  st.bind_text(1, sid);
  sqlite3_bind_int64(st.get(), 2, expires_unix);
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    spdlog::warn("panel: state_db: the logout is kept in memory only: {}", db_->error("insert"));
  }
}

void RevokedSessions::generation_moved(std::uint64_t generation) {
  server::Statement st(*db_,
                       "INSERT OR REPLACE INTO session_generation (id, generation) VALUES (1, ?)");
  if (st.ok()) {
    sqlite3_bind_int64(st.get(), 1, static_cast<std::int64_t>(generation));
    if (sqlite3_step(st.get()) != SQLITE_DONE) {
      spdlog::warn("panel: state_db: {}", db_->error("generation"));
    }
  }
  server::Statement del(*db_, "DELETE FROM revoked_sessions");
  if (del.ok()) (void)sqlite3_step(del.get());
}

}  // namespace qeli::panel
