#include "server/profile_events.h"

#include <spdlog/spdlog.h>
#include "transport/endpoint.h"

namespace qeli::server {

control::Event ProfileEvents::session_event(const char* type, const Session& s) const {
  control::Event e;
  e.type = type;
  e.profile = profile_;
  e.username = s.user;
  e.device = s.device_key;
  e.ip = s.current_peer().to_string();
  return e;
}

void ProfileEvents::connected(const Session& s) {
  if (log_ != nullptr) log_->push(session_event("session.connected", s));
}

void ProfileEvents::ended(const Session& s, const std::string& why) {
  if (log_ == nullptr) return;
  control::Event e = session_event("session.disconnected", s);
  e.reason = why;
  e.rx_bytes = s.counters.get(tunnel::SessionCounter::kRxBytes);
  e.tx_bytes = s.counters.get(tunnel::SessionCounter::kTxBytes);
  log_->push(std::move(e));
  // Over quota at its end (the quota ended it, or ended a sibling session first): the
  // crossing is announced once, however many of the user's sessions it ends.
  if (s.account && s.account->quota_exhausted()) quota_reached(s.user, *s.account);
}

void ProfileEvents::quota_reached(const std::string& user, engine::TrafficAccount& account) {
  if (log_ == nullptr || !account.claim_quota_event()) return;
  user_event(user, "user.quota_reached", "data_limit_gb reached");
}

void ProfileEvents::expired(const std::string& user) {
  if (log_ == nullptr || !users_.claim_expired_event(user)) return;  // once per run
  user_event(user, "user.expired", "expire_at passed");
}

void ProfileEvents::user_event(const std::string& user, const char* type, const char* reason) {
  control::Event e;
  e.type = type;
  e.profile = profile_;
  e.username = user;
  e.reason = reason;
  log_->push(std::move(e));
}

void ProfileEvents::failure(SourceKey ip, const std::string& user, Instant now) {
  if (!guard_.record_failure(ip, user, now)) return;
  // A lockout starts only after max_attempts Argon2id checks (at most a few per second):
  // one line each, so the operator sees what `list-blocked` will show.
  spdlog::warn(
      "[{}] {} locked out{} after too many failed logins (qeli list-blocked; qeli "
      "unblock {})",
      profile_, to_string_key(ip),
      user.empty() ? std::string() : " for '" + user.substr(0, 64) + "'", to_string_key(ip));
  if (log_ == nullptr) return;
  control::Event e;
  e.type = "auth.lockout";
  e.profile = profile_;
  e.username = user.substr(0, 64);
  e.ip = to_string_key(ip);
  e.reason = "too many failed logins";
  log_->push(std::move(e));
}

}  // namespace qeli::server
