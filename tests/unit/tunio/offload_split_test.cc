// Read side: validation + GSO split, checklist cases 3-15 (../shared/checklists/gso-gro.md).
#include "tunio/offload_split.h"

#include <gtest/gtest.h>

#include <cstring>

#include "fakes/packet_builder.h"
#include "tunio/ip_header.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using test::PacketBytes;
using test::rd16;
using test::rd32;

struct SplitOut {
  Result<std::size_t, OffloadError> r = fail(OffloadError::kCount);
  std::vector<PacketBytes> packets;
};

// Validates `h` against `pkt` and splits it into a batch of `slots` packets.
SplitOut run_split(const VnetHdr& h, const PacketBytes& pkt, std::size_t slots = 64,
                   OffloadLimits limits = {}) {
  SplitOut out;
  PacketBatch batch(slots, 65535);
  auto m = validate_offload(h, pkt, limits);
  if (!m) {
    out.r = fail(m.error());
    return out;
  }
  out.r = gso_split_all(pkt, *m, batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    out.packets.emplace_back(batch.packet(i).begin(), batch.packet(i).end());
  }
  return out;
}

std::vector<std::size_t> sizes(const std::vector<PacketBytes>& v) {
  std::vector<std::size_t> s;
  for (auto& p : v) s.push_back(p.size());
  return s;
}

PacketBytes super_tcp(int version, std::uint32_t seq, std::size_t payload, std::uint8_t flags,
                      std::vector<std::uint8_t> options = {}) {
  test::PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.flags = flags;
  s.tcp_options = std::move(options);
  s.partial_csum = true;
  return test::build_packet(version == 6 ? test::v6(s) : s);
}
PacketBytes super_udp(int version, std::size_t payload) {
  test::PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.partial_csum = true;
  return test::build_packet(version == 6 ? test::v6(s) : s);
}

void expect_all_valid(const std::vector<PacketBytes>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_TRUE(test::ref_checksums_ok(v[i])) << "packet " << i;
  }
}

// 3: NONE + NEEDS_CSUM -> one packet with the completed checksum.
TEST(OffloadSplit, CompletesPartialChecksumOfSinglePacket) {
  test::PacketSpec s;
  s.proto = 17;
  auto full = test::build_packet(s);
  s.partial_csum = true;
  auto out = run_split({1, 0, 0, 0, 20, 6}, test::build_packet(s));
  ASSERT_TRUE(out.r.ok());
  ASSERT_EQ(out.packets.size(), 1u);
  EXPECT_EQ(out.packets[0], full);
  s = test::v6(s);
  s.proto = 6;
  auto out6 = run_split({1, 0, 0, 0, 40, 16}, test::build_packet(s));
  s.partial_csum = false;
  ASSERT_EQ(out6.packets.size(), 1u);
  EXPECT_EQ(out6.packets[0], test::build_packet(s));
}

// 4: a plain header passes the packet through byte-identical.
TEST(OffloadSplit, PassThrough) {
  auto p = test::tcp4(7, 333);
  auto out = run_split({}, p);
  ASSERT_EQ(out.packets.size(), 1u);
  EXPECT_EQ(out.packets[0], p);
}

// 5: tcp4 split.
TEST(OffloadSplit, Tcp4) {
  auto out = run_split({1, 1, 40, 100, 20, 16}, super_tcp(4, 1, 200, test::kAck | test::kPsh));
  ASSERT_TRUE(out.r.ok());
  ASSERT_EQ(sizes(out.packets), (std::vector<std::size_t>{140, 140}));
  EXPECT_EQ(rd32(&out.packets[0][24]), 1u);
  EXPECT_EQ(rd32(&out.packets[1][24]), 101u);
  EXPECT_EQ(out.packets[0][33], test::kAck);
  EXPECT_EQ(out.packets[1][33], test::kAck | test::kPsh);
  EXPECT_EQ(rd16(&out.packets[0][4]), 0x1234);
  EXPECT_EQ(rd16(&out.packets[1][4]), 0x1235);
  EXPECT_EQ(rd16(&out.packets[0][2]), 140);
  EXPECT_EQ(rd16(&out.packets[1][2]), 140);
  expect_all_valid(out.packets);
  // Each segment equals the packet a sender would have built directly.
  EXPECT_EQ(out.packets[0], test::tcp4(1, 100));
}

