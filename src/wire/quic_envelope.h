// The QUIC-shaped UDP envelope of qeli 0.7.16 (`quic.rs`; docs/PROTOCOL.md "QUIC shape").
// It only LOOKS like QUIC (RFC 9000 §17): no Initial AEAD, no header protection, no
// CRYPTO frames; the packet number and payload are in clear.
//
//   long  = C3 ‖ 00 00 00 01 ‖ 04 ‖ dcid(4) ‖ 00 (scid len) ‖ 00 (token len)
//           ‖ Length (RFC 9000 §16 varint, = 4 + payload) ‖ pn(u32 BE) ‖ payload
//   short = 43 ‖ dcid(4) ‖ pn(u32 BE) ‖ payload
//
// Handshake fragments ride in long headers, data records in short headers. A receiver
// accepts the legacy long-header flags E3 (older 0.7.x senders) as well as C3. One
// envelope fills its datagram (0.7.16): a long header's Length must equal the bytes after
// it, so a Length that understates (trailing bytes) or overstates the datagram is refused.
#pragma once

#include <array>
#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "wire/limits.h"

namespace qeli::wire {

inline constexpr std::uint8_t kQuicLongFlags = 0xC3;
inline constexpr std::uint8_t kQuicLegacyLongFlags = 0xE3;
inline constexpr std::uint8_t kQuicShortFlags = 0x43;
inline constexpr std::uint32_t kQuicVersion = 1;

using QuicCid = std::array<std::uint8_t, kQuicCidSize>;

enum class QuicError : std::uint8_t {
  kEmpty,           ///< zero-length datagram
  kBadFlags,        ///< first byte is none of C3, E3, 43
  kTruncated,       ///< the datagram ends inside a fixed header field
  kBadVersion,      ///< long header version != 1
  kBadCidLength,    ///< DCID length != 4 or SCID length != 0
  kBadToken,        ///< a non-empty token (we never send one)
  kBadVarint,       ///< the Length varint runs past the datagram
  kBadLength,       ///< Length < 4 (no room for the PN) or not exactly the rest of the datagram
  kBufferTooSmall,  ///< wrap: `out` cannot hold header + payload
};
const char* to_string(QuicError e);

struct QuicPacket {
  bool long_header = false;
  QuicCid cid{};
  std::uint32_t packet_number = 0;
  ByteSpan payload;  ///< points into the parsed datagram
};

/// Header sizes: the short header is fixed (9); the long header depends on the varint
/// width of Length (1, 2, 4 or 8 bytes) — 18 for any handshake fragment (64..16383).
std::size_t quic_long_header_size(std::size_t payload_size);

/// Writes a long-header packet around `payload` into `out`; returns the size written.
/// `payload` may alias `out` at offset quic_long_header_size(payload.size()) (an in-place
/// wrap into reserved headroom).
Result<std::size_t, QuicError> wrap_quic_long(const QuicCid& cid, std::uint32_t pn,
                                              ByteSpan payload, MutableByteSpan out);
/// The same for a short header (payload may alias `out` at offset 9).
Result<std::size_t, QuicError> wrap_quic_short(const QuicCid& cid, std::uint32_t pn,
                                               ByteSpan payload, MutableByteSpan out);

/// Parses a long (C3/E3) or short (43) packet; every length is checked before use.
Result<QuicPacket, QuicError> parse_quic(ByteSpan datagram);

/// The server's auto-detection on a client's first datagram (0.7.16 checks the whole
/// structure, never its own `obf.quic.enabled`): a valid long header whose payload is a
/// qeli fragment (F0 9B 71 …). A bare fragment starts with F0 and a data record with 17,
/// so neither can be mistaken for one.
bool looks_like_quic(ByteSpan datagram);

}  // namespace qeli::wire
