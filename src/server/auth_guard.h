// AuthGuard: the server's defences around password checks (qeli 0.7.16 §3.4, §9).
//
// * per-source-IP hard lockout: `max_attempts` failures within `window` lock the IP out
//   for `lockout` (its handshakes are rejected before any Argon2 work);
// * per-username tarpit: once a name has `max_attempts` recent failures, each further
//   attempt first sleeps 200 ms, doubling per failure up to 3 s (a name is never locked,
//   so an attacker cannot lock a real user out);
// * a dummy Argon2id verify of equal cost for unknown users (no user-enumeration by time);
// * at most clamp(cores, 2, 8) Argon2id verifications at once (each takes 19 MiB).
//
// Thread-safe. Time is passed in (sans-I/O), so the policy is unit-tested with a fake clock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"

namespace qeli::server {

struct BruteForcePolicy {
  bool enabled = true;
  std::uint32_t max_attempts = 5;
  std::chrono::seconds window{300};
  std::chrono::seconds lockout{900};
};

class AuthGuard {
 public:
  explicit AuthGuard(BruteForcePolicy policy);

  /// True if `ip` (host order) is currently locked out.
  bool locked_out(std::uint32_t ip, Instant now);
  /// The tarpit delay to apply before checking `user`'s password (zero usually).
  Duration tarpit(const std::string& user, Instant now);
  /// Counts a failed login; true if this failure locked `ip` out (just now).
  bool record_failure(std::uint32_t ip, const std::string& user, Instant now);
  void record_success(std::uint32_t ip, const std::string& user);

  /// Verifies `password` against `phc` (or a dummy hash when `phc` is empty, returning
  /// false after the same work) under the global concurrency gate. Blocks.
  bool verify_password(const std::string& phc, const std::string& password);

  /// A source address that is locked out now (`qeli list-blocked`).
  struct Blocked {
    std::uint32_t ip = 0;        ///< host order
    Duration left{};             ///< until the lockout ends
    std::uint32_t failures = 0;  ///< failures in the window that locked it
  };
  /// Locked-out IPs right now, ordered by address.
  std::vector<Blocked> blocked(Instant now);
  std::size_t locked_count(Instant now);
  /// Lifts the lockout of `ip` and forgets its failures; false if it was not tracked.
  bool unblock(std::uint32_t ip);
  /// Lifts every lockout and forgets every failure (addresses and user names).
  void unblock_all();

 private:
  struct Record {
    std::uint32_t failures = 0;
    Instant window_start{};
    Instant locked_until{};
  };
  BruteForcePolicy policy_;
  std::mutex mu_;
  std::unordered_map<std::uint32_t, Record> ips_;
  std::unordered_map<std::string, Record> users_;
  // Argon2 gate.
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  int gate_free_;
};

}  // namespace qeli::server
