// VerifiedSources: the UDP source addresses (IP and port) that proved, with a valid cookie
// (server/cookie_jar.h), that they receive what is sent to them. Their hellos may use all
// of the server's login slots; other hellos only the unverified share
// (server/verify_budget.h). Only a valid cookie adds an entry, so a spoofer cannot fill
// it; it is bounded anyway (kMaxVerifiedSources, the least recently used goes first) and
// an entry lasts kCookieRotation from its proof — as long as a cookie is good for.
//
// Sans-I/O; one worker thread owns it. A lookup allocates nothing; add() allocates a node
// (it runs once per valid cookie, which costs the sender a round trip).
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>

#include "base/clock.h"
#include "server/cookie_jar.h"
#include "transport/sock_addr.h"

namespace qeli::server {

/// Per worker: 4096 × ~100 bytes.
inline constexpr std::size_t kMaxVerifiedSources = 4096;

class VerifiedSources {
 public:
  explicit VerifiedSources(std::size_t capacity = kMaxVerifiedSources,
                           Duration lifetime = kCookieRotation);

  /// Marks `a` verified from `now` on (again: renewed), evicting the least recently
  /// used entry when full. True if `a` was not verified at `now` before.
  bool add(const transport::SockAddr& a, Instant now);
  /// True iff `a` is verified at `now`; a hit becomes the most recently used, an expired
  /// entry is removed.
  bool contains(const transport::SockAddr& a, Instant now);

  std::size_t size() const { return map_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    transport::SockAddr addr;
    Instant until;
  };
  using Lru = std::list<Entry>;  // most recently used first

  std::size_t capacity_;
  Duration lifetime_;
  Lru lru_;
  std::unordered_map<transport::SockAddr, Lru::iterator, transport::SockAddrHash> map_;
};

}  // namespace qeli::server
