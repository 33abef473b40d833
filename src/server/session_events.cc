// ProfileRuntime's events (server/event_log.h): what the panel's feed and webhooks see.
#include "server/profile_runtime.h"

#include <spdlog/spdlog.h>
#include "transport/endpoint.h"

namespace qeli::server {

void ProfileRuntime::note_connected(const Session& s) {
  if (events_ == nullptr) return;
  control::Event e;
  e.type = "session.connected";
  e.profile = profile_.name;
  e.username = s.user;
  e.device = s.device_key;
  e.ip = s.current_peer().to_string();
  events_->push(std::move(e));
}

void ProfileRuntime::note_ended(const Session& s, const std::string& why) {
  if (events_ == nullptr) return;
  control::Event e;
  e.type = "session.disconnected";
  e.profile = profile_.name;
  e.username = s.user;
  e.device = s.device_key;
  e.ip = s.current_peer().to_string();
  e.reason = why;
  e.rx_bytes = s.counters.get(tunnel::SessionCounter::kRxBytes);
  e.tx_bytes = s.counters.get(tunnel::SessionCounter::kTxBytes);
  events_->push(std::move(e));
  // Over quota at its end (the quota ended it, or ended a sibling session first): the
  // crossing is announced once, however many of the user's sessions it ends.
  if (s.account && s.account->quota_exhausted()) note_quota_reached(s.user, *s.account);
}

void ProfileRuntime::note_quota_reached(const std::string& user, engine::TrafficAccount& account) {
  if (events_ == nullptr || !account.claim_quota_event()) return;
  note_user(user, "user.quota_reached", "data_limit_gb reached");
}

void ProfileRuntime::note_expired(const std::string& user) {
  if (events_ == nullptr || !users_.claim_expired_event(user)) return;  // once per run
  note_user(user, "user.expired", "expire_at passed");
}

void ProfileRuntime::note_user(const std::string& user, const char* type, const char* reason) {
  control::Event e;
  e.type = type;
  e.profile = profile_.name;
  e.username = user;
  e.reason = reason;
  events_->push(std::move(e));
}

void ProfileRuntime::note_failure(SourceKey ip, const std::string& user, Instant now) {
  if (!guard_.record_failure(ip, user, now)) return;
  // A lockout starts only after max_attempts Argon2id checks (at most a few per second):
  // one line each, so the operator sees what `list-blocked` will show.
  spdlog::warn(
      "[{}] {} locked out{} after too many failed logins (qeli list-blocked; qeli "
      "unblock {})",
      profile_.name, to_string_key(ip),
      user.empty() ? std::string() : " for '" + user.substr(0, 64) + "'", to_string_key(ip));
  if (events_ == nullptr) return;
  control::Event e;
  e.type = "auth.lockout";
  e.profile = profile_.name;
  e.username = user.substr(0, 64);
  e.ip = to_string_key(ip);
  e.reason = "too many failed logins";
  events_->push(std::move(e));
}

}  // namespace qeli::server
