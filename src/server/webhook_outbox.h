// WebhookOutbox: the durable queue of webhook deliveries (SQLite, server/sqlite_db.h).
// An event is written here before any attempt, so neither a receiver that is down nor a
// server restart loses it: delivery is at least once, the id makes it idempotent.
//
//   outbox(id PK, type, created_ms, body, attempts, next_ms)   pending deliveries
//   deliveries(at_ms, id, type, result, status, detail)       the last kLogKeep attempts
//
// Thread-safe (one mutex; the dispatcher thread and event producers share it).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "server/sqlite_db.h"

namespace qeli::server {

struct OutboxItem {
  std::string id;
  std::string type;
  std::int64_t created_ms = 0;
  std::string body;
  std::uint32_t attempts = 0;
  std::int64_t next_ms = 0;
};

struct DeliveryLogRow {
  std::int64_t at_ms = 0;
  std::string id, type;
  std::string result;  ///< "delivered" | "failed" | "given-up"
  int status = 0;      ///< the HTTP status; 0 = no answer
  std::string detail;
};

class WebhookOutbox {
 public:
  static constexpr std::size_t kLogKeep = 1000;

  static Result<std::unique_ptr<WebhookOutbox>, std::string> open(const std::string& path);

  Status<std::string> enqueue(const OutboxItem& item);
  /// Pending items with next_ms ≤ now_ms, oldest first, at most `limit`.
  std::vector<OutboxItem> due(std::int64_t now_ms, std::size_t limit);
  /// The earliest next_ms of a pending item.
  std::optional<std::int64_t> next_due();
  std::size_t pending();
  /// Every pending item due now (a start is a natural retry point).
  void make_all_due(std::int64_t now_ms);

  void delivered(const OutboxItem& item, int status, std::int64_t now_ms);
  void failed(const OutboxItem& item, int status, const std::string& detail, std::int64_t next_ms,
              std::int64_t now_ms);
  void give_up(const OutboxItem& item, int status, const std::string& detail, std::int64_t now_ms);

  /// The newest log rows first, at most `limit`.
  std::vector<DeliveryLogRow> log(std::size_t limit);

 private:
  explicit WebhookOutbox(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  void remove(const std::string& id);
  void note(const OutboxItem& item, const char* result, int status, const std::string& detail,
            std::int64_t now_ms);

  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace qeli::server