// 6: tcp6 split.
TEST(OffloadSplit, Tcp6) {
  auto out = run_split({1, 4, 60, 100, 40, 16}, super_tcp(6, 1, 200, test::kAck));
  ASSERT_EQ(sizes(out.packets), (std::vector<std::size_t>{160, 160}));
  EXPECT_EQ(rd16(&out.packets[0][4]), 120);
  EXPECT_EQ(rd16(&out.packets[1][4]), 120);
  expect_all_valid(out.packets);
  EXPECT_EQ(out.packets[1], test::tcp6(101, 100));
}

// 7: udp4 / udp6 split.
TEST(OffloadSplit, Udp4AndUdp6) {
  auto o4 = run_split({1, 5, 28, 100, 20, 6}, super_udp(4, 200));
  ASSERT_EQ(sizes(o4.packets), (std::vector<std::size_t>{128, 128}));
  auto o6 = run_split({1, 5, 48, 100, 40, 6}, super_udp(6, 200));
  ASSERT_EQ(sizes(o6.packets), (std::vector<std::size_t>{148, 148}));
  for (auto* v : {&o4.packets, &o6.packets}) {
    for (auto& p : *v) {
      EXPECT_EQ(rd16(&p[test::ip_header_len(p) + 4]), 108);
      EXPECT_NE(rd16(&p[test::ip_header_len(p) + 6]), 0);  // 0 is never emitted
    }
    expect_all_valid(*v);
  }
}

// 8: short tail, FIN and PSH only on the last segment, other flags copied.
TEST(OffloadSplit, ShortTailAndFin) {
  const std::uint8_t flags = test::kAck | test::kPsh | test::kFin | test::kUrg;
  auto out = run_split({1, 1, 40, 100, 20, 16}, super_tcp(4, 1, 250, flags));
  ASSERT_EQ(sizes(out.packets), (std::vector<std::size_t>{140, 140, 90}));
  EXPECT_EQ(rd32(&out.packets[2][24]), 201u);
  EXPECT_EQ(out.packets[0][33], test::kAck | test::kUrg);
  EXPECT_EQ(out.packets[1][33], test::kAck | test::kUrg);
  EXPECT_EQ(out.packets[2][33], flags);
  expect_all_valid(out.packets);
}

// 9: IPv4 ID and sequence numbers wrap.
TEST(OffloadSplit, WrapAround) {
  test::PacketSpec s;
  s.seq = 0xFFFFFF9C;
  s.ip_id = 0xFFFF;
  s.payload = 300;
  s.partial_csum = true;
  auto out = run_split({1, 1, 40, 100, 20, 16}, test::build_packet(s));
  ASSERT_EQ(out.packets.size(), 3u);
  EXPECT_EQ(rd16(&out.packets[0][4]), 0xFFFF);
  EXPECT_EQ(rd16(&out.packets[1][4]), 0x0000);
  EXPECT_EQ(rd16(&out.packets[2][4]), 0x0001);
  EXPECT_EQ(rd32(&out.packets[0][24]), 0xFFFFFF9Cu);
  EXPECT_EQ(rd32(&out.packets[1][24]), 0x00000000u);
  EXPECT_EQ(rd32(&out.packets[2][24]), 0x00000064u);
  expect_all_valid(out.packets);
}

// 10: hdr_len is recomputed, never trusted.
TEST(OffloadSplit, HdrLenIsNotTrusted) {
  auto pkt = super_tcp(4, 1, 200, test::kAck | test::kPsh);
  auto ref = run_split({1, 1, 40, 100, 20, 16}, pkt);
  for (int hl : {0, 140, 9999}) {
    auto out = run_split({1, 1, static_cast<std::uint16_t>(hl), 100, 20, 16}, pkt);
    EXPECT_EQ(out.packets, ref.packets) << "hdr_len " << hl;
  }
  std::vector<std::uint8_t> ts = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};  // NOP NOP TS
  auto pts = super_tcp(4, 1, 200, test::kAck, ts);
  auto m = validate_offload({1, 1, 40, 100, 20, 16}, pts);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->hdr_len, 52);
  auto out = run_split({1, 1, 40, 100, 20, 16}, pts);
  ASSERT_EQ(sizes(out.packets), (std::vector<std::size_t>{152, 152}));
  EXPECT_EQ(out.packets[1][32] >> 4, 8);  // 32-byte TCP header on every segment
  EXPECT_EQ(0, std::memcmp(&out.packets[1][40], ts.data(), ts.size()));
  expect_all_valid(out.packets);
}

