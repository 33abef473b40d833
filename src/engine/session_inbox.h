// SessionInbox: the bounded hand-off from a server's TUN reader threads to one session's
// send thread. Producers (any TUN queue reader) push copies of IPv4 packets; the send
// thread takes them all at once by swapping batches (no copy on that side). Overflow is
// a counted drop, never a wait: a slow client must not stall the TUN readers.
#pragma once

#include <atomic>
#include <mutex>

#include "engine/packet_source.h"
#include "engine/stop_signal.h"
#include "engine/traffic_account.h"
#include "tunio/packet_batch.h"
#include "tunnel/session_counters.h"

namespace qeli::engine {

class SessionInbox final : public PacketSource {
 public:
  struct Geometry {
    std::size_t capacity = 64;   ///< packets
    std::size_t max_packet = 0;  ///< bytes (the tunnel MTU ceiling)
    std::size_t headroom = 0;    ///< the writer's (tunnel::CarrierRoom::headroom)
    std::size_t tailroom = 0;    ///< the writer's tailroom for the profile's padding
  };
  SessionInbox(Geometry g, tunnel::SessionCounters& counters);

  /// Producer side (thread-safe). Returns false (and counts a drop) when full or when
  /// the packet is larger than max_packet. Call notify() once after a burst of pushes.
  bool push(ByteSpan packet, const tunio::GsoMetadata& meta = {});
  void notify() { ready_.notify(); }
  /// The user's limits (server): while it has a rate, at most its queue_bytes() wait
  /// here, so the sender's batches stay small against the rate and a flow over it sees
  /// drops at once (a shaper's short queue) instead of seconds of buffered burst.
  void set_account(const TrafficAccount* a) { account_.store(a, std::memory_order_release); }

  /// Consumer side (the session's send thread).
  int fd() const override { return ready_.fd(); }
  bool fill(tunio::PacketBatch& batch) override;

  /// A batch with the inbox's geometry (the arguments are ignored: the inbox's own
  /// geometry wins, since fill() swaps whole batches).
  tunio::PacketBatch make_batch(std::size_t packets, std::size_t max_packet, std::size_t headroom,
                                std::size_t tailroom) const override;

 private:
  Geometry g_;
  tunnel::SessionCounters& counters_;
  std::mutex mu_;
  tunio::PacketBatch pending_;
  std::size_t pending_bytes_ = 0;  ///< guarded by mu_
  std::atomic<const TrafficAccount*> account_{nullptr};
  Notifier ready_;
};

}  // namespace qeli::engine
