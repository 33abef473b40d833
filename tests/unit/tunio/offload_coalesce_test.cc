// Write side: GRO coalesce, checklist cases 16-28 (../shared/checklists/gso-gro.md).
#include "tunio/offload_coalesce.h"

#include <gtest/gtest.h>

#include "fakes/packet_builder.h"
#include "tunio/checksum.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using test::PacketBytes;
using test::PacketSpec;

struct GroOut {
  std::vector<std::size_t> index;  // surviving packets, in batch order
  std::vector<std::size_t> len;
  std::vector<GsoMetadata> meta;
  std::vector<PacketBytes> bytes;
  GroStats stats;
};

GroOut gro(const std::vector<PacketBytes>& in, GroOptions opt = {}, std::size_t slot = 65535) {
  PacketBatch b(in.size() + 1, slot, 16);
  GroTable t(in.size() + 1);
  for (auto& p : in) EXPECT_TRUE(b.push(p));
  GroOut out;
  out.stats = gro_coalesce(b, opt, t);
  std::size_t logical = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    logical += b.logical(i);
    if (b.logical(i) == 0) continue;
    out.index.push_back(i);
    out.len.push_back(b.packet(i).size());
    out.meta.push_back(b.meta(i));
    out.bytes.emplace_back(b.packet(i).begin(), b.packet(i).end());
  }
  EXPECT_EQ(logical, in.size());  // every input accounted for exactly once
  return out;
}

using V = std::vector<std::size_t>;

PacketBytes tcp(int version, std::uint32_t seq, std::size_t payload,
                std::uint8_t flags = test::kAck, std::uint16_t dport = 2) {
  PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.flags = flags;
  s.dport = dport;
  return test::build_packet(version == 6 ? test::v6(s) : s);
}
PacketBytes udp(int version, std::size_t payload, std::uint16_t dport = 2) {
  PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.dport = dport;
  return test::build_packet(version == 6 ? test::v6(s) : s);
}

// 16: two in-order TCP segments.
TEST(OffloadCoalesce, TwoInOrderTcpSegments) {
  auto out = gro({test::tcp4(1, 100), test::tcp4(101, 100)});
  ASSERT_EQ(out.index, V{0});
  ASSERT_EQ(out.len, V{240});
  EXPECT_EQ(to_vnet_hdr(out.meta[0]), (VnetHdr{1, 1, 40, 100, 20, 16}));
  const auto& p = out.bytes[0];
  EXPECT_EQ(test::rd16(&p[2]), 240);
  EXPECT_EQ(test::ref_fold(test::ref_sum(p.data(), 20)), 0xffff);     // IPv4 header checksum
  EXPECT_EQ(test::rd16(&p[36]), test::ref_pseudo(p.data(), 6, 220));  // partial, not ~
  // The payload is the two segments' payloads back to back.
  auto whole = test::tcp4(1, 200);
  EXPECT_TRUE(std::equal(p.begin() + 40, p.end(), whole.begin() + 40));
  EXPECT_EQ(out.stats.merged, 1u);
  EXPECT_EQ(out.stats.groups, 1u);
}

std::vector<PacketBytes> mixed_batch() {
  return {
      tcp(4, 1, 100),                   // tcp4 flow 1
      udp(4, 100),                      // udp4 flow 1
      udp(4, 100, 3),                   // udp4 flow 2
      tcp(4, 101, 100),                 // tcp4 flow 1
      tcp(4, 201, 100, test::kAck, 3),  // tcp4 flow 2
      tcp(6, 1, 100),                   // tcp6 flow 1
      tcp(6, 101, 100),                 // tcp6 flow 1
      tcp(6, 201, 100, test::kAck, 3),  // tcp6 flow 2
      udp(4, 100),                      // udp4 flow 1
      udp(6, 100),                      // udp6 flow 1
      udp(6, 100),                      // udp6 flow 1
  };
}

// 17: wireguard-go's "multiple protocols and flows", with and without UDP GRO.
TEST(OffloadCoalesce, MixedBatchLikeWireguardGo) {
  GroOptions opt;
  opt.udp = true;
  auto out = gro(mixed_batch(), opt);
  EXPECT_EQ(out.index, (V{0, 1, 2, 4, 5, 7, 9}));
  EXPECT_EQ(out.len, (V{240, 228, 128, 140, 260, 160, 248}));
  EXPECT_EQ(out.meta[1].type, GsoType::udp4);
  EXPECT_EQ(to_vnet_hdr(out.meta[1]), (VnetHdr{1, 5, 28, 100, 20, 6}));
  EXPECT_EQ(to_vnet_hdr(out.meta[6]), (VnetHdr{1, 5, 48, 100, 40, 6}));
  EXPECT_EQ(to_vnet_hdr(out.meta[4]), (VnetHdr{1, 4, 60, 100, 40, 16}));
  EXPECT_TRUE(out.meta[2].is_plain());
  opt.udp = false;
  auto no_udp = gro(mixed_batch(), opt);
  EXPECT_EQ(no_udp.index, (V{0, 1, 2, 4, 5, 7, 8, 9, 10}));
  EXPECT_EQ(no_udp.len, (V{240, 128, 128, 140, 260, 160, 128, 148, 148}));
}

