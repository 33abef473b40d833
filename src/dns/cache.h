// The answer cache: at most `capacity` answers, least recently used evicted first, each
// kept only as long as its TTLs allow (RFC 1035 §7.4) and handed out with its TTLs aged
// by the time it spent here, so a client never caches an answer for longer than the
// authority said. Negative answers (NXDOMAIN, NODATA) are cached for the time their
// authority SOA gives (RFC 2308 §5), and not at all without one.
//
// Not thread-safe: owned by one resolver.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "dns/message.h"

namespace qeli::dns {

/// What the cache files an answer under: the question (name, type, class) and the two
/// query bits that change the answer's content (DNSSEC OK, checking disabled).
std::string cache_key(const Question& q, bool dnssec_ok, bool checking_disabled);

/// How long `r` may be cached; zero = not at all. Positive answers: their smallest TTL,
/// at most kMaxTtl. NXDOMAIN / NODATA: min(SOA TTL, SOA MINIMUM) of the authority SOA, at
/// most kMaxNegativeTtl; zero without an SOA. Truncated answers and every other rcode
/// (SERVFAIL, REFUSED, ...) are not cached.
std::chrono::seconds cache_lifetime(const Response& r);

class Cache {
 public:
  explicit Cache(std::size_t capacity) : capacity_(capacity) {}

  /// Files `msg` (parsed as `r`) under `key` if cache_lifetime(r) > 0 and it is at most
  /// kMaxCachedMessage bytes; replaces an older entry of the same key. Returns whether
  /// it was stored.
  bool store(const std::string& key, ByteSpan msg, const Response& r, Instant now);

  struct Hit {
    Bytes message;  ///< ID zero, TTLs aged to `now`
    std::size_t question_end = 0;
  };
  /// The answer filed under `key`, if it has not expired (an expired one is dropped).
  std::optional<Hit> lookup(const std::string& key, Instant now);

  std::size_t size() const { return index_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::string key;
    Bytes message;
    std::vector<std::uint32_t> ttl_offsets;
    std::size_t question_end = 0;
    Instant stored;
    Instant expires;
  };
  using List = std::list<Entry>;
  void erase(List::iterator it);

  std::size_t capacity_;
  List lru_;  ///< most recently used first
  std::unordered_map<std::string, List::iterator> index_;
};

}  // namespace qeli::dns