// 11: a 64 KiB super-packet; and a batch with too few slots.
TEST(OffloadSplit, MaximalSuperPacket) {
  std::vector<std::uint8_t> ts = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  auto pkt = super_tcp(4, 1000, 64776 - 52, test::kAck, ts);
  ASSERT_EQ(pkt.size(), 64776u);
  const VnetHdr h{1, 1, 52, 1368, 20, 16};
  auto out = run_split(h, pkt);
  ASSERT_TRUE(out.r.ok());
  ASSERT_EQ(out.packets.size(), 48u);
  for (std::size_t i = 0; i < 47; ++i) {
    EXPECT_EQ(out.packets[i].size(), 1420u);
    EXPECT_EQ(rd32(&out.packets[i][24]), 1000u + i * 1368);
  }
  EXPECT_EQ(out.packets[47].size(), 480u);
  expect_all_valid(out.packets);

  // Only 32 slots: all-or-nothing split refuses and writes nothing.
  auto m = validate_offload(h, pkt);
  ASSERT_TRUE(m.ok());
  PacketBatch small(32, 1500);
  auto r = gso_split_all(pkt, *m, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), OffloadError::too_many_segments);
  EXPECT_EQ(small.size(), 0u);

  // Resumable split: 32 now, 16 on the next call, same bytes as the one-shot split.
  SplitCursor cursor;
  auto p1 = gso_split(pkt, *m, small, cursor);
  ASSERT_TRUE(p1.ok());
  EXPECT_EQ(p1->emitted, 32u);
  EXPECT_FALSE(p1->done);
  EXPECT_EQ(small.size(), 32u);
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_TRUE(std::equal(small.packet(i).begin(), small.packet(i).end(), out.packets[i].begin(),
                           out.packets[i].end()));
  }
  small.clear();
  auto p2 = gso_split(pkt, *m, small, cursor);
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->emitted, 16u);
  EXPECT_TRUE(p2->done);
  EXPECT_TRUE(std::equal(small.packet(15).begin(), small.packet(15).end(), out.packets[47].begin(),
                         out.packets[47].end()));
}

OffloadError split_error(const VnetHdr& h, const PacketBytes& p, OffloadLimits l = {}) {
  auto out = run_split(h, p, 64, l);
  EXPECT_FALSE(out.r.ok());
  EXPECT_TRUE(out.packets.empty());
  return out.r.ok() ? OffloadError::kCount : out.r.error();
}

// 12: malformed gso types.
TEST(OffloadSplit, MalformedTypes) {
  auto p = super_tcp(4, 1, 200, test::kAck);
  EXPECT_EQ(split_error({1, 2, 40, 100, 20, 16}, p), OffloadError::bad_gso_type);
  EXPECT_EQ(split_error({1, 3, 28, 100, 20, 6}, super_udp(4, 200)), OffloadError::bad_gso_type);
  EXPECT_EQ(split_error({1, 0x81, 40, 100, 20, 16}, p), OffloadError::ecn_not_negotiated);
  EXPECT_EQ(split_error({1, 6, 40, 100, 20, 16}, p), OffloadError::bad_gso_type);
  EXPECT_EQ(split_error({4 | 1, 1, 40, 100, 20, 16}, p), OffloadError::bad_flags);
}

// 13: IP version mismatches.
TEST(OffloadSplit, VersionMismatch) {
  EXPECT_EQ(split_error({1, 4, 40, 100, 20, 16}, super_tcp(4, 1, 200, test::kAck)),
            OffloadError::version_mismatch);
  EXPECT_EQ(split_error({1, 1, 60, 100, 40, 16}, super_tcp(6, 1, 200, test::kAck)),
            OffloadError::version_mismatch);
  for (int v : {0, 5}) {
    auto p = super_tcp(4, 1, 200, test::kAck);
    p[0] = static_cast<std::uint8_t>((v << 4) | 5);
    EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, p), OffloadError::bad_ip_version);
  }
}