// 18: PSH closes a group; a PSH packet is never prepended.
TEST(OffloadCoalesce, PshClosesGroup) {
  auto out = gro({tcp(4, 1, 100), tcp(4, 101, 100, test::kAck | test::kPsh), tcp(4, 201, 100),
                  tcp(4, 301, 100)});
  EXPECT_EQ(out.index, (V{0, 2}));
  EXPECT_EQ(out.len, (V{240, 240}));
  EXPECT_EQ(out.bytes[0][33], test::kAck | test::kPsh);
  EXPECT_EQ(out.bytes[1][33], test::kAck);
  auto pre = gro({tcp(4, 101, 100), tcp(4, 1, 100, test::kAck | test::kPsh)});
  EXPECT_EQ(pre.index, (V{0, 1}));
}

// 19: out of order: prepend then append, head kept at the first-seen index.
TEST(OffloadCoalesce, OutOfOrder) {
  auto out = gro({tcp(4, 101, 100), tcp(4, 1, 100), tcp(4, 201, 100)});
  ASSERT_EQ(out.index, V{0});
  ASSERT_EQ(out.len, V{340});
  EXPECT_EQ(test::rd32(&out.bytes[0][24]), 1u);
  auto whole = test::tcp4(1, 300);
  EXPECT_TRUE(std::equal(out.bytes[0].begin() + 40, out.bytes[0].end(), whole.begin() + 40));
}

// 20: a bad checksum is never merged; the bad packet is written alone, unmodified.
TEST(OffloadCoalesce, BadChecksum) {
  auto bad = tcp(4, 1, 100);
  bad[50] ^= 0xff;
  auto out = gro({bad, tcp(4, 101, 100), tcp(4, 201, 100)});
  EXPECT_EQ(out.index, (V{0, 1}));
  EXPECT_EQ(out.len, (V{140, 240}));
  EXPECT_EQ(out.bytes[0], bad);
  EXPECT_TRUE(out.meta[0].is_plain());
  EXPECT_EQ(out.stats.bad_checksum, 1u);
  auto badu = udp(4, 100);
  badu[40] ^= 0xff;
  GroOptions opt;
  opt.udp = true;
  auto u = gro({badu, udp(4, 100), udp(4, 100)}, opt);
  EXPECT_EQ(u.len, (V{128, 228}));
  // A bad packet after a good one: the good one stays alone too.
  auto bad2 = tcp(4, 101, 100);
  bad2[60] ^= 1;
  auto v = gro({tcp(4, 1, 100), bad2});
  EXPECT_EQ(v.len, (V{140, 140}));
  auto badip = tcp(4, 101, 100);
  badip[8] ^= 1;  // TTL changes only after the header checksum: header checksum wrong
  badip[8] ^= 1;
  badip[10] ^= 1;
  auto w = gro({tcp(4, 1, 100), badip});
  EXPECT_EQ(w.len, (V{140, 140}));
}

// 21: IP header fields that must match.
TEST(OffloadCoalesce, IpFieldMismatch) {
  auto variant = [](int version, auto mutate) {
    PacketSpec s;
    s.seq = 101;
    if (version == 6) s = test::v6(s);
    mutate(s);
    return test::build_packet(s);
  };
  auto check_separate = [&](int version, auto mutate) {
    auto out = gro({tcp(version, 1, 100), variant(version, mutate)});
    EXPECT_EQ(out.index.size(), 2u);
  };
  check_separate(4, [](PacketSpec& s) { s.ttl = 63; });
  check_separate(4, [](PacketSpec& s) { s.tos = 4; });
  check_separate(4, [](PacketSpec& s) { s.frag = 0x4000; });  // DF
  check_separate(6, [](PacketSpec& s) { s.ttl = 63; });       // hop limit
  check_separate(6, [](PacketSpec& s) { s.tos = 0x10; });     // traffic class
  auto mf = variant(4, [](PacketSpec& s) { s.frag = 0x2000; });
  auto out = gro({tcp(4, 1, 100), mf, tcp(4, 201, 100)});
  EXPECT_EQ(out.index, (V{0, 1, 2}));  // MF packet alone; 1 and 201 are not adjacent
  auto off = variant(4, [](PacketSpec& s) { s.frag = 0x0001; });
  EXPECT_EQ(gro({off, tcp(4, 201, 100)}).index.size(), 2u);
  EXPECT_TRUE(gro({off, off}).meta[0].is_plain());
}

