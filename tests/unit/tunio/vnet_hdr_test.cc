#include "tunio/vnet_hdr.h"

#include <gtest/gtest.h>

#include <cstring>

namespace qeli::tunio {
namespace {

// Checklist 1: the codec, host byte order (x86 little-endian) and 10 bytes.
TEST(VnetHdr, DecodesAndEncodesChecklistBytes) {
  const std::uint8_t bytes[] = {0x01, 0x05, 0x1c, 0x00, 0xe8, 0x03, 0x14, 0x00, 0x06, 0x00};
  auto h = decode_vnet_hdr(bytes);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->flags, 1);
  EXPECT_EQ(h->gso_type, 5);
  EXPECT_EQ(h->hdr_len, 28);
  EXPECT_EQ(h->gso_size, 1000);
  EXPECT_EQ(h->csum_start, 20);
  EXPECT_EQ(h->csum_offset, 6);
  std::uint8_t out[kVnetHdrLen + 1];
  out[kVnetHdrLen] = 0xAA;
  encode_vnet_hdr(*h, out);
  EXPECT_EQ(0, std::memcmp(out, bytes, kVnetHdrLen));
  EXPECT_EQ(out[kVnetHdrLen], 0xAA);  // writes exactly 10 bytes
  EXPECT_EQ(kVnetHdrLen, 10u);
}

// Checklist 2: a 9-byte read is not a header.
TEST(VnetHdr, ShortHeaderIsRejected) {
  const std::uint8_t bytes[9] = {};
  EXPECT_FALSE(decode_vnet_hdr(bytes).has_value());
  EXPECT_FALSE(decode_vnet_hdr({}).has_value());
}

TEST(VnetHdr, MetadataMapping) {
  EXPECT_EQ(to_vnet_hdr(GsoMetadata{}), VnetHdr{});
  GsoMetadata m{GsoType::udp6, true, 48, 1000, 40, 6};
  EXPECT_EQ(to_vnet_hdr(m), (VnetHdr{1, 5, 48, 1000, 40, 6}));
  m = {GsoType::tcp4, true, 52, 1368, 20, 16};
  EXPECT_EQ(to_vnet_hdr(m), (VnetHdr{1, 1, 52, 1368, 20, 16}));
  m = {GsoType::tcp6, true, 72, 1348, 40, 16};
  EXPECT_EQ(to_vnet_hdr(m).gso_type, 4);
  m = {GsoType::none, true, 0, 0, 20, 6};  // partial checksum only
  EXPECT_EQ(to_vnet_hdr(m), (VnetHdr{1, 0, 0, 0, 20, 6}));
}

}  // namespace
}  // namespace qeli::tunio
