// EventQueue: the bounded queue of a libqeli handle's events (ABI 1.x), polled by the app.
// Not thread-safe on its own: FfiClient guards it with its lock.
//
// Bounded, with room kept for what cannot wait: a request (plan, protect, identity) waits
// for room (the run blocks until the app polls); a state change or an error that must get
// through (a stop, a failure) makes room by dropping the oldest state change first — the
// app can always read the current state with qeli_client_state — and only then the oldest
// event of any kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace qeli::ffi {

enum class EventKind : std::uint32_t {
  kStateChanged = 1,
  kNetworkPlan = 2,
  kError = 3,
  kSocketProtect = 4,
  kServerIdentity = 5,
};

enum class PayloadFormat : std::uint32_t { kNone = 0, kJson = 1, kUtf8 = 2 };

struct Event {
  EventKind kind = EventKind::kStateChanged;
  std::uint32_t state = 0;  ///< the handle's state when queued
  PayloadFormat format = PayloadFormat::kNone;
  std::uint64_t sequence = 0;
  std::uint64_t plan_generation = 0;
  std::int32_t error_code = 0;
  std::string payload;
};

class EventQueue {
 public:
  explicit EventQueue(std::size_t capacity) : capacity_(capacity) {}
  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return q_.size(); }
  std::size_t room() const { return capacity_ - q_.size(); }
  bool empty() const { return q_.empty(); }

  /// Numbers `e` (sequence 1, 2, …) and queues it if there is room; its sequence or 0.
  std::uint64_t try_push(Event e);
  /// Queues `e`, making room as the header says; its sequence.
  std::uint64_t force_push(Event e);
  const Event& front() const { return q_.front(); }
  void pop() { q_.pop_front(); }
  void clear() { q_.clear(); }

 private:
  const std::size_t capacity_;
  std::deque<Event> q_;
  std::uint64_t next_sequence_ = 1;
};

}  // namespace qeli::ffi
