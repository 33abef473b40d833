// AuthGuard: the server's defences around password checks (qeli 0.7.16 §3.4, §9, and
// our change to what a lockout is keyed by: docs/OPERATIONS.md "Brute force").
//
// * per (source address, user) lockout: `max_attempts` failures of one user name from one
//   address within `window` lock that pair out for `lockout` (its AUTH is refused before
//   any Argon2 work). Another user behind the same address (a NAT, an office) is not
//   affected by someone else's typos;
// * per-address ceiling against spraying: `address_max_attempts` failures from one
//   address, whatever the user names, lock the whole address out (its connections are
//   closed before the handshake). With `per_address_only` (the 0.7.16 behaviour) the
//   address is locked after `max_attempts` failures instead;
// * per-username tarpit: once a name has `max_attempts` recent failures (from anywhere),
//   each further attempt first sleeps 200 ms, doubling per failure up to 3 s (a name is
//   never locked by itself, so an attacker cannot lock a real user out from elsewhere);
// * a dummy Argon2id verify of equal cost for unknown users (no user-enumeration by time);
// * at most clamp(cores, 2, 8) Argon2id verifications at once (each takes 19 MiB).
//
// Attempts refused because of a lockout are not failures (nothing was verified), so a
// lockout ends `lockout` after the failure that caused it. Memory is bounded: at most
// kMaxTracked addresses, pairs and names each.
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
#include "server/source_key.h"
#include "server/verify_budget.h"

namespace qeli::server {

struct BruteForcePolicy {
  bool enabled = true;
  std::uint32_t max_attempts = 5;  ///< per (address, user) pair
  std::chrono::seconds window{300};
  std::chrono::seconds lockout{900};
  std::uint32_t address_max_attempts = 20;  ///< per address, any user names
  bool per_address_only = false;            ///< 0.7.16: lock the address after max_attempts
};

class AuthGuard {
 public:
  explicit AuthGuard(BruteForcePolicy policy);

  /// True if the whole source `ip` (an address, or an IPv6 /64) is locked out now (checked before
  /// the handshake: no key agreement for it).
  bool locked_out(SourceKey ip, Instant now);
  /// True if `user` from `ip` may not log in now: the pair or the whole address is locked.
  bool locked_out(SourceKey ip, const std::string& user, Instant now);
  /// The tarpit delay to apply before checking `user`'s password (zero usually).
  Duration tarpit(const std::string& user, Instant now);
  /// Counts a failed login; true if this failure locked the pair or the address (just now).
  bool record_failure(SourceKey ip, const std::string& user, Instant now);
  /// A successful login: forgets the pair's failures and the name's tarpit (the address's
  /// count stays: one valid account must not reset a spraying ceiling).
  void record_success(SourceKey ip, const std::string& user);

  /// Verifies `password` against `phc` (or a dummy hash when `phc` is empty, returning
  /// false after the same work) under the global concurrency gate (cores, 2..8, at once;
  /// the rest wait in arrival order, so under a login storm no one waits past the ones
  /// that came before it — a client's handshake timeout bounds how long it may). Blocks.
  bool verify_password(const std::string& phc, const std::string& password);
  /// How many verify_password calls run at once (the rest queue).
  std::size_t verify_concurrency() const { return gate_width_; }
  /// The server's UDP login slots, kPendingPerVerifier per verification that runs at once
  /// (server/verify_budget.h).
  VerifyBudget& verify_budget() { return budget_; }

  /// A lockout in force now (`qeli list-blocked`).
  struct Blocked {
    SourceKey ip = 0;            ///< the address, or the IPv6 /64
    std::string user;            ///< empty: the whole address
    Duration left{};             ///< until the lockout ends
    std::uint32_t failures = 0;  ///< failures in the window that locked it
  };
  /// Lockouts in force now, ordered by address, the whole-address one first.
  std::vector<Blocked> blocked(Instant now);
  std::size_t locked_count(Instant now);
  /// Lifts every lockout of `ip` (the address's and its pairs') and forgets its failures;
  /// false if it was not tracked.
  bool unblock(SourceKey ip);
  /// Lifts every lockout and forgets every failure (addresses, pairs and user names).
  void unblock_all();

  const BruteForcePolicy& policy() const { return policy_; }

 private:
  struct Record {
    std::uint32_t failures = 0;
    Instant window_start{};
    Instant locked_until{};
  };
  struct PairKey {
    SourceKey ip;
    std::string user;
    friend bool operator==(const PairKey&, const PairKey&) = default;
  };
  struct PairHash {
    std::size_t operator()(const PairKey& k) const;
  };
  void bump(Record& r, Instant now) const;

  BruteForcePolicy policy_;
  std::mutex mu_;
  std::unordered_map<SourceKey, Record> ips_;
  std::unordered_map<PairKey, Record, PairHash> pairs_;
  std::unordered_map<std::string, Record> users_;
  // Argon2 gate: a FIFO of tickets, gate_width_ of them verifying at once.
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  const std::uint64_t gate_width_;
  std::uint64_t gate_issued_ = 0;    ///< tickets handed out
  std::uint64_t gate_finished_ = 0;  ///< verifications done
  VerifyBudget budget_;
};

}  // namespace qeli::server