// 22: TCP flags and shapes that are never merged.
TEST(OffloadCoalesce, TcpFlagFilter) {
  for (int f : {test::kSyn | test::kAck, test::kFin | test::kAck, test::kRst | test::kAck,
                test::kUrg | test::kAck, test::kEce | test::kAck, test::kCwr | test::kAck, 0}) {
    auto out = gro({tcp(4, 1, 100), tcp(4, 101, 100, static_cast<std::uint8_t>(f))});
    EXPECT_EQ(out.index.size(), 2u) << int(f);
    EXPECT_TRUE(out.meta[1].is_plain());
  }
  EXPECT_EQ(gro({tcp(4, 1, 0), tcp(4, 1, 0)}).index.size(), 2u);  // pure ACKs
  // Different ACK numbers: different flows.
  PacketSpec s;
  s.seq = 101;
  s.ack = 2;
  EXPECT_EQ(gro({tcp(4, 1, 100), test::build_packet(s)}).index.size(), 2u);
  // Different options, or option lengths.
  PacketSpec a, b;
  a.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  b = a;
  b.seq = 101;
  b.tcp_options[7] = 9;
  EXPECT_EQ(gro({test::build_packet(a), test::build_packet(b)}).index.size(), 2u);
  b.tcp_options = {1, 1, 1, 1};
  EXPECT_EQ(gro({test::build_packet(a), test::build_packet(b)}).index.size(), 2u);
  b.tcp_options = a.tcp_options;
  auto same = gro({test::build_packet(a), test::build_packet(b)});
  ASSERT_EQ(same.index.size(), 1u);
  EXPECT_EQ(same.meta[0].hdr_len, 52);
}

// 23: segment size rules and size limits.
TEST(OffloadCoalesce, SizeRules) {
  auto out = gro({tcp(4, 1, 100), tcp(4, 101, 100), tcp(4, 201, 60), tcp(4, 261, 100)});
  EXPECT_EQ(out.len, (V{300, 140}));
  EXPECT_EQ(out.meta[0].gso_size, 100);
  EXPECT_EQ(gro({tcp(4, 1, 60), tcp(4, 61, 100)}).index.size(), 2u);
  // 65535-byte limit: 1400-byte segments, 47 fit (40 + 46*1400 + ... ) then a new group.
  std::vector<PacketBytes> big;
  for (std::uint32_t i = 0; i < 48; ++i) big.push_back(tcp(4, 1 + i * 1400, 1400));
  auto lim = gro(big);
  ASSERT_EQ(lim.index.size(), 2u);
  EXPECT_LE(lim.len[0], 65535u);
  EXPECT_EQ(lim.len[0], 40u + 46 * 1400);
  // Slot capacity: 300-byte slots hold at most two 100-byte segments plus headers.
  auto cap = gro({tcp(4, 1, 100), tcp(4, 101, 100), tcp(4, 201, 100)}, {}, 300);
  EXPECT_EQ(cap.len, (V{240, 140}));
}

// 24: UDP order rules.
TEST(OffloadCoalesce, UdpOrder) {
  GroOptions opt;
  opt.udp = true;
  auto out = gro({udp(4, 100), udp(4, 100, 3), udp(4, 100)}, opt);
  EXPECT_EQ(out.len, (V{228, 128}));
  auto tail = gro({udp(4, 100), udp(4, 60), udp(4, 100)}, opt);
  EXPECT_EQ(tail.len, (V{188, 128}));  // the short datagram ends the group
  auto larger = gro({udp(4, 60), udp(4, 100)}, opt);
  EXPECT_EQ(larger.len, (V{88, 128}));
  // Only the newest group of a flow grows: A(100) A(60) A(100) A(100) -> [188, 228].
  auto last = gro({udp(4, 100), udp(4, 60), udp(4, 100), udp(4, 100)}, opt);
  EXPECT_EQ(last.len, (V{188, 228}));
}

