#include "dns/cache.h"

#include <algorithm>

#include "dns/limits.h"
#include "dns/writer.h"

namespace qeli::dns {

std::string cache_key(const Question& q, bool dnssec_ok, bool checking_disabled) {
  std::string k = q.name;
  k.push_back(static_cast<char>(q.qtype >> 8));
  k.push_back(static_cast<char>(q.qtype));
  k.push_back(static_cast<char>(q.qclass >> 8));
  k.push_back(static_cast<char>(q.qclass));
  k.push_back(static_cast<char>((dnssec_ok ? 1 : 0) | (checking_disabled ? 2 : 0)));
  return k;
}

std::chrono::seconds cache_lifetime(const Response& r) {
  using std::chrono::seconds;
  if ((r.header.flags & flag::kTc) != 0) return seconds{0};
  const Rcode rc = r.header.rcode();
  if (rc == Rcode::kNoError && r.header.ancount > 0) {
    return std::min(seconds{r.min_ttl}, kMaxTtl);
  }
  if (rc == Rcode::kNxDomain || rc == Rcode::kNoError) {
    return r.has_soa ? std::min(seconds{r.soa_negative_ttl}, kMaxNegativeTtl) : seconds{0};
  }
  return seconds{0};
}

bool Cache::store(const std::string& key, ByteSpan msg, const Response& r, Instant now) {
  if (capacity_ == 0 || msg.size() > kMaxCachedMessage) return false;
  const auto life = cache_lifetime(r);
  if (life <= std::chrono::seconds{0}) return false;
  if (auto it = index_.find(key); it != index_.end()) erase(it->second);
  while (index_.size() >= capacity_) erase(std::prev(lru_.end()));
  Entry e;
  e.key = key;
  e.message.assign(msg.begin(), msg.end());
  set_id(e.message, 0);
  e.ttl_offsets = r.ttl_offsets;
  e.question_end = r.question_end;
  e.stored = now;
  e.expires = now + life;
  lru_.push_front(std::move(e));
  index_.emplace(key, lru_.begin());
  return true;
}

std::optional<Cache::Hit> Cache::lookup(const std::string& key, Instant now) {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  const List::iterator e = it->second;
  if (now >= e->expires) {
    erase(e);
    return std::nullopt;
  }
  lru_.splice(lru_.begin(), lru_, e);
  Hit hit{e->message, e->question_end};
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - e->stored);
  if (elapsed.count() > 0) {
    age_ttls(hit.message, e->ttl_offsets, static_cast<std::uint32_t>(elapsed.count()));
  }
  return hit;
}

void Cache::erase(List::iterator it) {
  index_.erase(it->key);
  lru_.erase(it);
}

}  // namespace qeli::dns
