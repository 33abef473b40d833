#include "server/sqlite_db.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qeli::server {

Result<std::unique_ptr<SqliteDb>, std::string> SqliteDb::open(const std::string& path,
                                                              const char* schema) {
  // Create the file 0600 ourselves: SQLite would use the umask (these are per-user data
  // and webhook payloads).
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail(path + ": cannot create: " + std::string(strerror(errno)));
  ::close(fd);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string e = path + ": " + (db != nullptr ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return fail(e);
  }
  sqlite3_busy_timeout(db, 2000);
  std::unique_ptr<SqliteDb> out(new SqliteDb(db, path));
  if (!out->exec("PRAGMA journal_mode=WAL") || !out->exec(schema)) {
    return fail(out->error("create table"));
  }
  return out;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

bool SqliteDb::exec(const char* sql) {
  return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
}

std::string SqliteDb::error(const char* what) const {
  return path_ + ": " + what + ": " + sqlite3_errmsg(db_);
}

Statement::Statement(const SqliteDb& db, const char* sql) {
  ok_ = sqlite3_prepare_v2(db.get(), sql, -1, &st_, nullptr) == SQLITE_OK;
}

Statement::~Statement() { sqlite3_finalize(st_); }

void Statement::bind_text(int i, std::string_view text) {
  sqlite3_bind_text(st_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

std::string Statement::column_text(int col) {
  const auto* t = sqlite3_column_text(st_, col);
  return t != nullptr ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace qeli::server
