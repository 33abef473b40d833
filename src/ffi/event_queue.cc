#include "ffi/event_queue.h"

#include <algorithm>

namespace qeli::ffi {

std::uint64_t EventQueue::try_push(Event e) {
  if (q_.size() >= capacity_) return 0;
  e.sequence = next_sequence_++;
  q_.push_back(std::move(e));
  return q_.back().sequence;
}

std::uint64_t EventQueue::force_push(Event e) {
  if (q_.size() >= capacity_) {
    auto it = std::find_if(q_.begin(), q_.end(),
                           [](const Event& x) { return x.kind == EventKind::kStateChanged; });
    q_.erase(it != q_.end() ? it : q_.begin());
  }
  return try_push(std::move(e));
}

}  // namespace qeli::ffi
