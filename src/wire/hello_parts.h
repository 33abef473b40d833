// Pieces every ClientHello we build shares (the 0.7.16 fake-TLS hello in this folder, the
// Chromium-faithful and the 0.7.16 realtls hellos in src/tls): GREASE values (RFC 8701),
// extension framing, the server_name and ALPN bodies, and the per-connection extension
// shuffle (Chrome ≥ 110; reality-tls.md B.4).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "crypto/random.h"
#include "wire/byte_io.h"

namespace qeli::wire {

/// True for the RFC 8701 GREASE values 0x?A?A.
constexpr bool is_grease(std::uint16_t v) {
  return (v & 0x0F0F) == 0x0A0A && (v >> 12) == ((v >> 4) & 0x0F);
}

/// A uniformly random GREASE value (one of the 16), one rng.uniform(0, 15) draw.
std::uint16_t random_grease(crypto::Rng& rng);

/// type(2) ‖ length(2) ‖ body.
void write_extension(ByteWriter& w, std::uint16_t type, ByteSpan body);
void write_extension(ByteWriter& w, std::uint16_t type, std::initializer_list<std::uint8_t> body);

/// server_name (RFC 6066 §3) with one host_name entry.
void write_server_name(ByteWriter& w, std::string_view host);

/// An ALPN-shaped body (RFC 7301 §3.1): list<2> of name<1>; ALPS uses the same shape.
void write_protocol_list(ByteWriter& w, std::uint16_t type,
                         std::initializer_list<std::string_view> protocols);

/// Uniform Fisher–Yates shuffle of whole extension blocks, drawing rng.uniform(0, i) for
/// i = n-1 … 1.
void shuffle_blocks(std::vector<Bytes>& blocks, crypto::Rng& rng);

}  // namespace qeli::wire
