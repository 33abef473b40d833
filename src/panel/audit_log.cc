#include "panel/audit_log.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>

namespace qeli::panel {
namespace {

std::string_view cut(const std::string& s) { return std::string_view(s).substr(0, 256); }

}  // namespace

Result<std::unique_ptr<AuditLog>, std::string> AuditLog::open(const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS audit ("
      " seq INTEGER PRIMARY KEY AUTOINCREMENT, unix INTEGER NOT NULL, actor TEXT NOT NULL,"
      " ip TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, status INTEGER NOT NULL);");
  if (!db.ok()) return fail(db.error());
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(*db)));
}

void AuditLog::append(AuditEntry e) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "INSERT INTO audit (unix, actor, ip, action, target, status)"
                       " VALUES (?, ?, ?, ?, ?, ?)");
  if (!st.ok()) {
    spdlog::warn("panel: audit log: {}", db_->error("prepare"));
    return;
  }
  sqlite3_bind_int64(st.get(), 1, e.unix_secs);
  st.bind_text(2, cut(e.actor));
  st.bind_text(3, cut(e.ip));
  st.bind_text(4, cut(e.action));
  st.bind_text(5, cut(e.target));
  sqlite3_bind_int(st.get(), 6, e.status);
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    spdlog::warn("panel: audit log: {}", db_->error("insert"));
    return;
  }
  // Bounded: the oldest rows go, a thousand appends at a time; failed logins (which anyone
  // who reaches the port can cause) have a smaller share of their own, so they can never
  // push the admins' actions out.
  if (++appended_ % 1000 == 0) {
    server::Statement logins(*db_,
                             "DELETE FROM audit WHERE action = 'login' AND status <> 303 AND seq <="
                             " (SELECT seq FROM audit WHERE action = 'login' AND status <> 303"
                             " ORDER BY seq DESC LIMIT 1 OFFSET ?)");
    if (logins.ok()) {
      sqlite3_bind_int64(logins.get(), 1, kMaxFailedLogins);
      (void)sqlite3_step(logins.get());
    }
    server::Statement prune(*db_,
                            "DELETE FROM audit WHERE seq <= (SELECT MAX(seq) FROM audit) - ?");
    if (prune.ok()) {
      sqlite3_bind_int64(prune.get(), 1, kMaxRows);
      (void)sqlite3_step(prune.get());
    }
  }
}

std::vector<AuditEntry> AuditLog::newest(std::size_t limit) {
  limit = std::clamp<std::size_t>(limit, 1, 1000);
  std::lock_guard lock(mu_);
  std::vector<AuditEntry> out;
  server::Statement st(*db_,
                       "SELECT seq, unix, actor, ip, action, target, status FROM audit"
                       " ORDER BY seq DESC LIMIT ?");
  if (!st.ok()) return out;
  sqlite3_bind_int64(st.get(), 1, static_cast<sqlite3_int64>(limit));
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    AuditEntry e;
    e.seq = sqlite3_column_int64(st.get(), 0);
    e.unix_secs = sqlite3_column_int64(st.get(), 1);
    e.actor = st.column_text(2);
    e.ip = st.column_text(3);
    e.action = st.column_text(4);
    e.target = st.column_text(5);
    e.status = sqlite3_column_int(st.get(), 6);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace qeli::panel
