// UsageStore over SQLite (libsqlite3): table usage(user TEXT PRIMARY KEY, down_bytes,
// up_bytes, updated_unix). Statements are prepared per call: the store is written every
// few seconds, not per packet.
#include <sqlite3.h>

#include <chrono>
#include <mutex>

#include "server/sqlite_db.h"
#include "server/usage_store.h"

namespace qeli::server {
namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SqliteUsageStore final : public UsageStore {
 public:
  explicit SqliteUsageStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  Result<std::vector<UsageRecord>, std::string> load() override {
    std::lock_guard lock(mu_);
    Statement st(*db_, "SELECT user, down_bytes, up_bytes, updated_unix FROM usage ORDER BY user");
    if (!st.ok()) return fail(error("prepare"));
    std::vector<UsageRecord> out;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      UsageRecord r;
      const auto* u = sqlite3_column_text(st.get(), 0);
      r.user = u != nullptr ? reinterpret_cast<const char*>(u) : "";
      r.down_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(st.get(), 1));
      r.up_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(st.get(), 2));
      r.updated_unix = sqlite3_column_int64(st.get(), 3);
      out.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) return fail(error("read"));
    return out;
  }

  Status<std::string> save(const std::vector<UsageRecord>& records) override {
    std::lock_guard lock(mu_);
    if (!exec("BEGIN IMMEDIATE")) return fail(error("begin"));
    Statement st(*db_,
                 "INSERT INTO usage(user, down_bytes, up_bytes, updated_unix) VALUES(?,?,?,?) "
                 "ON CONFLICT(user) DO UPDATE SET down_bytes=excluded.down_bytes, "
                 "up_bytes=excluded.up_bytes, updated_unix=excluded.updated_unix");
    if (!st.ok()) {
      exec("ROLLBACK");
      return fail(error("prepare"));
    }
    const std::int64_t now = unix_now();
    for (const auto& r : records) {
      sqlite3_reset(st.get());
      st.bind_text(1, r.user);
      sqlite3_bind_int64(st.get(), 2, static_cast<sqlite3_int64>(r.down_bytes));
      sqlite3_bind_int64(st.get(), 3, static_cast<sqlite3_int64>(r.up_bytes));
      sqlite3_bind_int64(st.get(), 4, now);
      if (sqlite3_step(st.get()) != SQLITE_DONE) {
        const std::string e = error("write");
        exec("ROLLBACK");
        return fail(e);
      }
    }
    if (!exec("COMMIT")) return fail(error("commit"));
    return {};
  }

  Status<std::string> reset(const std::string& user) override {
    std::lock_guard lock(mu_);
    Statement st(*db_, "DELETE FROM usage WHERE user = ?");
    if (!st.ok()) return fail(error("prepare"));
    st.bind_text(1, user);
    if (sqlite3_step(st.get()) != SQLITE_DONE) return fail(error("delete"));
    return {};
  }

  bool exec(const char* sql) { return db_->exec(sql); }
  std::string error(const char* what) const { return db_->error(what); }

 private:
  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace

Result<std::unique_ptr<UsageStore>, std::string> open_sqlite_usage_store(const std::string& path) {
  auto db = SqliteDb::open(path,
                           "CREATE TABLE IF NOT EXISTS usage(user TEXT PRIMARY KEY NOT NULL, "
                           "down_bytes INTEGER NOT NULL, up_bytes INTEGER NOT NULL, "
                           "updated_unix INTEGER NOT NULL)");
  if (!db) return fail(db.error());
  return std::unique_ptr<UsageStore>(std::make_unique<SqliteUsageStore>(std::move(*db)));
}

}  // namespace qeli::server
