#include "engine/wire_datagram_envelope.h"

#include <cstdlib>

namespace qeli::engine {

WireDatagramEnvelope::WireDatagramEnvelope(const wire::UdpEnvelope& env,
                                           const crypto::Key32* obfs_key,
                                           std::uint32_t next_packet_number, crypto::Rng& rng)
    : obfs_(obfs_key != nullptr ? std::make_unique<wire::UdpObfs>(*obfs_key) : nullptr),
      env_(env),
      pn_(next_packet_number),
      rng_(rng) {
  env_.obfs = obfs_.get();
  head_ = (obfs_ ? wire::kObfsSealSize : 0) + (env_.quic ? wire::kQuicShortHeaderSize : 0);
}

void WireDatagramEnvelope::wrap(MutableByteSpan datagram) {
  const std::size_t seal = obfs_ ? wire::kObfsSealSize : 0;
  if (datagram.size() < head_) std::abort();  // the writer reserved headroom(): a bug
  if (env_.quic) {
    const MutableByteSpan body = datagram.subspan(seal);
    // The record already sits at offset 9 of `body`: wrap_quic_short allows that alias.
    auto n = wire::wrap_quic_short(env_.cid, pn_++, body.subspan(wire::kQuicShortHeaderSize), body);
    if (!n.ok() || *n != body.size()) std::abort();
  }
  if (obfs_) obfs_->seal(datagram, rng_);
}

std::optional<MutableByteSpan> WireDatagramEnvelope::unwrap(MutableByteSpan datagram) {
  auto opened = wire::open_datagram(env_, datagram);
  if (!opened.ok()) return std::nullopt;
  return opened->inner;
}

}  // namespace qeli::engine
