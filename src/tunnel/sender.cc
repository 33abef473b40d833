#include "tunnel/sender.h"

namespace qeli::tunnel {

Sender::Sender(SenderParams params, wire::PacketCodec codec, CarrierRoom room, crypto::Rng& rng,
               SessionCounters& counters, PeerState& peer, Instant now)
    : params_(std::move(params)),
      sealer_(std::move(codec), params_.padding, params_.mtu, room, rng, counters,
              params_.scratch_packets),
      rng_(rng),
      counters_(counters),
      peer_(peer) {
  on_sent(now);
}

void Sender::refresh() {
  sealer_.set_peer_gso(peer_.gso.load(std::memory_order_relaxed));
  if (peer_.tls_bound.load(std::memory_order_relaxed)) sealer_.set_tls_bound();
  if (peer_.aes_gcm.load(std::memory_order_relaxed)) sealer_.set_aes();
  // Padding must not push a record past the peer's path (only ever lowers the MTU).
  if (const auto m = peer_.mtu.load(std::memory_order_relaxed); m != 0) sealer_.limit_mtu(m);
}

Outbound Sender::sealed(ByteSpan plaintext, std::size_t padding) {
  auto r = sealer_.seal_one(plaintext, padding);
  if (!r.ok()) {
    Outbound o;
    o.kind = Outbound::Kind::kEnd;
    o.end = r.error() == wire::SealError::kCounterExhausted ? SessionEnd::kCounterExhausted
                                                            : SessionEnd::kSocketError;
    return o;
  }
  Outbound o;
  o.kind = Outbound::Kind::kRecord;
  o.record = *r;
  return o;
}

std::optional<Outbound> Sender::initial(std::size_t i) {
  if (i >= params_.initial_frames.size()) return std::nullopt;
  return sealed(params_.initial_frames[i], 0);
}

Outbound Sender::control(ByteSpan plaintext) { return sealed(plaintext, 0); }

Outbound Sender::farewell(SessionEnd why) {
  if (!params_.farewell) return {};
  const Bytes frame = params_.farewell(why);
  if (frame.empty()) return {};
  return sealed(frame, 0);
}

void Sender::on_sent(Instant now) {
  const auto& hb = params_.heartbeat;
  const auto jitter = hb.jitter.count() > 0
                          ? std::chrono::milliseconds(rng_.uniform(0, hb.jitter.count()))
                          : std::chrono::milliseconds::zero();
  heartbeat_due_ = now + hb.interval + jitter;
}

std::optional<Instant> Sender::deadline() const {
  if (!params_.heartbeat.enabled) return std::nullopt;
  return heartbeat_due_;
}

Outbound Sender::on_timer(Instant now) {
  if (!params_.heartbeat.enabled || now < heartbeat_due_) return {};
  const std::size_t size = params_.heartbeat.data_size_bytes;
  Outbound o = sealed({}, rng_.uniform(size, size + 32));
  if (o.kind == Outbound::Kind::kRecord) counters_.add(SessionCounter::kHeartbeatsTx);
  return o;
}

}  // namespace qeli::tunnel
