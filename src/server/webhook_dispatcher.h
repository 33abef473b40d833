// WebhookDispatcher: events → the durable outbox → signed POSTs (docs/OPERATIONS.md
// "Webhooks"). on_event() hands the event's envelope to the dispatcher thread (no disk
// and no network on the caller's thread, which may be a connection or a UDP worker; at
// most kMaxQueued wait, past that an event is dropped, counted and logged); that thread
// writes them to the outbox, then sends what is due, one delivery at a time, oldest
// first. A 2xx answer delivers; anything else — no answer, 3xx (redirects are not
// followed), 4xx, 5xx — is retried after 10 s, 20 s, 40 s … (at most 1 h, ±20 % jitter)
// until `retry_for` after the event, then given up. Every attempt lands in the outbox's
// delivery log. A start makes every pending delivery due at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/server_config.h"
#include "config/webhooks_section.h"
#include "control/api.h"
#include "engine/stop_signal.h"
#include "server/webhook_outbox.h"
#include "server/webhook_poster.h"

namespace qeli::server {

struct WebhookCounters {
  std::atomic<std::uint64_t> enqueued{0};
  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> failed_attempts{0};
  std::atomic<std::uint64_t> given_up{0};
  std::atomic<std::uint64_t> enqueue_failed{0};
};

class WebhookDispatcher {
 public:
  /// `now_ms`: the wall clock in unix ms (tests pass their own).
  WebhookDispatcher(config::WebhooksConfig cfg, std::unique_ptr<WebhookOutbox> outbox,
                    std::unique_ptr<WebhookPoster> poster, std::string node,
                    std::function<std::int64_t()> now_ms = {});
  ~WebhookDispatcher();
  WebhookDispatcher(const WebhookDispatcher&) = delete;
  WebhookDispatcher& operator=(const WebhookDispatcher&) = delete;

  void start();
  void stop();

  static constexpr std::size_t kMaxQueued = 10000;

  /// Thread-safe and quick: an event of a selected kind is queued for the outbox.
  void on_event(const control::Event& e);
  /// Writes the queued events to the outbox (the thread's first step; tests call it).
  void persist_queued();
  /// Sends what is due now (the thread's step; tests call it directly). Returns how many
  /// attempts it made.
  std::size_t run_due();

  /// The delay before attempt `attempts + 1` (after `attempts` failures), jitter aside.
  static std::chrono::milliseconds backoff(std::uint32_t attempts);

  const WebhookCounters& counters() const { return counters_; }
  WebhookOutbox& outbox() { return *outbox_; }

 private:
  void run();
  bool selected(const std::string& type) const;

  config::WebhooksConfig cfg_;
  config::HttpUrl url_;
  std::unique_ptr<WebhookOutbox> outbox_;
  std::unique_ptr<WebhookPoster> poster_;
  std::string node_;
  std::function<std::int64_t()> now_ms_;
  WebhookCounters counters_;
  std::mutex queue_mu_;
  std::vector<OutboxItem> queue_;
  engine::StopSignal stop_;
  engine::Notifier wake_;
  std::thread thread_;
  std::atomic<std::int64_t> last_warn_ms_{0};
};

/// Builds the dispatcher for a loaded config: opens the outbox (its directory must exist)
/// and the HTTP poster. Error text names the file.
Result<std::unique_ptr<WebhookDispatcher>, std::string> make_webhook_dispatcher(
    const config::ServerConfig& cfg);

}  // namespace qeli::server
