// DatagramEnvelope: the per-datagram wrapping outside a UDP data record (reference
// qeli-0.7.16.md §3.9: record → optional QUIC-shaped short header → optional obfs seal →
// UDP). The envelopes themselves live with the wire codecs; the data path only needs
// their constant overhead and two in-place calls.
//
// A datagram as the writer lays it out:
//   [ headroom() bytes | record | tailroom() bytes ]
// wrap() fills the head and tail (and may transform the record bytes, e.g. XOR them) in
// place; unwrap() undoes it and returns where the record is, or nullopt for a datagram
// that is not validly wrapped (a counted drop, never an error of the connection).
//
// Both are called once per datagram in send / receive order (a QUIC-shaped header's
// packet number may count them). One thread at a time per direction.
#pragma once

#include <cstddef>
#include <optional>

#include "base/bytes.h"

namespace qeli::engine {

class DatagramEnvelope {
 public:
  virtual ~DatagramEnvelope() = default;
  /// Bytes the envelope adds before / after the record. Constant for the object's life.
  virtual std::size_t headroom() const { return 0; }
  virtual std::size_t tailroom() const { return 0; }
  /// `datagram` = headroom() bytes ‖ record ‖ tailroom() bytes; fills it in place.
  virtual void wrap(MutableByteSpan datagram) { (void)datagram; }
  /// The record inside a received `datagram` (a subspan of it), or nullopt.
  virtual std::optional<MutableByteSpan> unwrap(MutableByteSpan datagram) { return datagram; }
};

/// The envelope of the bare UDP modes (fake-tls, padding): nothing around the record.
DatagramEnvelope& no_envelope();

}  // namespace qeli::engine
