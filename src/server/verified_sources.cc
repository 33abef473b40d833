#include "server/verified_sources.h"

#include <algorithm>

namespace qeli::server {

VerifiedSources::VerifiedSources(std::size_t capacity, Duration lifetime)
    : capacity_(std::max<std::size_t>(1, capacity)), lifetime_(lifetime) {}

bool VerifiedSources::add(const transport::SockAddr& a, Instant now) {
  if (auto it = map_.find(a); it != map_.end()) {
    const bool renewed = now < it->second->until;
    it->second->until = now + lifetime_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return !renewed;
  }
  if (map_.size() >= capacity_) {
    map_.erase(lru_.back().addr);
    lru_.pop_back();
  }
  lru_.push_front({a, now + lifetime_});
  map_.emplace(a, lru_.begin());
  return true;
}

bool VerifiedSources::contains(const transport::SockAddr& a, Instant now) {
  auto it = map_.find(a);
  if (it == map_.end()) return false;
  if (now >= it->second->until) {
    lru_.erase(it->second);
    map_.erase(it);
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return true;
}

}  // namespace qeli::server
