// tunio/ipv4_fragment.h: real UDP packets (with and without IP options) split at MTUs
// around multiples of 8, checked by the independent reassembler of
// fakes/ipv4_reassembler.h (offsets, MF, header checksums, contents), plus inputs that
// are already fragments and malformed ones.
#include "tunio/ipv4_fragment.h"

#include <gtest/gtest.h>

#include <vector>

#include "fakes/ipv4_reassembler.h"
#include "fakes/packet_builder.h"

namespace qeli::tunio {
namespace {

using test::PacketBytes;

struct Out {
  Result<std::size_t, FragError> r;
  std::vector<PacketBytes> frags;
};

Out fragment(const PacketBytes& p, std::size_t mtu, std::size_t slots = 64,
             std::size_t max_packet = 1500) {
  PacketBatch batch(slots, max_packet);
  Out o{ipv4_fragment(p, mtu, batch), {}};
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ByteSpan f = batch.packet(i);
    o.frags.emplace_back(f.begin(), f.end());
  }
  return o;
}

// `p` with `opts` (a multiple of 4 bytes) inserted as IP options.
PacketBytes with_options(PacketBytes p, const std::vector<std::uint8_t>& opts) {
  p.insert(p.begin() + 20, opts.begin(), opts.end());
  p[0] = static_cast<std::uint8_t>(0x40 | ((20 + opts.size()) / 4));
  test::wr16(&p[2], static_cast<std::uint32_t>(p.size()));
  test::fix_ipv4_checksum(p);
  return p;
}

PacketBytes udp(std::size_t payload, std::uint16_t frag = 0) {
  test::PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.frag = frag;
  s.payload_seed = static_cast<std::uint8_t>(payload);
  return test::build_packet(s);
}

TEST(Ipv4Fragment, UdpSplitsAtMultiplesOf8AndReassembles) {
  // mtu 1200, 20-byte header: 1176 payload bytes per fragment.
  for (const std::size_t mtu : {1200u, 1201u, 1207u, 576u, 28u}) {
    const std::size_t unit = (mtu - 20) / 8 * 8;
    for (const std::size_t data : {mtu - 19, mtu - 12, unit + 7, unit + 8, unit + 9, 2 * unit - 1,
                                   2 * unit, 2 * unit + 1, 3 * unit + 8, 4 * unit}) {
      if (data + 20 <= mtu || data + 20 > 1500) continue;  // fits / beyond the builder's slot
      SCOPED_TRACE("mtu " + std::to_string(mtu) + " ip data " + std::to_string(data));
      const PacketBytes p = udp(data - 8);
      ASSERT_GT(p.size(), mtu);
      const Out o = fragment(p, mtu);
      ASSERT_TRUE(o.r.ok()) << to_string(o.r.error());
      EXPECT_EQ(*o.r, (data + unit - 1) / unit);
      ASSERT_EQ(o.frags.size(), *o.r);
      for (std::size_t i = 0; i + 1 < o.frags.size(); ++i) {
        EXPECT_EQ(o.frags[i].size(), 20 + unit) << "fragment " << i << " is not full";
      }
      const auto r = test::reassemble(o.frags, mtu);
      ASSERT_EQ(r.error, "");
      EXPECT_EQ(r.offset, 0u);
      EXPECT_FALSE(r.more);
      EXPECT_EQ(r.packet(), p);
      EXPECT_TRUE(test::ref_checksums_ok(r.packet())) << "UDP checksum over the datagram";
    }
  }
}

TEST(Ipv4Fragment, APacketThatFitsIsCopiedUnchangedEvenWithDf) {
  for (const std::uint16_t frag : {std::uint16_t{0}, std::uint16_t{0x4000}}) {
    const PacketBytes p = udp(1172, frag);  // 1200 bytes
    const Out o = fragment(p, 1200);
    ASSERT_TRUE(o.r.ok());
    ASSERT_EQ(o.frags.size(), 1u);
    EXPECT_EQ(o.frags[0], p);
  }
}

TEST(Ipv4Fragment, DfAboveTheMtuIsRefusedAndNothingWritten) {
  const Out o = fragment(udp(1173, 0x4000), 1200);
  ASSERT_FALSE(o.r.ok());
  EXPECT_EQ(o.r.error(), FragError::dont_fragment);
  EXPECT_TRUE(o.frags.empty());
}

TEST(Ipv4Fragment, OnlyCopiedOptionsGoIntoLaterFragments) {
  // 94 router alert (copied) | 07 record route (not copied) | NOP | 83 LSRR (copied) | EOL
  const std::vector<std::uint8_t> opts = {
      0x94, 0x04, 0x00, 0x00,                          // router alert, RFC 2113
      0x07, 0x07, 0x04, 0x00, 0x00, 0x00, 0x00,        // record route, one empty slot
      0x01,                                            // NOP
      0x83, 0x07, 0x04, 0xc0, 0x00, 0x02, 0x01, 0x00,  // LSRR via 192.0.2.1, then EOL
  };
  ASSERT_EQ(opts.size(), 20u);
  const PacketBytes p = with_options(udp(1400), opts);  // 40-byte header
  const Out o = fragment(p, 600);
  ASSERT_TRUE(o.r.ok()) << to_string(o.r.error());
  const auto r = test::reassemble(o.frags, 600);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.packet(), p) << "the first fragment keeps every option";
  const std::vector<std::uint8_t> copied = {0x94, 0x04, 0x00, 0x00, 0x83, 0x07,
                                            0x04, 0xc0, 0x00, 0x02, 0x01, 0x00};
  ASSERT_GE(r.headers.size(), 3u);
  EXPECT_EQ(r.headers[0].size(), 40u);
  EXPECT_EQ(o.frags[0].size(), 40u + 560u);  // (600 - 40) / 8 * 8
  for (std::size_t i = 1; i < r.headers.size(); ++i) {
    ASSERT_EQ(r.headers[i].size(), 32u) << "20 + 11 copied bytes, padded to 4";
    EXPECT_EQ(PacketBytes(r.headers[i].begin() + 20, r.headers[i].end()), copied);
  }
  EXPECT_EQ(o.frags[1].size(), 32u + 568u);  // (600 - 32) / 8 * 8
}