// 14: bad TCP header lengths; a packet too short to hold a TCP header.
TEST(OffloadSplit, BadTcpHeader) {
  auto p = super_tcp(4, 1, 200, test::kAck);
  p[32] = 4 << 4;  // 16 bytes
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, p), OffloadError::bad_tcp_header_len);
  auto q = super_tcp(4, 1, 20, test::kAck);  // 60 bytes in all
  q[32] = 15 << 4;                           // claims 60 bytes of TCP header
  EXPECT_EQ(split_error({1, 1, 40, 10, 20, 16}, q), OffloadError::hdr_len_exceeds_packet);
  PacketBytes shortp(32, 0);  // csum_start + 12 bytes
  std::copy(p.begin(), p.begin() + 32, shortp.begin());
  test::wr16(&shortp[2], 32);
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, shortp), OffloadError::packet_too_short);
}

// 15: bounds and consistency (the last three are stricter than wireguard-go).
TEST(OffloadSplit, Bounds) {
  auto p = super_tcp(4, 1, 200, test::kAck);
  EXPECT_EQ(split_error({1, 0, 0, 0, 20, static_cast<std::uint16_t>(p.size() - 21)}, p),
            OffloadError::csum_out_of_bounds);
  auto hdr_only = super_tcp(4, 1, 0, test::kAck);
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, hdr_only), OffloadError::empty_payload);
  EXPECT_EQ(split_error({1, 1, 40, 100, 24, 16}, p), OffloadError::csum_start_mismatch);
  EXPECT_EQ(split_error({1, 1, 40, 0, 20, 16}, p), OffloadError::zero_gso_size);
  auto bad_len = p;
  test::wr16(&bad_len[2], static_cast<std::uint32_t>(p.size() - 1));
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, bad_len), OffloadError::ip_length_mismatch);
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 6}, p), OffloadError::bad_csum_offset);
  EXPECT_EQ(split_error({0, 1, 40, 100, 20, 16}, p), OffloadError::missing_needs_csum);
  auto udp = super_udp(4, 200);
  test::wr16(&udp[24], 99);
  EXPECT_EQ(split_error({1, 5, 28, 100, 20, 6}, udp), OffloadError::udp_length_mismatch);
  EXPECT_EQ(split_error({1, 1, 40, 1400, 20, 16}, super_tcp(4, 1, 3000, test::kAck),
                        OffloadLimits{1420, 0}),
            OffloadError::segment_exceeds_mtu);
  EXPECT_EQ(split_error({1, 5, 28, 10, 20, 6}, super_udp(4, 1000), OffloadLimits{0, 64}),
            OffloadError::too_many_segments);
  auto proto = p;
  proto[9] = 17;
  EXPECT_EQ(split_error({1, 1, 40, 100, 20, 16}, proto), OffloadError::protocol_mismatch);
}

TEST(OffloadSplit, SegmentLargerThanSlotIsRefused) {
  auto pkt = super_tcp(4, 1, 3000, test::kAck);
  auto m = validate_offload({1, 1, 40, 1400, 20, 16}, pkt);
  ASSERT_TRUE(m.ok());
  PacketBatch b(8, 1000);
  auto r = gso_split_all(pkt, *m, b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), OffloadError::output_too_small);
  EXPECT_EQ(b.size(), 0u);
}

TEST(OffloadCounters, CountsByReason) {
  OffloadCounters c;
  c.count(OffloadError::zero_gso_size);
  c.count(OffloadError::zero_gso_size);
  c.count(OffloadError::bad_flags);
  EXPECT_EQ(c.get(OffloadError::zero_gso_size), 2u);
  EXPECT_EQ(c.total(), 3u);
  EXPECT_EQ(to_string(OffloadError::zero_gso_size), "zero_gso_size");
}

}  // namespace
}  // namespace qeli::tunio
