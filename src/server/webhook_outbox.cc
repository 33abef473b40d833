#include "server/webhook_outbox.h"

#include <sqlite3.h>

namespace qeli::server {
Result<std::unique_ptr<WebhookOutbox>, std::string> WebhookOutbox::open(const std::string& path) {
  auto db = SqliteDb::open(
      path,
      // WAL + NORMAL: a commit survives the process (a crash, a restart) without an fsync
      // per event; only a power loss may take the last few.
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS outbox(id TEXT PRIMARY KEY NOT NULL, type TEXT NOT NULL, "
      "created_ms INTEGER NOT NULL, body TEXT NOT NULL, attempts INTEGER NOT NULL, "
      "next_ms INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS deliveries(at_ms INTEGER NOT NULL, id TEXT NOT NULL, "
      "type TEXT NOT NULL, result TEXT NOT NULL, status INTEGER NOT NULL, detail TEXT NOT "
      "NULL)");
  if (!db) return fail(db.error());
  return std::unique_ptr<WebhookOutbox>(new WebhookOutbox(std::move(*db)));
}

Status<std::string> WebhookOutbox::enqueue(const OutboxItem& item) {
  std::lock_guard lock(mu_);
  Statement st(*db_,
               "INSERT OR IGNORE INTO outbox(id, type, created_ms, body, attempts, next_ms) "
               "VALUES(?,?,?,?,?,?)");
  if (!st.ok()) return fail(db_->error("prepare"));
  st.bind_text(1, item.id);
  st.bind_text(2, item.type);
  sqlite3_bind_int64(st.get(), 3, item.created_ms);
  st.bind_text(4, item.body);
  sqlite3_bind_int64(st.get(), 5, item.attempts);
  sqlite3_bind_int64(st.get(), 6, item.next_ms);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return fail(db_->error("insert"));
  return {};
}

std::vector<OutboxItem> WebhookOutbox::due(std::int64_t now_ms, std::size_t limit) {
  std::lock_guard lock(mu_);
  std::vector<OutboxItem> out;
  Statement st(*db_,
               "SELECT id, type, created_ms, body, attempts, next_ms FROM outbox "
               "WHERE next_ms <= ? ORDER BY created_ms, id LIMIT ?");
  if (!st.ok()) return out;
  sqlite3_bind_int64(st.get(), 1, now_ms);
  sqlite3_bind_int64(st.get(), 2, static_cast<sqlite3_int64>(limit));
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    OutboxItem i;
    i.id = st.column_text(0);
    i.type = st.column_text(1);
    i.created_ms = sqlite3_column_int64(st.get(), 2);
    i.body = st.column_text(3);
    i.attempts = static_cast<std::uint32_t>(sqlite3_column_int64(st.get(), 4));
    i.next_ms = sqlite3_column_int64(st.get(), 5);
    out.push_back(std::move(i));
  }
  return out;
}

std::optional<std::int64_t> WebhookOutbox::next_due() {
  std::lock_guard lock(mu_);
  Statement st(*db_, "SELECT MIN(next_ms) FROM outbox");
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW ||
      sqlite3_column_type(st.get(), 0) == SQLITE_NULL) {
    return std::nullopt;
  }
  return sqlite3_column_int64(st.get(), 0);
}

std::size_t WebhookOutbox::pending() {
  std::lock_guard lock(mu_);
  Statement st(*db_, "SELECT COUNT(*) FROM outbox");
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW) return 0;
  return static_cast<std::size_t>(sqlite3_column_int64(st.get(), 0));
}

void WebhookOutbox::make_all_due(std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  Statement st(*db_, "UPDATE outbox SET next_ms = ? WHERE next_ms > ?");
  if (!st.ok()) return;
  sqlite3_bind_int64(st.get(), 1, now_ms);
  sqlite3_bind_int64(st.get(), 2, now_ms);
  (void)sqlite3_step(st.get());
}

void WebhookOutbox::remove(const std::string& id) {
  Statement st(*db_, "DELETE FROM outbox WHERE id = ?");
  if (!st.ok()) return;
  st.bind_text(1, id);
  (void)sqlite3_step(st.get());
}

void WebhookOutbox::note(const OutboxItem& item, const char* result, int status,
                         const std::string& detail, std::int64_t now_ms) {
  Statement st(*db_,
               "INSERT INTO deliveries(at_ms, id, type, result, status, detail) "
               "VALUES(?,?,?,?,?,?)");
  if (!st.ok()) return;
  sqlite3_bind_int64(st.get(), 1, now_ms);
  st.bind_text(2, item.id);
  st.bind_text(3, item.type);
  st.bind_text(4, result);
  sqlite3_bind_int(st.get(), 5, status);
  st.bind_text(6, detail.substr(0, 200));
  (void)sqlite3_step(st.get());
  // Bounded: only the newest kLogKeep rows stay.
  Statement trim(*db_,
                 "DELETE FROM deliveries WHERE rowid NOT IN (SELECT rowid FROM deliveries "
                 "ORDER BY rowid DESC LIMIT ?)");
  if (!trim.ok()) return;
  sqlite3_bind_int64(trim.get(), 1, static_cast<sqlite3_int64>(kLogKeep));
  (void)sqlite3_step(trim.get());
}

void WebhookOutbox::delivered(const OutboxItem& item, int status, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  remove(item.id);
  note(item, "delivered", status, "", now_ms);
}

void WebhookOutbox::failed(const OutboxItem& item, int status, const std::string& detail,
                           std::int64_t next_ms, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  Statement st(*db_, "UPDATE outbox SET attempts = attempts + 1, next_ms = ? WHERE id = ?");
  if (st.ok()) {
    sqlite3_bind_int64(st.get(), 1, next_ms);
    st.bind_text(2, item.id);
    (void)sqlite3_step(st.get());
  }
  note(item, "failed", status, detail, now_ms);
}

void WebhookOutbox::give_up(const OutboxItem& item, int status, const std::string& detail,
                            std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  remove(item.id);
  note(item, "given-up", status, detail, now_ms);
}

std::vector<DeliveryLogRow> WebhookOutbox::log(std::size_t limit) {
  std::lock_guard lock(mu_);
  std::vector<DeliveryLogRow> out;
  Statement st(*db_,
               "SELECT at_ms, id, type, result, status, detail FROM deliveries "
               "ORDER BY rowid DESC LIMIT ?");
  if (!st.ok()) return out;
  sqlite3_bind_int64(st.get(), 1, static_cast<sqlite3_int64>(limit));
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    DeliveryLogRow r;
    r.at_ms = sqlite3_column_int64(st.get(), 0);
    r.id = st.column_text(1);
    r.type = st.column_text(2);
    r.result = st.column_text(3);
    r.status = sqlite3_column_int(st.get(), 4);
    r.detail = st.column_text(5);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace qeli::server
