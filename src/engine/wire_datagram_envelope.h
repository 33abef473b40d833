// WireDatagramEnvelope: the data path's DatagramEnvelope over wire::UdpEnvelope (the QUIC
// shape's short header and the obfs seal; reference qeli-0.7.16.md §3.9). wire cannot
// derive from engine's interface (layering), so this adapter lives here.
//
//   sent datagram = [obfs seal 13 B] ‖ [43 ‖ cid(4) ‖ pn(4)] ‖ record       (each optional)
//
// wrap() writes both layers in place into the writer's headroom; the packet number
// starts at the handshake's next_packet_number and grows by one per datagram (0.7.16:
// data from PN 2 upward, strictly increasing). unwrap() accepts a long header too (an
// AUTH retransmit or a late flight fragment), whose payload the record parser rejects.
//
// Not thread-safe, and neither is the UdpObfs it uses: build one envelope, with its own
// UdpObfs, per direction (the send thread's writer and the receive loop's receiver).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "crypto/random.h"
#include "engine/datagram_envelope.h"
#include "wire/udp_envelope.h"

namespace qeli::engine {

class WireDatagramEnvelope final : public DatagramEnvelope {
 public:
  /// `env`'s QUIC shape and CID are used as given; when `obfs_key` is non-null the
  /// envelope owns a UdpObfs of its own for it (env.obfs is ignored; the key is copied
  /// into the cipher). `rng` (nonces of the seal) must outlive the object.
  WireDatagramEnvelope(const wire::UdpEnvelope& env, const crypto::Key32* obfs_key,
                       std::uint32_t next_packet_number, crypto::Rng& rng);

  /// 13 with the obfs seal, + 9 with the QUIC shape.
  std::size_t headroom() const override { return head_; }
  void wrap(MutableByteSpan datagram) override;
  std::optional<MutableByteSpan> unwrap(MutableByteSpan datagram) override;

  /// The next short header's packet number (unchanged without the QUIC shape).
  std::uint32_t next_packet_number() const { return pn_; }

 private:
  std::unique_ptr<wire::UdpObfs> obfs_;
  wire::UdpEnvelope env_;
  std::uint32_t pn_;
  crypto::Rng& rng_;
  std::size_t head_;
};

}  // namespace qeli::engine
