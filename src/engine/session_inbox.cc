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
  std::lock_guard lock(mu_);
  if (!pending_.push(packet, meta)) {
    counters_.add(tunnel::SessionCounter::kDropQueueFull);
    return false;
  }
  return true;
}

bool SessionInbox::fill(tunio::PacketBatch& batch) {
  ready_.drain();
  std::lock_guard lock(mu_);
  if (pending_.empty()) return true;
  batch.clear();
  std::swap(batch, pending_);
  return true;
}

}  // namespace qeli::engine
