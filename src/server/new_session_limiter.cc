#include "server/new_session_limiter.h"

#include <algorithm>

namespace qeli::server {

NewSessionLimiter::NewSessionLimiter(NewSessionLimits limits) : limits_(limits) {
  limits_.max_tracked = std::max<std::size_t>(limits_.max_tracked, 1);
}

bool NewSessionLimiter::admit(SourceKey ip, Instant now) {
  std::lock_guard lock(mu_);
  auto it = index_.find(ip);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);  // seen again: most recent
    return it->second->bucket.take(now);
  }
  // Forget the least recently seen addresses whose buckets are full again (no history),
  // then, if the table is still full, the least recently seen one whatever its state.
  while (!lru_.empty() && lru_.back().bucket.full(now)) {
    index_.erase(lru_.back().ip);
    lru_.pop_back();
  }
  if (lru_.size() >= limits_.max_tracked) {
    index_.erase(lru_.back().ip);
    lru_.pop_back();
    ++evicted_;
  }
  lru_.push_front({ip, TokenBucket::per_window(limits_.max_per_window, limits_.window)});
  index_.emplace(ip, lru_.begin());
  return lru_.front().bucket.take(now);
}

std::size_t NewSessionLimiter::tracked() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

std::uint64_t NewSessionLimiter::evicted() const {
  std::lock_guard lock(mu_);
  return evicted_;
}

}  // namespace qeli::server
