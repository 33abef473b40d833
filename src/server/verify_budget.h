// VerifyBudget: how many UDP logins the server lets past the ClientHello at once, so that
// each one's AUTH is verified soon after it arrives. A login storm then waits before its
// key agreement (an unanswered hello is retransmitted) instead of after AUTH, where
// silence is how a UDP server refuses (qeli 0.7.16) and a client counts a strike.
//
// One budget for the whole server (AuthGuard owns it beside the Argon2id gate it sizes):
// kPendingPerVerifier logins per verification that runs at once — with ~55 ms of CPU per
// Argon2id at the default cost, the last one waits ~2 s, inside the server's handshake
// timeout (10 s) and a client's AUTH patience. A slot is held by a half-open handshake
// (server/udp_half_open.h) from its admitted hello until it becomes a session or goes; one
// still waiting for its AUTH kAuthGrace (1 s) after its hello gives its slot back, so hellos
// from spoofed sources (which never see the reply and never send AUTH) hold a slot for
// that long only. bench/load/run.sh: 1000 clients at once over UDP went from 490
// connected in 260 s (the rest stopped for good after three "refusals") to 1000 in 73–80 s.
//
// Shares (issue 21, spoofed-hello floods): a hello from a source that has not proved it
// receives (no cookie, server/cookie_jar.h) may take a slot only while fewer than
// unverified_limit() = limit / 2 are in use; one from a verified source (or any hello when
// the server sends no challenges) may take any. So hellos from spoofed sources, which never
// see a challenge, fill half the slots at most, and a client that answers one gets in.
//
// Threading: try_take / give_back from any thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "base/clock.h"

namespace qeli::server {

inline constexpr std::size_t kPendingPerVerifier = 32;
inline constexpr Duration kAuthGrace = std::chrono::seconds(1);

/// Which slots a hello may take: all of them, or only while the unverified share lasts.
enum class SlotShare : std::uint8_t { kAll, kUnverified };

class VerifyBudget {
 public:
  explicit VerifyBudget(std::size_t limit)
      : limit_(std::max<std::size_t>(1, limit)),
        unverified_limit_(std::max<std::size_t>(1, limit_ / 2)) {}
  /// Takes one slot; false when `share`'s are all in use.
  bool try_take(SlotShare share = SlotShare::kAll) {
    const std::size_t cap = cap_of(share);
    std::size_t n = in_use_.load();
    do {
      if (n >= cap) return false;
    } while (!in_use_.compare_exchange_weak(n, n + 1));
    return true;
  }
  void give_back() { in_use_.fetch_sub(1); }
  bool available(SlotShare share = SlotShare::kAll) const { return in_use_.load() < cap_of(share); }
  std::size_t in_use() const { return in_use_.load(); }
  std::size_t limit() const { return limit_; }
  /// The most slots unverified hellos may hold together: limit / 2 (at least 1).
  std::size_t unverified_limit() const { return unverified_limit_; }

 private:
  std::size_t cap_of(SlotShare s) const {
    return s == SlotShare::kAll ? limit_ : unverified_limit_;
  }
  const std::size_t limit_;
  const std::size_t unverified_limit_;
  std::atomic<std::size_t> in_use_{0};
};

/// One slot of a VerifyBudget, given back when destroyed. Move-only.
class VerifySlot {
 public:
  VerifySlot() = default;
  /// A slot of `b` within `share`, or nullopt when none is free.
  static std::optional<VerifySlot> take(VerifyBudget& b, SlotShare share = SlotShare::kAll) {
    if (!b.try_take(share)) return std::nullopt;
    VerifySlot s;
    s.budget_ = &b;
    return s;
  }
  VerifySlot(VerifySlot&& o) noexcept : budget_(std::exchange(o.budget_, nullptr)) {}
  VerifySlot& operator=(VerifySlot&& o) noexcept {
    if (this != &o) {
      release();
      budget_ = std::exchange(o.budget_, nullptr);
    }
    return *this;
  }
  VerifySlot(const VerifySlot&) = delete;
  VerifySlot& operator=(const VerifySlot&) = delete;
  ~VerifySlot() { release(); }
  bool held() const { return budget_ != nullptr; }
  void release() {
    if (budget_ != nullptr) budget_->give_back();
    budget_ = nullptr;
  }

 private:
  VerifyBudget* budget_ = nullptr;
};

}  // namespace qeli::server
