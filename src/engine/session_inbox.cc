#include "engine/session_inbox.h"

#include <utility>

namespace qeli::engine {

SessionInbox::SessionInbox(Geometry g, tunnel::SessionCounters& counters)
    : g_(g), counters_(counters), pending_(g.capacity, g.max_packet, g.headroom, g.tailroom) {}

tunio::PacketBatch SessionInbox::make_batch(std::size_t, std::size_t, std::size_t,
                                            std::size_t) const {
  return tunio::PacketBatch(g_.capacity, g_.max_packet, g_.headroom, g_.tailroom);
}

bool SessionInbox::push(ByteSpan packet, const tunio::GsoMetadata& meta) {
  const TrafficAccount* a = account_.load(std::memory_order_acquire);
  std::lock_guard lock(mu_);
  const bool over_rate = a != nullptr && a->rate() != 0 && pending_bytes_ != 0 &&
                         pending_bytes_ + packet.size() > a->queue_bytes();
  if (over_rate || !pending_.push(packet, meta)) {
    counters_.add(tunnel::SessionCounter::kDropQueueFull);
    return false;
  }
  pending_bytes_ += packet.size();
  return true;
}

bool SessionInbox::fill(tunio::PacketBatch& batch) {
  ready_.drain();
  std::lock_guard lock(mu_);
  if (pending_.empty()) return true;
  batch.clear();
  std::swap(batch, pending_);
  pending_bytes_ = 0;
  return true;
}

}  // namespace qeli::engine
