#include "engine/stream_bond.h"

#include <algorithm>
#include <bit>
#include <chrono>

#include "tunio/flow_hash.h"

namespace qeli::engine {

StreamBond::StreamBond(std::size_t max_streams, SessionInbox& primary,
                       SessionInbox::Geometry geometry, tunnel::SessionCounters& counters)
    : max_(std::clamp<std::size_t>(max_streams, 1, kMaxStreams)),
      primary_(primary),
      geometry_(geometry),
      counters_(counters),
      inboxes_(max_ + 1) {}

std::size_t StreamBond::live() const {
  return static_cast<std::size_t>(std::popcount(live_mask_.load(std::memory_order_acquire)));
}

std::optional<std::size_t> StreamBond::attach() {
  std::lock_guard lock(mu_);
  const std::uint64_t mask = live_mask_.load(std::memory_order_relaxed);
  if (closed_ || static_cast<std::size_t>(std::popcount(mask)) >= max_) return std::nullopt;
  // max_ + 1 slots: while the primary is dark its place in the count is free, but its
  // inbox belongs to the session, so a JOIN then takes the spare slot max_.
  for (std::size_t i = 1; i <= max_; ++i) {
    if ((mask & (std::uint64_t{1} << i)) != 0) continue;
    if (!inboxes_[i]) inboxes_[i] = std::make_unique<SessionInbox>(geometry_, counters_);
    // Published after the inbox exists: pick() reads the mask, then the slot.
    live_mask_.store(mask | (std::uint64_t{1} << i), std::memory_order_release);
    changed_.notify_all();
    return i;
  }
  return std::nullopt;  // unreachable: fewer than max_ live leaves a slot in 1..max_
}

SessionInbox& StreamBond::inbox(std::size_t slot) {
  return slot == 0 ? primary_ : *inboxes_.at(slot);
}

std::size_t StreamBond::detach(std::size_t slot) {
  std::lock_guard lock(mu_);
  const std::uint64_t mask =
      live_mask_.load(std::memory_order_relaxed) & ~(std::uint64_t{1} << slot);
  live_mask_.store(mask, std::memory_order_release);
  // The last one out closes the bond: the session is being torn down, and a JOIN that
  // found it a moment ago must not bring a stream back into it.
  if (mask == 0) closed_ = true;
  changed_.notify_all();
  return static_cast<std::size_t>(std::popcount(mask));
}

void StreamBond::wait_until_empty(const StopSignal& stop) {
  std::unique_lock lock(mu_);
  // The stop signal is an fd, not a condition: look at it a few times a second.
  while (live_mask_.load(std::memory_order_relaxed) != 0 && !stop.stopped()) {
    changed_.wait_for(lock, std::chrono::milliseconds(200));
  }
}

SessionInbox& StreamBond::pick(ByteSpan ip) {
  std::uint64_t mask = live_mask_.load(std::memory_order_acquire);
  if (mask == 1 || mask == 0) return primary_;
  const auto n = static_cast<std::uint32_t>(std::popcount(mask));
  std::uint32_t k = tunio::flow_hash(ip) % n;
  // The k-th live slot.
  while (k-- > 0) mask &= mask - 1;
  const auto slot = static_cast<std::size_t>(std::countr_zero(mask));
  return slot == 0 ? primary_ : *inboxes_[slot];
}

}  // namespace qeli::engine