// Found by the coalesce fuzzer: an IPv4 datagram without a checksum (0) is never merged,
// since its bytes cannot be verified before the group gets a fresh checksum.
TEST(OffloadCoalesce, UdpWithoutChecksumStaysAlone) {
  GroOptions opt;
  opt.udp = true;
  auto nocsum = udp(4, 100);
  nocsum[26] = nocsum[27] = 0;
  EXPECT_EQ(gro({udp(4, 100), nocsum}, opt).len, (V{128, 128}));
  EXPECT_EQ(gro({nocsum, udp(4, 100)}, opt).len, (V{128, 128}));
}

// 25: UDP segment cap.
TEST(OffloadCoalesce, UdpSegmentCap) {
  GroOptions opt;
  opt.udp = true;
  std::vector<PacketBytes> in(130, udp(4, 100));
  for (std::size_t cap : {64u, 128u}) {
    opt.max_udp_segments = cap;
    auto out = gro(in, opt);
    for (std::size_t i = 0; i < out.index.size(); ++i) {
      EXPECT_LE(segment_count(out.meta[i], out.len[i]), cap);
    }
    EXPECT_EQ(out.index.size(), (130 + cap - 1) / cap);
  }
}

// 26: packets that are not candidates pass untouched.
TEST(OffloadCoalesce, NonCandidates) {
  PacketSpec opts4;
  auto ihl6 = test::build_packet(opts4);
  ihl6.insert(ihl6.begin() + 20, {1, 1, 1, 1});  // IPv4 option NOPs
  ihl6[0] = 0x46;
  test::wr16(&ihl6[2], static_cast<std::uint32_t>(ihl6.size()));
  test::fix_ipv4_checksum(ihl6);
  test::fix_l4_checksum(ihl6);
  auto hbh = tcp(6, 101, 100);
  hbh[6] = 0;  // hop-by-hop next header
  auto icmp = tcp(4, 101, 100);
  icmp[9] = 1;
  auto gre = tcp(4, 101, 100);
  gre[9] = 47;
  std::vector<PacketBytes> in = {ihl6, hbh, icmp, gre};
  for (auto [p, n] :
       {std::pair{tcp(4, 1, 0), 39}, {tcp(6, 1, 0), 59}, {udp(4, 0), 27}, {udp(6, 0), 47}}) {
    p.resize(static_cast<std::size_t>(n));
    in.push_back(p);
  }
  GroOptions opt;
  opt.udp = true;
  auto doubled = in;
  doubled.insert(doubled.end(), in.begin(), in.end());
  auto out = gro(doubled, opt);
  ASSERT_EQ(out.index.size(), doubled.size());
  for (std::size_t i = 0; i < doubled.size(); ++i) {
    EXPECT_EQ(out.bytes[i], doubled[i]) << i;
    EXPECT_TRUE(out.meta[i].is_plain());
  }
}

// 28: GRO disabled per protocol: one-to-one.
TEST(OffloadCoalesce, Disabled) {
  GroOptions off;
  off.tcp = false;
  off.udp = false;
  auto in = mixed_batch();
  auto out = gro(in, off);
  ASSERT_EQ(out.index.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out.bytes[i], in[i]);
    EXPECT_TRUE(out.meta[i].is_plain());
  }
}

// A merged packet is exactly what the kernel would accept and what split undoes.
TEST(OffloadCoalesce, OutputValidatesAndSplitsBack) {
  std::vector<PacketBytes> in;
  for (std::uint32_t i = 0; i < 5; ++i) in.push_back(tcp(6, 1 + i * 100, 100));
  in.push_back(tcp(6, 501, 30, test::kAck | test::kPsh));
  auto out = gro(in);
  ASSERT_EQ(out.index.size(), 1u);
  auto m = validate_offload(to_vnet_hdr(out.meta[0]), out.bytes[0]);
  ASSERT_TRUE(m.ok()) << to_string(m.error());
  EXPECT_EQ(*m, out.meta[0]);
  PacketBatch back(16, 1500);
  ASSERT_TRUE(gso_split_all(out.bytes[0], *m, back).ok());
  ASSERT_EQ(back.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_TRUE(
        std::equal(back.packet(i).begin(), back.packet(i).end(), in[i].begin(), in[i].end()))
        << i;
  }
}

TEST(OffloadCoalesce, TableIsReusedAcrossCalls) {
  PacketBatch b(4, 65535);
  GroTable t(4);
  for (int round = 0; round < 3; ++round) {
    b.clear();
    ASSERT_TRUE(b.push(test::tcp4(1, 100)));
    ASSERT_TRUE(b.push(test::tcp4(101, 100)));
    auto s = gro_coalesce(b, {}, t);
    EXPECT_EQ(s.merged, 1u);  // no stale flow from the previous round
    EXPECT_EQ(b.packet(0).size(), 240u);
  }
}

}  // namespace
}  // namespace qeli::tunio