TEST(Ipv4Fragment, NoCopiedOptionsLeavesABareHeaderAfterTheFirst) {
  const std::vector<std::uint8_t> rr = {0x07, 0x07, 0x04, 0, 0, 0, 0, 0x01};  // RR, NOP
  const PacketBytes p = with_options(udp(1000), rr);
  const Out o = fragment(p, 576);
  ASSERT_TRUE(o.r.ok());
  const auto r = test::reassemble(o.frags, 576);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.packet(), p);
  EXPECT_EQ(r.headers[0].size(), 28u);
  EXPECT_EQ(r.headers[1].size(), 20u);
}

TEST(Ipv4Fragment, AFragmentIsSplitFurtherKeepingItsOffsetAndMf) {
  // A non-last fragment at offset 800 (100 units), 2000 data bytes, MF set.
  PacketBytes mid = udp(1992, 0x2000 | 100);
  Out o = fragment(mid, 1000);
  ASSERT_TRUE(o.r.ok());
  auto r = test::reassemble(o.frags, 1000);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.offset, 800u);
  EXPECT_TRUE(r.more) << "MF stays set on the last piece of a non-last fragment";
  EXPECT_EQ(r.packet(), mid);
  EXPECT_EQ(test::rd16(&o.frags[1][6]), 0x2000 | (100 + 976 / 8));

  // The last fragment of a datagram (MF clear, offset 50 units): the pieces end with MF clear.
  const PacketBytes tail = udp(1492, 50);
  o = fragment(tail, 800);
  ASSERT_TRUE(o.r.ok());
  r = test::reassemble(o.frags, 800);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.offset, 400u);
  EXPECT_FALSE(r.more);
  EXPECT_EQ(r.packet(), tail);
}

