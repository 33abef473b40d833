#include "engine/tun_sink.h"

#include <poll.h>

#include "engine/packet_source.h"
#include "wire/gso_chunk.h"

namespace qeli::engine {

bool flush_tun(TunWriter& tw, tunio::PacketBatch& batch, const StopSignal& stop,
               tunnel::SessionCounters& counters) {
  if (tw.tun == nullptr) {
    batch.clear();
    return true;
  }
  batch.set_cursor(0);
  for (;;) {
    std::unique_lock<std::mutex> lock;
    if (tw.mu != nullptr) lock = std::unique_lock<std::mutex>(*tw.mu);
    auto r = tw.tun->write_batch(batch);
    if (lock.owns_lock()) lock.unlock();
    if (!r.ok()) return false;
    counters.add(tunnel::SessionCounter::kDropTunWrite, r->logical_dropped);
    if (r->complete()) break;
    pollfd p[2] = {{tw.tun->fd(), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    ::poll(p, 2, 100);
    if (p[1].revents != 0) break;
  }
  batch.clear();
  return true;
}

tunio::PacketBatch PacketSource::make_batch(std::size_t packets, std::size_t max_packet,
                                            std::size_t headroom, std::size_t tailroom) const {
  // The sealer's room after a packet is part of a slot's max_packet (PacketBatch::
  // room_after), so a full-size packet still has its tailroom.
  return tunio::PacketBatch(packets, max_packet + tailroom, headroom);
}

bool TunQueueSource::fill(tunio::PacketBatch& batch) {
  auto r = tun_.read_batch(batch);
  if (!r.ok()) return r.error() == tunio::TunError::would_block;
  // Keep IPv4 (and negotiated IPv6), compacting in place (slots are swapped, not copied).
  std::size_t keep = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto pkt = batch.packet(i);
    const unsigned version = pkt.empty() ? 0 : pkt[0] >> 4;
    if (version == 4 || (version == 6 && ipv6_ && pkt.size() >= 40)) {
      if (keep != i) batch.swap(keep, i);
      ++keep;
    } else {
      counters_.count_not_ipv4(pkt.data(), pkt.size());
    }
  }
  if (keep != batch.size()) batch.truncate(keep);
  return true;
}

}  // namespace qeli::engine
