// The outer layers of one UDP datagram, inside→out (docs/PROTOCOL.md "UDP transport"):
//
//   inner (fragment or data record) → [QUIC shape: long or short header] → [obfs seal]
//
// A UdpEnvelope is one end's choice of those layers for one peer: whether the QUIC shape
// is on (its own connection id), and the obfs seal if the profile has a key. It wraps
// inner payloads into datagrams and opens received datagrams back to the inner payload.
// The UdpObfs is borrowed (it outlives the envelope; one per worker thread, since it is
// not thread-safe).
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/random.h"
#include "wire/quic_envelope.h"
#include "wire/udp_obfs.h"

namespace qeli::wire {

struct UdpEnvelope {
  bool quic = false;
  QuicCid cid{};            ///< our connection id (QUIC shape only)
  UdpObfs* obfs = nullptr;  ///< the obfs seal, or none

  /// Bytes the layers add around an inner payload of `inner_size` bytes.
  std::size_t overhead(bool long_header, std::size_t inner_size) const;
  /// A fresh datagram carrying `inner`: a long header (handshake) or short header (data)
  /// with packet number `pn` when the QUIC shape is on, sealed when obfs is on.
  Bytes wrap(ByteSpan inner, bool long_header, std::uint32_t pn, crypto::Rng& rng) const;
};

enum class EnvelopeError : std::uint8_t {
  kObfs,  ///< the obfs seal is missing or malformed
  kQuic,  ///< the QUIC shape is on and the datagram is not a valid packet
};
const char* to_string(EnvelopeError e);

struct OpenedDatagram {
  MutableByteSpan inner;  ///< a view into the datagram (de-obfuscated in place)
  bool long_header = false;
  std::uint32_t pn = 0;
  QuicCid peer_cid{};
};

/// Opens a received datagram in place: removes the obfs seal (if `env.obfs`), then the
/// QUIC header (if `env.quic`). Every length is checked by the layer's parser.
Result<OpenedDatagram, EnvelopeError> open_datagram(const UdpEnvelope& env,
                                                    MutableByteSpan datagram);

}  // namespace qeli::wire