TEST(Ipv4Fragment, TrailingBytesAfterTotalLengthAreIgnored) {
  const PacketBytes p = udp(1500 - 28 - 100);
  PacketBytes padded = p;
  padded.resize(p.size() + 37, 0xee);
  const Out o = fragment(padded, 700);
  ASSERT_TRUE(o.r.ok());
  const auto r = test::reassemble(o.frags, 700);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.packet(), p);
}

TEST(Ipv4Fragment, MalformedInputsAreRefused) {
  const PacketBytes good = udp(1400);
  auto expect = [](const PacketBytes& p, std::size_t mtu, FragError e, const char* what) {
    const Out o = fragment(p, mtu);
    ASSERT_FALSE(o.r.ok()) << what;
    EXPECT_EQ(o.r.error(), e) << what << ": " << to_string(o.r.error());
    EXPECT_TRUE(o.frags.empty()) << what;
  };
  expect(PacketBytes(good.begin(), good.begin() + 19), 576, FragError::malformed, "short");
  expect(test::udp6(1400), 576, FragError::malformed, "IPv6");
  PacketBytes p = good;
  p[0] = 0x44;
  expect(p, 576, FragError::malformed, "IHL 4");
  p = good;
  test::wr16(&p[2], 16);
  expect(p, 576, FragError::malformed, "total length below the header");
  p = good;
  test::wr16(&p[2], static_cast<std::uint32_t>(good.size() + 1));
  expect(p, 576, FragError::malformed, "total length beyond the bytes");
  expect(with_options(good, {0x83, 0x01, 0x00, 0x00}), 576, FragError::malformed,
         "option length 1");
  expect(with_options(good, {0x83, 0x09, 0x00, 0x00}), 576, FragError::malformed,
         "option past the header");
  expect(with_options(good, {0x01, 0x01, 0x01, 0x94}), 576, FragError::malformed,
         "option type without a length");
  expect(udp(1400, 8190), 576, FragError::malformed, "offset + data beyond 65535");
  expect(good, 27, FragError::mtu_too_small, "20 + 8 does not fit");
  expect(with_options(good, {0x94, 0x04, 0, 0}), 31, FragError::mtu_too_small,
         "24 + 8 does not fit");
  const Out tiny = fragment(udp(56), 28);  // 64 data bytes, 8 per fragment
  ASSERT_TRUE(tiny.r.ok());
  EXPECT_EQ(tiny.frags.size(), 8u);
  EXPECT_EQ(test::reassemble(tiny.frags, 28).packet(), udp(56));
}

TEST(Ipv4Fragment, NotEnoughSlotsOrSlotTooSmallWritesNothing) {
  const PacketBytes p = udp(2400);  // 2428 bytes: 3 fragments at mtu 1000
  Out o = fragment(p, 1000, 2);
  ASSERT_FALSE(o.r.ok());
  EXPECT_EQ(o.r.error(), FragError::too_many_fragments);
  EXPECT_TRUE(o.frags.empty());
  o = fragment(p, 1000, 3);
  EXPECT_TRUE(o.r.ok());
  o = fragment(p, 1000, 8, 995);  // the first fragment is 20 + 976
  ASSERT_FALSE(o.r.ok());
  EXPECT_EQ(o.r.error(), FragError::output_too_small);
  o = fragment(udp(100), 1000, 8, 100);
  ASSERT_FALSE(o.r.ok());
  EXPECT_EQ(o.r.error(), FragError::output_too_small);

  // Appends after what the batch holds already.
  PacketBatch batch(4, 1500);
  ASSERT_TRUE(batch.push(udp(10)));
  ASSERT_TRUE(ipv4_fragment(p, 1000, batch).ok());
  EXPECT_EQ(batch.size(), 4u);
}

}  // namespace
}  // namespace qeli::tunio
