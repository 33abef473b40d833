// UdpHalfOpenTable: a UDP worker's handshakes that have not become sessions yet, one per
// client address (qeli 0.7.16 §3.9: at most 1024 per worker, the oldest evicted).
//
// Eviction prefers the oldest entry that has not got as far as a ClientHello (no key
// agreement was spent on it), so a flood of partial hellos never pushes out a real client
// waiting for its AUTH verdict; failing that, the oldest. Each entry carries a serial so
// an AUTH verdict that comes back after its handshake was evicted (and the address reused
// by a new one) is recognised as stale.
//
// Verification slots (server/verify_budget.h): an entry whose ClientHello was admitted
// holds one until it leaves, or until it has waited kAuthGrace for its AUTH.
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
#include "server/verify_budget.h"
#include "transport/sock_addr.h"

namespace qeli::server {

struct UdpHalfOpen {
  std::unique_ptr<handshake::UdpServerHandshake> hs;
  std::uint64_t serial = 0;  ///< unique per table, never 0
  Instant created;
  VerifySlot slot;         ///< held from its admitted hello (server/verify_budget.h)
  Instant slot_since{};    ///< when it took the slot
  bool verifying = false;  ///< its AUTH is being verified
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
  /// Gives back the slots of entries still waiting for their AUTH `grace` after they
  /// took one (the entries stay: a slow client's AUTH is still verified). Returns how many.
  std::size_t release_stale_slots(Instant now, Duration grace) {
    std::size_t n = 0;
    for (auto& [addr, h] : map_) {
      if (h.slot.held() && !h.verifying && now - h.slot_since >= grace) {
        h.slot.release();
        ++n;
      }
    }
    return n;
  }
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
  Map map_;
};

}  // namespace qeli::server
