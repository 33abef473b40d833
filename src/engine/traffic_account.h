// TrafficAccount: one user's traffic as the data path sees it, shared by every session of
// that user (all profiles, both carriers) — a per-direction byte-rate limit and the
// running download total checked against a quota.
//
// The data path touches it once per batch, without locks or allocations: a relaxed
// fetch_add for the totals and, only while a rate is set, one compare-and-swap on the
// direction's GCRA state (the generic cell rate algorithm, ITU-T I.371 §4.4.2, counted in
// bytes: a bucket of `burst` bytes refilled at `rate` bytes/s; deficit carried over, so
// a 64 KiB super-packet through a 5 Mbit/s limit simply waits longer).
//
//   stream carriers (TCP): the sender/receiver thread sleeps for what charge() returns —
//     the inner TCP sees the rate, never a loss;
//   datagram uplink (a UDP worker serves many sessions and must not sleep): police()
//     drops what is over the bucket, and the inner TCP adapts to the loss.
//
// Limits may change at any time (`qeli set-bandwidth`, reload); the control plane reads
// and resets the totals.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "base/clock.h"

namespace qeli::engine {

/// A byte-rate limit shared by threads: 0 bytes/s = unlimited.
class RateLimiter {
 public:
  /// `bytes_per_sec` 0 = unlimited; `burst_bytes` the bucket (≥ 1).
  void set(std::uint64_t bytes_per_sec, std::uint64_t burst_bytes);
  std::uint64_t rate() const { return rate_.load(std::memory_order_relaxed); }

  /// Charges `bytes` sent at `now` and returns how long the caller must wait before the
  /// next send to stay within the rate (zero while within the bucket).
  Duration charge(std::uint64_t bytes, Instant now);
  /// Takes `bytes` only if they fit the bucket at `now`; false = drop them.
  bool police(std::uint64_t bytes, Instant now);

 private:
  std::int64_t step(std::uint64_t bytes, Instant now, bool police);

  std::atomic<std::uint64_t> rate_{0};
  std::atomic<std::int64_t> tolerance_ns_{0};  ///< burst as time: burst / rate
  /// Theoretical arrival time (ns on the steady clock) of the next conforming byte.
  std::atomic<std::int64_t> tat_ns_{0};
};

class TrafficAccount {
 public:
  static constexpr std::uint64_t kNoQuota = ~std::uint64_t{0};

  /// `down_total`/`up_total`: what the store already holds for the user (lifetime).
  TrafficAccount(std::uint64_t down_total, std::uint64_t up_total)
      : down_total_(down_total), up_total_(up_total) {}

  /// Server → client bytes (the user's download). Returns the wait before the next send.
  Duration on_send(std::uint64_t bytes, Instant now) {
    down_total_.fetch_add(bytes, std::memory_order_relaxed);
    return down_limit_.rate() == 0 ? Duration::zero() : down_limit_.charge(bytes, now);
  }
  /// Client → server bytes on a carrier whose receiver may sleep (TCP).
  Duration on_receive(std::uint64_t bytes, Instant now) {
    up_total_.fetch_add(bytes, std::memory_order_relaxed);
    return up_limit_.rate() == 0 ? Duration::zero() : up_limit_.charge(bytes, now);
  }
  /// Client → server bytes on a shared receiver (UDP worker): false = drop the packet.
  bool admit_receive(std::uint64_t bytes, Instant now) {
    if (up_limit_.rate() != 0 && !up_limit_.police(bytes, now)) return false;
    up_total_.fetch_add(bytes, std::memory_order_relaxed);
    return true;
  }
  /// The download total reached the quota (data_limit_gb): end the user's sessions.
  bool quota_exhausted() const {
    return down_total_.load(std::memory_order_relaxed) >= quota_.load(std::memory_order_relaxed);
  }

  // Control plane.
  void set_rate(std::uint64_t bytes_per_sec, std::uint64_t burst_bytes) {
    down_limit_.set(bytes_per_sec, burst_bytes);
    up_limit_.set(bytes_per_sec, burst_bytes);
  }
  std::uint64_t rate() const { return down_limit_.rate(); }
  /// Bytes a limited session may queue toward its client: 100 ms at the rate, at least
  /// two GSO super-packets.
  std::uint64_t queue_bytes() const { return std::max<std::uint64_t>(rate() / 10, 128 * 1024); }
  /// A new quota re-arms the `user.quota_reached` latch if the total is under it.
  void set_quota(std::uint64_t bytes) {
    quota_.store(bytes, std::memory_order_relaxed);
    rearm_if_under_quota();
  }
  /// The `user.quota_reached` latch: true once per crossing of the quota (the first
  /// caller after it is reached). Re-armed only when the account is under its quota again
  /// (reset_totals(), a raised set_quota()), never by a login, so sessions racing a
  /// crossing cannot announce it twice.
  bool claim_quota_event() { return !quota_announced_.exchange(true); }
  std::uint64_t quota() const { return quota_.load(std::memory_order_relaxed); }
  std::uint64_t down_total() const { return down_total_.load(std::memory_order_relaxed); }
  std::uint64_t up_total() const { return up_total_.load(std::memory_order_relaxed); }
  /// `qeli usage --reset`: both totals back to zero.
  void reset_totals() {
    down_total_.store(0, std::memory_order_relaxed);
    up_total_.store(0, std::memory_order_relaxed);
    rearm_if_under_quota();
  }

 private:
  void rearm_if_under_quota() {
    if (!quota_exhausted()) quota_announced_.store(false);
  }

  RateLimiter down_limit_, up_limit_;
  std::atomic<std::uint64_t> down_total_, up_total_;
  std::atomic<std::uint64_t> quota_{kNoQuota};
  std::atomic<bool> quota_announced_{false};
};

}  // namespace qeli::engine
