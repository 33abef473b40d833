// Where a session's send side takes IP packets from: a TUN queue on the client
// (TunQueueSource), the session's inbox on the server (SessionInbox), a channel in tests.
#pragma once

#include <cstddef>

#include "tunio/packet_batch.h"
#include "tunio/tun_device.h"
#include "tunnel/session_counters.h"

namespace qeli::engine {

/// Called from the send thread only.
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  /// An fd that is readable (POLLIN) when fill() may have packets.
  virtual int fd() const = 0;
  /// Appends packets to `batch` (which has the sender's headroom/tailroom). Returns false
  /// on a fatal error of the source (e.g. the TUN went away).
  virtual bool fill(tunio::PacketBatch& batch) = 0;
  /// The batch the send thread fills and seals: `packets` slots of `max_packet` bytes
  /// (SenderParams::max_packet: a 64 KiB super-packet, or the MTU where the source only
  /// yields MTU-sized packets — a TUN read may land a whole super-packet in a slot before
  /// it is split, touching its pages), with the sender's `headroom` and `tailroom`.
  virtual tunio::PacketBatch make_batch(std::size_t packets, std::size_t max_packet,
                                        std::size_t headroom, std::size_t tailroom) const;
};

/// A TUN queue as a PacketSource (client side): reads IPv4 packets — MTU-sized ones when
/// the TUN reads split, whole super-packets with metadata when it keeps them whole (only
/// when the peer negotiated the GSO extension). IPv6 and anything else is counted and
/// dropped, as 0.7.16 carries IPv4 only.
class TunQueueSource final : public PacketSource {
 public:
  /// `ipv6`: the session negotiated IPv6 inside the tunnel (caps::kIpv6Inside); without
  /// it only IPv4 is read through (IPv6 is counted in drop_ipv6, as 0.7.16 carries IPv4).
  TunQueueSource(tunio::TunDevice& tun, tunnel::SessionCounters& counters, bool ipv6 = false)
      : tun_(tun), counters_(counters), ipv6_(ipv6) {}
  int fd() const override { return tun_.fd(); }
  bool fill(tunio::PacketBatch& batch) override;

 private:
  tunio::TunDevice& tun_;
  tunnel::SessionCounters& counters_;
  bool ipv6_ = false;
};

}  // namespace qeli::engine
