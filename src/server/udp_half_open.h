// UdpHalfOpenTable: a UDP worker's handshakes that have not become sessions yet, one per
// client address (qeli 0.7.16 §3.9: at most 1024 per worker, the oldest evicted).
//
// Eviction prefers the oldest entry that has not got as far as a ClientHello (no key
// agreement was spent on it), so a flood of partial hellos never pushes out a real client
// waiting for its AUTH verdict; failing that, the oldest. Each entry carries a serial so
// an AUTH verdict that comes back after its handshake was evicted (and the address reused
// by a new one) is recognised as stale.
//
// Verification slots: an entry whose ClientHello was admitted holds one (VerifySlot) until
// it leaves; the worker admits a new hello only while verifying() is under its share, so
// a login storm waits before its key agreement (silently: the hello is retransmitted),
// never after AUTH, where silence reads as a refusal to a client (0.7.16 §3.9).
//
// Threading: one worker thread owns the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

#include "base/clock.h"
#include "handshake/udp_server_handshake.h"
#include "transport/sock_addr.h"

namespace qeli::server {

/// A share of a worker's verification capacity, held by a half-open handshake from the
/// moment its ClientHello is admitted until it leaves the table (it became a session, got
/// its verdict, failed, expired or was evicted). Move-only; gives the share back when it
/// is destroyed.
class VerifySlot {
 public:
  VerifySlot() = default;
  explicit VerifySlot(std::size_t& in_use) : in_use_(&in_use) { ++*in_use_; }
  VerifySlot(VerifySlot&& o) noexcept : in_use_(std::exchange(o.in_use_, nullptr)) {}
  VerifySlot& operator=(VerifySlot&& o) noexcept {
    if (this != &o) {
      release();
      in_use_ = std::exchange(o.in_use_, nullptr);
    }
    return *this;
  }
  VerifySlot(const VerifySlot&) = delete;
  VerifySlot& operator=(const VerifySlot&) = delete;
  ~VerifySlot() { release(); }
  bool held() const { return in_use_ != nullptr; }

 private:
  void release() {
    if (in_use_ != nullptr) --*in_use_;
    in_use_ = nullptr;
  }
  std::size_t* in_use_ = nullptr;
};

struct UdpHalfOpen {
  std::unique_ptr<handshake::UdpServerHandshake> hs;
  std::uint64_t serial = 0;  ///< unique per table, never 0
  Instant created;
  VerifySlot slot;  ///< held once its hello was admitted (UdpHalfOpenTable::hold_slot)
};

class UdpHalfOpenTable {
 public:
  using Map = std::unordered_map<transport::SockAddr, UdpHalfOpen, transport::SockAddrHash>;

  /// `capacity` ≥ 1 handshakes at most.
  explicit UdpHalfOpenTable(std::size_t capacity);

  /// The handshake of `addr`, or null.
  UdpHalfOpen* find(const transport::SockAddr& addr);
  bool contains(const transport::SockAddr& addr) const { return map_.contains(addr); }
  /// Files `hs` under `addr` (which must have none) with a fresh serial, evicting one
  /// entry first when the table is full (see the header). `evicted` tells whether it did.
  UdpHalfOpen& insert(const transport::SockAddr& addr,
                      std::unique_ptr<handshake::UdpServerHandshake> hs, Instant now,
                      bool& evicted);
  void erase(const transport::SockAddr& addr) { map_.erase(addr); }
  /// Gives `h` (an entry of this table) a verification slot if it has none.
  void hold_slot(UdpHalfOpen& h) {
    if (!h.slot.held()) h.slot = VerifySlot(verifying_);
  }
  /// Entries holding a slot: admitted hellos not yet a session or gone.
  std::size_t verifying() const { return verifying_; }
  Map::iterator erase(Map::iterator it) { return map_.erase(it); }
  void clear() { map_.clear(); }

  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  std::size_t capacity() const { return capacity_; }
  Map::iterator begin() { return map_.begin(); }
  Map::iterator end() { return map_.end(); }

  /// Fires the timers of handshakes whose deadline passed (retransmits: `send(addr,
  /// datagrams)`), then drops those that failed or are older than `ttl`.
  template <class Send>
  void sweep(Instant now, Duration ttl, Send&& send) {
    for (auto it = map_.begin(); it != map_.end();) {
      UdpHalfOpen& h = it->second;
      if (auto d = h.hs->deadline(); d && now >= *d) {
        h.hs->on_timer(now);
        send(it->first, h.hs->take_datagrams());
      }
      if (h.hs->state() == handshake::State::kFailed || now - h.created > ttl) {
        it = map_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  void evict_one();

  std::size_t capacity_;
  std::uint64_t next_serial_ = 1;
  std::size_t verifying_ = 0;  // before map_: the entries' slots point here
  Map map_;
};

}  // namespace qeli::server
