#include "tunnel/session.h"

namespace qeli::tunnel {

Session::Session(SessionParams params, wire::PacketCodec send, wire::PacketCodec recv,
                 CarrierRoom room, crypto::Rng& rng, SessionCounters& counters, PeerState* peer,
                 Instant now)
    : room_(room),
      peer_(peer != nullptr ? peer : &own_peer_),
      counters_(counters),
      sender_(std::move(params.send), std::move(send), room, rng, counters, *peer_, now),
      receiver_(
          [&] {
            params.receive.stream = room.stream;
            return std::move(params.receive);
          }(),
          std::move(recv), counters, *peer_, now) {}

std::optional<Instant> Session::deadline() const {
  const auto a = sender_.deadline();
  const auto b = receiver_.deadline();
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace qeli::tunnel
