// Feeds one control frame to a tunnel::Receiver the way it arrives in a session: sealed
// into a data record, opened, classified (capabilities and the MTU report land in
// `peer`), then handed to `params.on_control`. Header-only; needs qeli::tunnel.
#pragma once

#include <array>

#include "tunnel/receiver.h"
#include "wire/packet_codec.h"

namespace qeli::test {

inline tunnel::Inbound receive_frame(tunnel::ReceiverParams params,
                                     tunnel::SessionCounters& counters, tunnel::PeerState& peer,
                                     ByteSpan frame) {
  const crypto::Key32 key{};
  const std::array<std::uint8_t, 4> seed = {7, 7, 7, 7};
  wire::PacketCodec tx(wire::Framing::kTls, key.span(), seed);
  tunnel::Receiver rx(std::move(params), wire::PacketCodec(wire::Framing::kTls, key.span(), seed),
                      counters, peer, Instant{});
  Bytes record(wire::max_record_size(wire::Framing::kTls));
  const auto n = tx.seal(frame, 0, record);
  if (!n.ok()) return {};
  record.resize(*n);
  return rx.open(record, Instant{});
}

}  // namespace qeli::test
