// SqliteDb: one SQLite file the server owns (the usage totals, the webhook outbox): created
// 0600 by us (SQLite would follow the umask), WAL, a busy timeout, errors as text naming
// the file. Statement: a prepared statement freed with its scope. Statements are prepared
// per call: these files are written every few seconds, never per packet.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace qeli::server {

class SqliteDb {
 public:
  /// Opens (creating 0600, O_NOFOLLOW) `path` and runs `schema` (CREATE TABLE IF NOT ...).
  static Result<std::unique_ptr<SqliteDb>, std::string> open(const std::string& path,
                                                             const char* schema);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* get() const { return db_; }
  bool exec(const char* sql);
  /// "PATH: WHAT: sqlite's message".
  std::string error(const char* what) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

class Statement {
 public:
  Statement(const SqliteDb& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return ok_; }
  sqlite3_stmt* get() { return st_; }
  /// Binds parameter `i` (1-based) to a copy of `text`.
  void bind_text(int i, std::string_view text);
  /// Column `col` of the current row as text ("" for NULL).
  std::string column_text(int col);

 private:
  sqlite3_stmt* st_ = nullptr;
  bool ok_ = false;
};

}  // namespace qeli::server
