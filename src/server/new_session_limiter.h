// NewSessionLimiter: the per-source-IP new-session rate limit of a profile (0.7.16 §3.9
// "Server defences": `perf.connection.new_session_rate_max` new sessions per
// `…_window_secs`, defaults 10 per 60 s; docs/CONFIG.md, docs/OPERATIONS.md).
//
// A "new session" is a complete, distinct UDP ClientHello of ≥ 1200 bytes that is about
// to cost the server its key agreement (X25519 + ML-KEM-768); junk, short hellos and
// retransmits of a hello already answered never reach it. The key is the source's
// SourceKey (its IPv4 address, or the /64 of an IPv6 one), never the port (one host may
// open many ports, and the kernel may spread them over workers, so one limiter serves all
// the workers of a profile).
//
// Each tracked address holds a TokenBucket::per_window(max, window): a burst of `max`,
// then one more every window / max. Memory is bounded: at most `max_tracked` addresses;
// an address whose bucket is full again is forgotten, and when the table is full the
// least recently seen address is evicted (an attacker with more addresses than that can
// only make the limit forget, never grow memory).
//
// Thread-safe: one mutex guards the table; it is taken once per new ClientHello, never
// per data datagram.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>

#include "base/clock.h"
#include "server/source_key.h"
#include "server/token_bucket.h"

namespace qeli::server {

/// Addresses tracked at once (~100 bytes each).
inline constexpr std::size_t kNewSessionMaxTracked = 16384;

struct NewSessionLimits {
  std::uint32_t max_per_window = 10;           ///< ≥ 1 (validated by the config layer)
  Duration window = std::chrono::seconds(60);  ///< > 0
  std::size_t max_tracked = kNewSessionMaxTracked;
};

class NewSessionLimiter {
 public:
  explicit NewSessionLimiter(NewSessionLimits limits);

  /// Counts one new session from `ip` at `now` if it is within the limit. True = admit;
  /// false = over the limit (the caller drops it silently and counts it).
  bool admit(SourceKey ip, Instant now);
  /// Addresses currently tracked (≤ max_tracked).
  std::size_t tracked() const;
  /// Addresses evicted because the table was full.
  std::uint64_t evicted() const;

 private:
  struct Entry {
    SourceKey ip;
    TokenBucket bucket;
  };
  NewSessionLimits limits_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  ///< most recently seen first (guarded by mu_)
  std::unordered_map<SourceKey, std::list<Entry>::iterator> index_;  ///< guarded by mu_
  std::uint64_t evicted_ = 0;                                        ///< guarded by mu_
};

}  // namespace qeli::server
