#include "wire/quic_envelope.h"

#include <cstring>

#include "base/endian.h"
#include "wire/udp_frag.h"

namespace qeli::wire {

namespace {

// RFC 9000 §16: the two top bits of the first byte give the length (1, 2, 4, 8).
std::size_t varint_size(std::uint64_t v) {
  if (v < (1U << 6)) return 1;
  if (v < (1U << 14)) return 2;
  if (v < (1UL << 30)) return 4;
  return 8;
}

void write_varint(std::uint64_t v, std::size_t width, std::uint8_t* out) {
  for (std::size_t i = 0; i < width; ++i) {
    out[width - 1 - i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  out[0] = static_cast<std::uint8_t>(out[0] | (width == 1   ? 0x00
                                               : width == 2 ? 0x40
                                               : width == 4 ? 0x80
                                                            : 0xC0));
}

// Reads a varint at d[pos]; false if it runs past the end.
bool read_varint(ByteSpan d, std::size_t& pos, std::uint64_t& v) {
  if (pos >= d.size()) return false;
  const std::size_t width = std::size_t{1} << (d[pos] >> 6);
  if (d.size() - pos < width) return false;
  v = d[pos] & 0x3F;
  for (std::size_t i = 1; i < width; ++i) v = (v << 8) | d[pos + i];
  pos += width;
  return true;
}

}  // namespace

const char* to_string(QuicError e) {
  switch (e) {
    case QuicError::kEmpty: return "empty datagram";
    case QuicError::kBadFlags: return "not a QUIC-shaped first byte";
    case QuicError::kTruncated: return "truncated QUIC header";
    case QuicError::kBadVersion: return "QUIC version is not 1";
    case QuicError::kBadCidLength: return "connection id length is not 4/0";
    case QuicError::kBadToken: return "non-empty token";
    case QuicError::kBadVarint: return "truncated Length varint";
    case QuicError::kBadLength: return "Length out of range";
    case QuicError::kBufferTooSmall: return "output buffer too small";
  }
  return "?";
}

std::size_t quic_long_header_size(std::size_t payload_size) {
  return kQuicLongHeaderSize - 2 + varint_size(kQuicPnSize + payload_size);
}

Result<std::size_t, QuicError> wrap_quic_long(const QuicCid& cid, std::uint32_t pn,
                                              ByteSpan payload, MutableByteSpan out) {
  const std::size_t length = kQuicPnSize + payload.size();
  const std::size_t hdr = quic_long_header_size(payload.size());
  if (out.size() < hdr + payload.size()) return fail(QuicError::kBufferTooSmall);
  std::uint8_t* p = out.data();
  // Move the payload first: it may alias the output at exactly `hdr`.
  if (!payload.empty() && payload.data() != p + hdr) {
    std::memmove(p + hdr, payload.data(), payload.size());
  }
  p[0] = kQuicLongFlags;
  store_be32(p + 1, kQuicVersion);
  p[5] = kQuicCidSize;
  std::memcpy(p + 6, cid.data(), kQuicCidSize);
  p[10] = 0;  // SCID length
  p[11] = 0;  // token length (varint 0)
  const std::size_t w = varint_size(length);
  write_varint(length, w, p + 12);
  store_be32(p + 12 + w, pn);
  return hdr + payload.size();
}

Result<std::size_t, QuicError> wrap_quic_short(const QuicCid& cid, std::uint32_t pn,
                                               ByteSpan payload, MutableByteSpan out) {
  if (out.size() < kQuicShortHeaderSize + payload.size()) return fail(QuicError::kBufferTooSmall);
  std::uint8_t* p = out.data();
  if (!payload.empty() && payload.data() != p + kQuicShortHeaderSize) {
    std::memmove(p + kQuicShortHeaderSize, payload.data(), payload.size());
  }
  p[0] = kQuicShortFlags;
  std::memcpy(p + 1, cid.data(), kQuicCidSize);
  store_be32(p + 1 + kQuicCidSize, pn);
  return kQuicShortHeaderSize + payload.size();
}

Result<QuicPacket, QuicError> parse_quic(ByteSpan d) {
  if (d.empty()) return fail(QuicError::kEmpty);
  QuicPacket pkt;
  if (d[0] == kQuicShortFlags) {
    if (d.size() < kQuicShortHeaderSize) return fail(QuicError::kTruncated);
    std::memcpy(pkt.cid.data(), d.data() + 1, kQuicCidSize);
    pkt.packet_number = load_be32(d.data() + 1 + kQuicCidSize);
    pkt.payload = d.subspan(kQuicShortHeaderSize);
    return pkt;
  }
  if (d[0] != kQuicLongFlags && d[0] != kQuicLegacyLongFlags) return fail(QuicError::kBadFlags);
  pkt.long_header = true;
  // flags(1) version(4) dcid_len(1) dcid(4) scid_len(1) token_len(≥1)
  if (d.size() < 12) return fail(QuicError::kTruncated);
  if (load_be32(d.data() + 1) != kQuicVersion) return fail(QuicError::kBadVersion);
  if (d[5] != kQuicCidSize || d[10] != 0) return fail(QuicError::kBadCidLength);
  std::memcpy(pkt.cid.data(), d.data() + 6, kQuicCidSize);
  std::size_t pos = 11;
  std::uint64_t token_len = 0, length = 0;
  if (!read_varint(d, pos, token_len)) return fail(QuicError::kBadVarint);
  if (token_len != 0) return fail(QuicError::kBadToken);
  if (!read_varint(d, pos, length)) return fail(QuicError::kBadVarint);
  // 0.7.16 (§3.9): one envelope fills its datagram, so Length (packet number + payload)
  // must be exactly what follows it — neither less (trailing bytes) nor more (truncated).
  if (length < kQuicPnSize || length != d.size() - pos) return fail(QuicError::kBadLength);
  pkt.packet_number = load_be32(d.data() + pos);
  pkt.payload = d.subspan(pos + kQuicPnSize, static_cast<std::size_t>(length) - kQuicPnSize);
  return pkt;
}

bool looks_like_quic(ByteSpan d) {
  auto pkt = parse_quic(d);
  return pkt.ok() && pkt->long_header && is_fragment(classify_datagram(pkt->payload));
}

}  // namespace qeli::wire
