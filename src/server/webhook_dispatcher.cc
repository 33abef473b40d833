#include "server/webhook_dispatcher.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>

#include "crypto/random.h"
#include "server/webhook_envelope.h"

namespace qeli::server {
namespace {

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string host_name() {
  std::array<char, 256> b{};
  if (gethostname(b.data(), b.size() - 1) != 0) return "qeli";
  return b.data();
}

}  // namespace

WebhookDispatcher::WebhookDispatcher(config::WebhooksConfig cfg,
                                     std::unique_ptr<WebhookOutbox> outbox,
                                     std::unique_ptr<WebhookPoster> poster, std::string node,
                                     std::function<std::int64_t()> now_ms)
    : cfg_(std::move(cfg)),
      url_(config::HttpUrl::parse(cfg_.url).value_or(config::HttpUrl{})),
      outbox_(std::move(outbox)),
      poster_(std::move(poster)),
      node_(std::move(node)),
      now_ms_(now_ms ? std::move(now_ms) : std::function<std::int64_t()>(wall_ms)) {}

WebhookDispatcher::~WebhookDispatcher() { stop(); }

void WebhookDispatcher::start() {
  outbox_->make_all_due(now_ms_());
  thread_ = std::thread([this] { run(); });
}

void WebhookDispatcher::stop() {
  stop_.stop();
  if (thread_.joinable()) thread_.join();
  persist_queued();  // the last events (sessions ended by the stop) wait for the next start
}

bool WebhookDispatcher::selected(const std::string& type) const {
  if (cfg_.events.empty()) {
    return std::find(config::kWebhookEvents.begin(), config::kWebhookEvents.end(), type) !=
           config::kWebhookEvents.end();
  }
  return std::find(cfg_.events.begin(), cfg_.events.end(), type) != cfg_.events.end();
}

void WebhookDispatcher::on_event(const control::Event& e) {
  if (!selected(e.type)) return;
  OutboxItem item;
  item.id = new_webhook_id(crypto::system_rng());
  item.type = e.type;
  item.created_ms = e.unix_ms != 0 ? e.unix_ms : now_ms_();
  item.body = webhook_body(e, item.id, node_);
  item.next_ms = item.created_ms;
  {
    std::lock_guard lock(queue_mu_);
    if (queue_.size() < kMaxQueued) {
      queue_.push_back(std::move(item));
      item.id.clear();
    }
  }
  if (!item.id.empty()) {
    counters_.enqueue_failed++;
    spdlog::warn("[webhooks] {} dropped: {} events wait for the outbox already", e.type,
                 kMaxQueued);
    return;
  }
  wake_.notify();
}

void WebhookDispatcher::persist_queued() {
  std::vector<OutboxItem> batch;
  {
    std::lock_guard lock(queue_mu_);
    batch.swap(queue_);
  }
  for (const OutboxItem& item : batch) {
    if (auto st = outbox_->enqueue(item); !st.ok()) {
      counters_.enqueue_failed++;
      spdlog::warn("[webhooks] could not keep {} ({}): {}", item.type, item.id, st.error());
      continue;
    }
    counters_.enqueued++;
  }
}

std::chrono::milliseconds WebhookDispatcher::backoff(std::uint32_t attempts) {
  const std::uint32_t doublings = std::min<std::uint32_t>(attempts, 16);
  const std::int64_t ms = std::int64_t{10'000} << doublings;
  return std::chrono::milliseconds(std::min<std::int64_t>(ms, 3'600'000));
}

std::size_t WebhookDispatcher::run_due() {
  persist_queued();
  std::size_t tried = 0;
  for (const OutboxItem& item : outbox_->due(now_ms_(), 16)) {
    if (stop_.stopped()) break;
    const std::int64_t ts_ms = now_ms_();
    const std::int64_t ts = ts_ms / 1000;
    HttpHeaders h{
        {"Content-Type", "application/json"},
        {"User-Agent", "qeli-webhooks/1"},
        {"Qeli-Webhook-Id", item.id},
        {"Qeli-Webhook-Timestamp", std::to_string(ts)},
        {"Qeli-Webhook-Signature", webhook_signature(cfg_.secret, item.id, ts, item.body)},
        {"Qeli-Webhook-Type", item.type}};
    const PostResult r = poster_->post(url_, h, item.body, cfg_.timeout);
    ++tried;
    const std::int64_t now = now_ms_();
    if (r.status >= 200 && r.status < 300) {
      outbox_->delivered(item, r.status, now);
      counters_.delivered++;
      continue;
    }
    const std::string why = r.status != 0 ? "answered HTTP " + std::to_string(r.status) : r.error;
    const auto retry_for_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.retry_for).count();
    if (now - item.created_ms >= retry_for_ms) {
      outbox_->give_up(item, r.status, why, now);
      counters_.given_up++;
      spdlog::error("[webhooks] gave up on {} {} after {} attempts: {}", item.type, item.id,
                    item.attempts + 1, why);
      continue;
    }
    // ±20 % jitter, so many servers behind one receiver do not retry in step.
    const auto base = backoff(item.attempts).count();
    const auto jitter = static_cast<std::int64_t>(
        crypto::system_rng().uniform(0, static_cast<std::uint64_t>(base / 5) * 2));
    outbox_->failed(item, r.status, why, now + base - base / 5 + jitter, now);
    counters_.failed_attempts++;
    auto last = last_warn_ms_.load();
    if (now - last >= 60'000 && last_warn_ms_.compare_exchange_strong(last, now)) {
      spdlog::warn(
          "[webhooks] delivery to {} failed: {} (retrying with back-off; logged at "
          "most once a minute)",
          cfg_.url, why);
    }
  }
  return tried;
}

void WebhookDispatcher::run() {
  while (!stop_.stopped()) {
    run_due();
    int timeout = 60'000;
    if (const auto next = outbox_->next_due()) {
      timeout = static_cast<int>(std::clamp<std::int64_t>(*next - now_ms_(), 0, 60'000));
    }
    std::array<pollfd, 2> p{{{stop_.fd(), POLLIN, 0}, {wake_.fd(), POLLIN, 0}}};
    if (::poll(p.data(), p.size(), timeout) < 0 && errno != EINTR) return;
    if ((p[1].revents & POLLIN) != 0) wake_.drain();
  }
}

Result<std::unique_ptr<WebhookDispatcher>, std::string> make_webhook_dispatcher(
    const config::ServerConfig& cfg) {
  auto outbox = WebhookOutbox::open(cfg.webhooks_outbox_path());
  if (!outbox) return fail("[webhooks] outbox " + outbox.error());
  return std::make_unique<WebhookDispatcher>(
      cfg.webhooks, std::move(*outbox), make_http_poster(cfg.webhooks.allow_private), host_name());
}

}  // namespace qeli::server
