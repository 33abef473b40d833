#include "server/event_log.h"

#include <algorithm>
#include <chrono>

#include "base/bytes.h"
#include "crypto/random.h"

namespace qeli::server {

EventLog::EventLog() {
  std::array<std::uint8_t, 8> b{};
  crypto::system_rng().fill(b);
  boot_ = to_hex(b);
}

void EventLog::push(control::Event e) {
  e.unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  control::Event copy;
  {
    std::lock_guard lock(mu_);
    e.seq = next_seq_++;
    if (observer_) copy = e;
    ring_.push_back(std::move(e));
    if (ring_.size() > kCapacity) ring_.pop_front();
  }
  if (observer_) observer_(copy);
}

control::EventList EventLog::since(std::uint64_t after, std::uint32_t limit) const {
  control::EventList out;
  out.boot = boot_;
  std::lock_guard lock(mu_);
  out.last_seq = next_seq_ - 1;
  auto it = std::upper_bound(ring_.begin(), ring_.end(), after,
                             [](std::uint64_t a, const control::Event& e) { return a < e.seq; });
  for (; it != ring_.end() && out.events.size() < limit; ++it) out.events.push_back(*it);
  return out;
}

}  // namespace qeli::server
