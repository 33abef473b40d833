// What a carrier needs around each data record, as the tunnel session sees it: the room a
// stream stack (transport/stream.h Overhead) or a datagram envelope (engine's
// DatagramEnvelope) frames in place, the largest record it takes, and whether it is a
// byte stream. Constant for a session's life, so batches reserve the room once.
#pragma once

#include <cstddef>
#include <limits>

#include "tunnel/pushed_params.h"
#include "wire/packet_codec.h"

namespace qeli::tunnel {

inline constexpr std::size_t kUnlimitedRecord = std::numeric_limits<std::size_t>::max();

struct CarrierRoom {
  std::size_t head = 0;  ///< bytes the carrier writes directly before each record
  std::size_t tail = 0;  ///< bytes directly after it
  /// Largest record (header included) one carrier chunk holds (a TLS 1.3 layer: 16384).
  std::size_t max_record = kUnlimitedRecord;
  /// A byte stream (records deframed from bytes): a record that fails to authenticate
  /// ends the session, and super-packets may cross whole as GSO chunk records. False for
  /// datagrams (one record per datagram): bad records are counted drops.
  bool stream = true;

  /// Bytes every batch slot needs before a packet: the carrier's room and the record's
  /// own (the larger, Tls, framing).
  std::size_t headroom() const { return head + wire::kMaxSealHeadroom; }
  /// Bytes after a packet: the record's padding, length and tag, and the carrier's room.
  std::size_t tailroom(const PaddingPolicy& p) const { return wire::seal_tailroom(p.max()) + tail; }
  /// Largest data + padding one record of this carrier holds (≤ kMaxTunnelMtu).
  std::size_t max_record_data() const;
};

}  // namespace qeli::tunnel
