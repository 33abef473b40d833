// check_mtu and write_icmp_frag_needed (tunio/mtu_clamp.h): the verdict table, every
// field of the ICMP "fragmentation needed" message (RFC 792, RFC 1191 §4), both
// checksums verified with the slow reference sum of packet_builder.h (not tunio's
// checksum code), and every case in which no ICMP may be sent (RFC 1122 §3.2.2).
#include "tunio/mtu_clamp.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "fakes/packet_builder.h"

namespace qeli::tunio {
namespace {

using test::PacketBytes;
using test::rd16;
using test::rd32;
using test::ref_fold;
using test::ref_sum;

constexpr std::uint16_t kDf = 0x4000;

PacketBytes packet(std::size_t payload, std::uint16_t frag = kDf, std::uint8_t proto = 6) {
  test::PacketSpec s;
  s.payload = payload;
  s.frag = frag;
  s.proto = proto;
  s.src = {10, 9, 0, 1};
  s.dst = {10, 9, 0, 2};
  return test::build_packet(s);
}

TEST(MtuClamp, VerdictTable) {
  const GsoMetadata plain;
  // 40 bytes of headers + payload.
  EXPECT_EQ(check_mtu(packet(1160), plain, 1200), MtuVerdict::kFits);  // exactly the MTU
  EXPECT_EQ(check_mtu(packet(1161), plain, 1200), MtuVerdict::kFragNeeded);
  EXPECT_EQ(check_mtu(packet(1161, 0), plain, 1200), MtuVerdict::kDrop);     // DF clear
  EXPECT_EQ(check_mtu(packet(1361), plain, 1400), MtuVerdict::kFragNeeded);  // 1401 bytes
}

TEST(MtuClamp, BoundaryIsInclusive) {
  const GsoMetadata plain;
  const auto p = packet(1360);  // 1400 bytes
  ASSERT_EQ(p.size(), 1400u);
  EXPECT_EQ(check_mtu(p, plain, 1400), MtuVerdict::kFits);
  EXPECT_EQ(check_mtu(p, plain, 1399), MtuVerdict::kFragNeeded);
}

TEST(MtuClamp, SuperPacketJudgedBySegment) {
  GsoMetadata m;
  m.type = GsoType::tcp4;
  m.hdr_len = 40;
  m.gso_size = 1360;  // segments of 1400 bytes
  const auto p = packet(20000);
  EXPECT_EQ(check_mtu(p, m, 1400), MtuVerdict::kFits);  // 20 KiB whole, but segments fit
  EXPECT_EQ(check_mtu(p, m, 1280), MtuVerdict::kFragNeeded);
  const auto no_df = packet(20000, 0);
  EXPECT_EQ(check_mtu(no_df, m, 1280), MtuVerdict::kDrop);
}

TEST(MtuClamp, NotIpFits) {
  const GsoMetadata plain;
  PacketBytes junk(10, 0x45);
  EXPECT_EQ(check_mtu(junk, plain, 576), MtuVerdict::kFits);
  PacketBytes v6_short(39, 0x60);  // shorter than the IPv6 header
  EXPECT_EQ(check_mtu(v6_short, plain, 20), MtuVerdict::kFits);
}

PacketBytes packet6(std::size_t payload, std::uint8_t proto = 6) {
  test::PacketSpec s;
  s.version = 6;
  s.proto = proto;
  s.payload = payload;
  s.src = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  s.dst = {0xfd, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
  return test::build_packet(s);
}

TEST(MtuClamp, Ipv6AboveTheMtuIsPacketTooBig) {
  const GsoMetadata plain;
  const auto p = packet6(1300);  // 40 + 20 + 1300 = 1360 bytes
  EXPECT_EQ(check_mtu(p, plain, 1360), MtuVerdict::kFits);
  EXPECT_EQ(check_mtu(p, plain, 1359), MtuVerdict::kPacketTooBig);
  // A TSO6 super-packet is judged by one segment.
  GsoMetadata tso;
  tso.type = GsoType::tcp6;
  tso.hdr_len = 60;
  tso.gso_size = 1300;
  const auto big = packet6(20000);
  EXPECT_EQ(check_mtu(big, tso, 1360), MtuVerdict::kFits);
  EXPECT_EQ(check_mtu(big, tso, 1359), MtuVerdict::kPacketTooBig);
}

TEST(MtuClamp, PacketTooBigFieldsQuoteAndChecksum) {
  const auto p = packet6(1400);  // 1460 bytes
  std::array<std::uint8_t, kIcmpv6PacketTooBigMaxSize> out{};
  const std::size_t n = write_icmpv6_packet_too_big(p, 1380, out);
  ASSERT_EQ(n, 1280u) << "as much of the packet as fits the IPv6 minimum MTU";
  const std::uint8_t* ip = out.data();
  EXPECT_EQ(ip[0] >> 4, 6);
  EXPECT_EQ(rd16(ip + 4), n - 40) << "payload length";
  EXPECT_EQ(ip[6], 58) << "ICMPv6";
  EXPECT_EQ(ip[7], 64) << "hop limit";
  EXPECT_EQ(std::memcmp(ip + 8, p.data() + 24, 16), 0) << "from the original destination";
  EXPECT_EQ(std::memcmp(ip + 24, p.data() + 8, 16), 0) << "to the original source";
  const std::uint8_t* icmp = ip + 40;
  EXPECT_EQ(icmp[0], 2) << "Packet Too Big";
  EXPECT_EQ(icmp[1], 0);
  EXPECT_EQ(rd32(icmp + 4), 1380u);
  EXPECT_EQ(std::memcmp(icmp + 8, p.data(), n - 48), 0);
  EXPECT_TRUE(test::ref_checksums_ok(out.data(), n)) << "RFC 4443 §2.3 checksum";
  // A short packet is quoted whole.
  const auto small = packet6(10);
  EXPECT_EQ(write_icmpv6_packet_too_big(small, 1280, out), 48u + small.size());
  EXPECT_TRUE(test::ref_checksums_ok(out.data(), 48 + small.size()));
}

TEST(MtuClamp, NoPacketTooBigWhereRfc4443ForbidsOne) {
  std::array<std::uint8_t, kIcmpv6PacketTooBigMaxSize> out{};
  auto p = packet6(1400);
  p[8] = 0xff;  // a multicast source
  EXPECT_EQ(write_icmpv6_packet_too_big(p, 1280, out), 0u);
  p = packet6(1400);
  std::fill(p.begin() + 8, p.begin() + 24, 0);  // the unspecified source
  EXPECT_EQ(write_icmpv6_packet_too_big(p, 1280, out), 0u);
  p = packet6(1400);
  std::fill(p.begin() + 8, p.begin() + 24, 0);
  p[23] = 1;  // ::1
  EXPECT_EQ(write_icmpv6_packet_too_big(p, 1280, out), 0u);
  auto err = packet6(1400, 58);
  err[40] = 1;  // an ICMPv6 error (destination unreachable)
  EXPECT_EQ(write_icmpv6_packet_too_big(err, 1280, out), 0u);
  err[40] = 128;  // an echo request is answered
  EXPECT_GT(write_icmpv6_packet_too_big(err, 1280, out), 0u);
  // Behind extension headers (RFC 8200 §4): an error behind a hop-by-hop header is seen,
  // a non-first fragment is left alone, a first fragment of TCP is answered.
  auto hbh = packet6(1400);
  hbh[6] = 0;    // hop-by-hop options
  hbh[40] = 58;  // … then ICMPv6
  hbh[41] = 0;   // 8 bytes
  hbh[48] = 1;   // destination unreachable: an error
  EXPECT_EQ(write_icmpv6_packet_too_big(hbh, 1280, out), 0u);
  hbh[48] = 128;
  EXPECT_GT(write_icmpv6_packet_too_big(hbh, 1280, out), 0u);
  auto frag = packet6(1400);
  frag[6] = 44;  // fragment header
  frag[40] = 6;  // … of TCP
  frag[42] = 0;
  frag[43] = 8;  // offset 1 (8 bytes): not the first
  EXPECT_EQ(write_icmpv6_packet_too_big(frag, 1280, out), 0u);
  frag[43] = 1;  // offset 0, more fragments: the first
  EXPECT_GT(write_icmpv6_packet_too_big(frag, 1280, out), 0u);
  // Too small an output, or an IPv4 packet: nothing.
  std::array<std::uint8_t, 87> tiny{};
  EXPECT_EQ(write_icmpv6_packet_too_big(packet6(1400), 1280, tiny), 0u);
  EXPECT_EQ(write_icmpv6_packet_too_big(packet(1400), 1280, out), 0u);
}

TEST(MtuClamp, IcmpFieldsAndChecksums) {
  const auto p = packet(1400);
  std::array<std::uint8_t, kIcmpFragNeededMaxSize> out{};
  const std::size_t n = write_icmp_frag_needed(p, 1200, out);
  ASSERT_EQ(n, 20u + 8u + 20u + 8u);
  const std::uint8_t* ip = out.data();
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(rd16(ip + 2), n);
  EXPECT_EQ(rd16(ip + 6) & 0x1fff, 0);            // not a fragment
  EXPECT_EQ(ip[8], 64);                           // TTL
  EXPECT_EQ(ip[9], 1);                            // ICMP
  EXPECT_EQ(rd32(ip + 12), rd32(p.data() + 16));  // from the original destination
  EXPECT_EQ(rd32(ip + 16), rd32(p.data() + 12));  // to the original source
  EXPECT_EQ(ref_fold(ref_sum(ip, 20)), 0xffff) << "IPv4 header checksum";
  const std::uint8_t* icmp = ip + 20;
  EXPECT_EQ(icmp[0], 3);
  EXPECT_EQ(icmp[1], 4);
  EXPECT_EQ(rd16(icmp + 4), 0);  // unused
  EXPECT_EQ(rd16(icmp + 6), 1200);
  EXPECT_EQ(std::memcmp(icmp + 8, p.data(), 28), 0) << "quotes IP header + 8 bytes";
  EXPECT_EQ(ref_fold(ref_sum(icmp, n - 20)), 0xffff) << "ICMP checksum";
}

TEST(MtuClamp, QuotesIpOptionsAndShortPayloads) {
  // A 24-byte header (one 4-byte option: NOP NOP NOP EOL) and a 3-byte payload.
  PacketBytes p(27, 0);
  p[0] = 0x46;
  test::wr16(&p[2], 27);
  test::wr16(&p[6], kDf);
  p[8] = 64;
  p[9] = 17;
  p[12] = 10, p[15] = 7;
  p[16] = 10, p[19] = 8;
  p[20] = 1, p[21] = 1, p[22] = 1, p[23] = 0;
  p[24] = 0xaa, p[25] = 0xbb, p[26] = 0xcc;
  std::array<std::uint8_t, kIcmpFragNeededMaxSize> out{};
  const std::size_t n = write_icmp_frag_needed(p, 576, out);
  ASSERT_EQ(n, 20u + 8u + 27u);
  EXPECT_EQ(std::memcmp(out.data() + 28, p.data(), 27), 0);
  EXPECT_EQ(ref_fold(ref_sum(out.data() + 20, n - 20)), 0xffff);
}

TEST(MtuClamp, NoIcmpWhereRfc1122ForbidsOne) {
  std::array<std::uint8_t, kIcmpFragNeededMaxSize> out{};
  // A non-first fragment.
  EXPECT_EQ(write_icmp_frag_needed(packet(1400, 0x0010), 1200, out), 0u);
  // An ICMP error (destination unreachable) — never an error about an error.
  auto err = packet(1400, kDf, 1);
  err[20] = 3;
  EXPECT_EQ(write_icmp_frag_needed(err, 1200, out), 0u);
  // An ICMP echo request is fine.
  auto echo = packet(1400, kDf, 1);
  echo[20] = 8;
  EXPECT_GT(write_icmp_frag_needed(echo, 1200, out), 0u);
  // Sources we cannot answer; group destinations.
  for (std::array<std::uint8_t, 4> src : {std::array<std::uint8_t, 4>{0, 0, 0, 0},
                                          {127, 0, 0, 1},
                                          {224, 0, 0, 5},
                                          {255, 255, 255, 255}}) {
    auto q = packet(1400);
    std::memcpy(&q[12], src.data(), 4);
    EXPECT_EQ(write_icmp_frag_needed(q, 1200, out), 0u) << int{src[0]};
  }
  auto mc = packet(1400);
  mc[16] = 239;
  EXPECT_EQ(write_icmp_frag_needed(mc, 1200, out), 0u);
  // Malformed: too short, bad IHL, IPv6, and an output buffer that is too small.
  EXPECT_EQ(write_icmp_frag_needed(PacketBytes(19, 0x45), 1200, out), 0u);
  auto bad_ihl = packet(0);
  bad_ihl[0] = 0x4f;  // 60-byte header in a 40-byte packet
  EXPECT_EQ(write_icmp_frag_needed(bad_ihl, 1200, out), 0u);
  test::PacketSpec s6;
  s6.version = 6;
  EXPECT_EQ(write_icmp_frag_needed(test::build_packet(s6), 1200, out), 0u);
  std::array<std::uint8_t, 55> small{};
  EXPECT_EQ(write_icmp_frag_needed(packet(1400), 1200, small), 0u);
}

}  // namespace
}  // namespace qeli::tunio
