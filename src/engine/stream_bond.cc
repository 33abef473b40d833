#include "engine/stream_bond.h"

#include <algorithm>
#include <bit>
#include <chrono>

#include <sys/socket.h>

#include "tunio/flow_hash.h"

namespace qeli::engine {

StreamBond::StreamBond(std::size_t max_streams, SessionInbox& primary,
                       SessionInbox::Geometry geometry, tunnel::SessionCounters& counters)
    : max_(std::clamp<std::size_t>(max_streams, 1, kMaxStreams)),
      primary_(primary),
      geometry_(geometry),
      counters_(counters),
      inboxes_(max_ + 1),
      sockets_(max_ + 1, -1),
      attached_at_(max_ + 1, 0) {}

std::size_t StreamBond::live() const {
  return static_cast<std::size_t>(std::popcount(live_mask_.load(std::memory_order_acquire)));
}

std::optional<std::size_t> StreamBond::attach(bool replace,
                                              std::chrono::milliseconds replace_wait) {
  std::unique_lock lock(mu_);
  if (closed_) return std::nullopt;
  if (static_cast<std::size_t>(std::popcount(live_mask_.load(std::memory_order_relaxed))) >= max_) {
    if (!replace) return std::nullopt;
    // The oldest live stream goes: its thread sees the socket fail and detaches.
    const std::uint64_t mask = live_mask_.load(std::memory_order_relaxed);
    std::size_t victim = 0;
    bool found = false;
    for (std::size_t i = 0; i <= max_; ++i) {
      if ((mask & (std::uint64_t{1} << i)) == 0) continue;
      if (!found || attached_at_[i] < attached_at_[victim]) victim = i;
      found = true;
    }
    if (sockets_[victim] >= 0) ::shutdown(sockets_[victim], SHUT_RDWR);
    const bool freed = changed_.wait_for(lock, replace_wait, [&] {
      return closed_ || static_cast<std::size_t>(
                            std::popcount(live_mask_.load(std::memory_order_relaxed))) < max_;
    });
    if (!freed || closed_) return std::nullopt;
  }
  const std::uint64_t mask = live_mask_.load(std::memory_order_relaxed);
  // max_ + 1 slots: while the primary is dark its place in the count is free, but its
  // inbox belongs to the session, so a JOIN then takes the spare slot max_.
  for (std::size_t i = 1; i <= max_; ++i) {
    if ((mask & (std::uint64_t{1} << i)) != 0) continue;
    if (!inboxes_[i]) inboxes_[i] = std::make_unique<SessionInbox>(geometry_, counters_);
    sockets_[i] = -1;
    attached_at_[i] = ++attach_seq_;
    // Published after the inbox exists: pick() reads the mask, then the slot.
    live_mask_.store(mask | (std::uint64_t{1} << i), std::memory_order_release);
    changed_.notify_all();
    return i;
  }
  return std::nullopt;  // unreachable: fewer than max_ live leaves a slot in 1..max_
}

void StreamBond::set_socket(std::size_t slot, int fd) {
  std::lock_guard lock(mu_);
  if (slot < sockets_.size()) sockets_[slot] = fd;
}

SessionInbox& StreamBond::inbox(std::size_t slot) {
  return slot == 0 ? primary_ : *inboxes_.at(slot);
}

std::size_t StreamBond::detach(std::size_t slot, bool keep_open) {
  std::lock_guard lock(mu_);
  const std::uint64_t mask =
      live_mask_.load(std::memory_order_relaxed) & ~(std::uint64_t{1} << slot);
  live_mask_.store(mask, std::memory_order_release);
  if (slot < sockets_.size()) sockets_[slot] = -1;
  // The last one out closes the bond: the session is being torn down, and a JOIN that
  // found it a moment ago must not bring a stream back into it. A resumable session
  // stays open for its grace period (close_if_empty ends it).
  if (mask == 0 && !keep_open) closed_ = true;
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

bool StreamBond::wait_for_stream(const StopSignal& stop, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  while (live_mask_.load(std::memory_order_relaxed) == 0) {
    if (stop.stopped() || closed_ || std::chrono::steady_clock::now() >= until) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(200));
  }
  return true;
}

bool StreamBond::close_if_empty() {
  std::lock_guard lock(mu_);
  if (live_mask_.load(std::memory_order_relaxed) != 0) return false;
  closed_ = true;
  changed_.notify_all();
  return true;
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
