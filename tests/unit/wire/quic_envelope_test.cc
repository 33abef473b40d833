// The QUIC-shaped envelope beyond the reference vectors: long headers, varint widths,
// in-place wrapping and hostile truncations.
#include "wire/quic_envelope.h"

#include <gtest/gtest.h>

#include "wire/udp_frag.h"

namespace qeli::wire {
namespace {

const QuicCid kCid{0xde, 0xad, 0xbe, 0xef};

Bytes long_packet(ByteSpan payload, std::uint32_t pn) {
  Bytes out(quic_long_header_size(payload.size()) + payload.size());
  auto n = wrap_quic_long(kCid, pn, payload, out);
  EXPECT_TRUE(n.ok());
  EXPECT_EQ(*n, out.size());
  return out;
}

TEST(QuicEnvelope, LongHeaderBytes) {
  const Bytes payload{0x78};
  // Length = 4 + 1 = 5, a 1-byte varint: the same layout as the legacy vector (with C3).
  EXPECT_EQ(to_hex(long_packet(payload, 1)), "c30000000104deadbeef0000050000000178");
  // A handshake fragment: Length 4 + 1169 = 1173 needs the 2-byte varint (0x4495).
  const Bytes frag(kFragHeaderSize + kFragMaxChunk, 0xab);
  const Bytes pkt = long_packet(frag, 0);
  EXPECT_EQ(quic_long_header_size(frag.size()), kQuicLongHeaderSize);
  EXPECT_EQ(to_hex(ByteSpan(pkt).first(18)), "c30000000104deadbeef0000449500000000");
  auto p = parse_quic(pkt);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->long_header);
  EXPECT_EQ(p->packet_number, 0U);
  EXPECT_EQ(p->payload.size(), frag.size());
}

TEST(QuicEnvelope, VarintWidths) {
  for (std::size_t n : {0UL, 59UL, 60UL, 16379UL, 16380UL, 70000UL}) {
    const Bytes payload(n, 0x5a);
    const Bytes pkt = long_packet(payload, 77);
    auto p = parse_quic(pkt);
    ASSERT_TRUE(p.ok()) << n;
    EXPECT_EQ(p->payload.size(), n);
    EXPECT_EQ(p->packet_number, 77U);
  }
  EXPECT_EQ(quic_long_header_size(59), 17U);
  EXPECT_EQ(quic_long_header_size(60), 18U);
  EXPECT_EQ(quic_long_header_size(16380), 20U);
}

TEST(QuicEnvelope, WrapInPlace) {
  const Bytes payload{1, 2, 3, 4, 5};
  Bytes buf(kQuicShortHeaderSize + payload.size());
  std::copy(payload.begin(), payload.end(), buf.begin() + kQuicShortHeaderSize);
  ASSERT_TRUE(wrap_quic_short(kCid, 9, ByteSpan(buf).subspan(kQuicShortHeaderSize), buf).ok());
  EXPECT_EQ(to_hex(buf), "43deadbeef000000090102030405");
  Bytes small(8);
  EXPECT_EQ(wrap_quic_short(kCid, 0, {}, small).error(), QuicError::kBufferTooSmall);
  EXPECT_EQ(wrap_quic_long(kCid, 0, payload, buf).error(), QuicError::kBufferTooSmall);
}

TEST(QuicEnvelope, EveryTruncationOfALongPacketIsRejected) {
  const Bytes frag(40, 0xf0);
  const Bytes pkt = long_packet(frag, 3);
  for (std::size_t n = 0; n < pkt.size(); ++n) {
    EXPECT_FALSE(parse_quic(ByteSpan(pkt).first(n)).ok()) << n;
  }
  // 0.7.16 (§3.9): Length must match the datagram exactly; bytes past it are refused.
  Bytes longer = pkt;
  longer.push_back(0xee);
  auto p = parse_quic(longer);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(), QuicError::kBadLength);
  EXPECT_FALSE(looks_like_quic(longer));
  EXPECT_TRUE(parse_quic(pkt).ok());
}

TEST(QuicEnvelope, HostileFields) {
  const Bytes good = long_packet(Bytes{0x78}, 1);
  auto with = [&](std::size_t at, std::uint8_t v) {
    Bytes b = good;
    b[at] = v;
    return parse_quic(b);
  };
  EXPECT_EQ(with(0, 0xC0).error(), QuicError::kBadFlags);
  EXPECT_EQ(with(0, 0x80).error(), QuicError::kBadFlags);
  EXPECT_TRUE(with(0, 0xE3).ok());
  EXPECT_EQ(with(4, 0x02).error(), QuicError::kBadVersion);
  EXPECT_EQ(with(5, 0x08).error(), QuicError::kBadCidLength);
  EXPECT_EQ(with(10, 0x01).error(), QuicError::kBadCidLength);
  EXPECT_EQ(with(11, 0x01).error(), QuicError::kBadToken);
  EXPECT_EQ(with(12, 0x03).error(), QuicError::kBadLength);  // Length < 4
  EXPECT_EQ(parse_quic({}).error(), QuicError::kEmpty);
  const Bytes short_min{0x43, 1, 2, 3, 4, 0, 0, 0, 1};
  EXPECT_TRUE(parse_quic(short_min).ok());
  EXPECT_EQ(parse_quic(ByteSpan(short_min).first(8)).error(), QuicError::kTruncated);
}

TEST(QuicEnvelope, AutoDetect) {
  const Bytes frag = fragment_message(1, Bytes(1300, 0x16)).value()[0];
  EXPECT_TRUE(looks_like_quic(long_packet(frag, 0)));
  EXPECT_FALSE(looks_like_quic(frag));                         // bare fake-tls fragment
  EXPECT_FALSE(looks_like_quic(long_packet(Bytes{0x78}, 0)));  // not a fragment inside
  Bytes sh(kQuicShortHeaderSize + frag.size());
  ASSERT_TRUE(wrap_quic_short(kCid, 0, frag, sh).ok());
  EXPECT_FALSE(looks_like_quic(sh));  // a first datagram is never a short header
}

}  // namespace
}  // namespace qeli::wire
