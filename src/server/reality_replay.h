// The REALITY replay cache (reference §4.1): a session_id token accepted once is refused
// for kRealityReplaySecs (240 s, twice the ±120 s window, so a token is remembered for
// all of its validity); a replayed hello is treated as a stranger and bridged.
//
// Our improvement over 0.7.16 (whose cache is in memory and lost on restart): with a
// file, every accepted token is appended to it (32-byte token ‖ u64 LE expiry, wall-clock
// seconds) before the client is answered, and the file is read back at start, so a hello
// captured before a restart is still refused after it. The file is opened once at start
// (before privileges are dropped) and compacted in place through that descriptor.
//
// Thread-safe (one mutex; a lookup per accepted hello). Bounded: at most `max_entries`
// live tokens; past it the oldest is forgotten first (0.7.16 evicts FIFO as well).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_set>

#include "base/result.h"
#include "transport/unique_fd.h"
#include "wire/reality_token.h"

namespace qeli::server {

class RealityReplayCache {
 public:
  explicit RealityReplayCache(std::uint64_t ttl_secs = wire::kRealityReplaySecs,
                              std::size_t max_entries = 1 << 17);

  /// Loads the live entries of `path` (created 0600 if missing) and keeps it open for
  /// appends. Error: why the file cannot be used (the cache then stays in memory).
  Status<std::string> attach(const std::string& path, std::uint64_t unix_now);

  /// True (and remembered) if `token` was not seen within the TTL; false for a replay.
  bool observe(const wire::RealityToken& token, std::uint64_t unix_now);

  std::size_t size() const;

 private:
  struct Entry {
    wire::RealityToken token;
    std::uint64_t expires;
  };
  struct Hash {
    std::size_t operator()(const wire::RealityToken& t) const;
  };
  void expire(std::uint64_t unix_now);
  void append(const Entry& e);
  void compact();

  std::uint64_t ttl_;
  std::size_t max_;
  mutable std::mutex mu_;
  std::deque<Entry> order_;  // by expiry (tokens are observed in time order)
  std::unordered_set<wire::RealityToken, Hash> seen_;
  transport::UniqueFd file_;
  std::size_t file_entries_ = 0;  // records in the file (live or not)
};

}  // namespace qeli::server
