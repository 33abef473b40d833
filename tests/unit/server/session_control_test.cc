// server/session_control.h: the MTU report (control frame 1) sets the session's
// peer_mtu and, only when lower than the profile's MTU, its downlink clamp; client info
// (frame 2) is recorded; and fits_peer_mtu() turns oversized downlink packets into ICMP
// "fragmentation needed" for their origin (DF) or IPv4 fragments pushed to the session
// (no DF), checked by the independent reassembler of fakes/ipv4_reassembler.h.
#include "server/session_control.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "base/endian.h"
#include "fakes/ipv4_reassembler.h"
#include "fakes/packet_builder.h"
#include "fakes/receive_frame.h"
#include "tunio/mtu_clamp.h"
#include "wire/control_frame.h"

namespace qeli::server {
namespace {

std::unique_ptr<Session> make_session() {
  return std::make_unique<Session>(1, "alice", "alice", 0x0a4e0002, transport::SockAddr{},
                                   engine::SessionInbox::Geometry{8, 1500, 0, 0});
}

// The client's MTU report as the session's receive side handles it: the tunnel::Receiver
// stores it in s.peer_state, then the server applies it.
void report(Session& s, std::uint16_t mtu, std::uint32_t profile_mtu = 1400) {
  tunnel::ReceiverParams rp;
  rp.on_control = [&](const wire::ControlFrame& f) {
    apply_client_control(s, f, profile_mtu, "test");
  };
  test::receive_frame(std::move(rp), s.counters, s.peer_state, wire::build_mtu_report(mtu));
}

TEST(SessionControl, MtuReportSetsTheClampOnlyBelowTheProfile) {
  auto s = make_session();
  EXPECT_EQ(s->downlink_mtu.load(), 0u);
  report(*s, 1400);
  EXPECT_EQ(s->peer_state.mtu.load(), 1400u);
  EXPECT_EQ(s->downlink_mtu.load(), 0u) << "equal to the profile: the common path";
  report(*s, 9000);
  EXPECT_EQ(s->peer_state.mtu.load(), 9000u);
  EXPECT_EQ(s->downlink_mtu.load(), 0u);
  report(*s, 1200);
  EXPECT_EQ(s->peer_state.mtu.load(), 1200u);
  EXPECT_EQ(s->downlink_mtu.load(), 1200u);
  report(*s, 100);  // clamped to the floor (0.7.16: 576..16638)
  EXPECT_EQ(s->peer_state.mtu.load(), 576u);
  EXPECT_EQ(s->downlink_mtu.load(), 576u);
  report(*s, 1500);  // a later, larger report lifts the clamp again
  EXPECT_EQ(s->downlink_mtu.load(), 0u);
}

TEST(SessionControl, ClientInfoIsRecordedAndOtherTypesIgnored) {
  auto s = make_session();
  const Bytes info = wire::build_client_info("1.2.3", "linux");
  apply_client_control(*s, *wire::parse_control_frame(info), 1400, "test");
  EXPECT_EQ(s->client_version, "1.2.3");
  EXPECT_EQ(s->client_platform, "linux");
  const Bytes caps = wire::build_capabilities(1);
  apply_client_control(*s, *wire::parse_control_frame(caps), 1400, "test");
  EXPECT_EQ(s->peer_state.mtu.load(), 0u);
  const Bytes bad_mtu = {0xc1, 0x9b, 1, 1, 5};  // a 1-byte MTU body: malformed
  apply_client_control(*s, *wire::parse_control_frame(bad_mtu), 1400, "test");
  EXPECT_EQ(s->peer_state.mtu.load(), 0u);
}

test::PacketBytes downlink(std::size_t payload, bool df) {
  test::PacketSpec p;
  p.src = {192, 0, 2, 7};
  p.dst = {10, 78, 0, 2};
  p.payload = payload;
  p.frag = df ? 0x4000 : 0;
  return test::build_packet(p);
}

tunio::GsoMetadata gso(tunio::GsoType type, std::uint16_t hdr_len, std::uint16_t gso_size) {
  tunio::GsoMetadata m;
  m.type = type;
  m.hdr_len = hdr_len;
  m.gso_size = gso_size;
  return m;
}

// The packets queued for the session's send thread (each must be a plain packet).
std::vector<test::PacketBytes> take_inbox(Session& s) {
  tunio::PacketBatch sent = s.inbox.make_batch(8, 0, 0, 0);
  EXPECT_TRUE(s.inbox.fill(sent));
  std::vector<test::PacketBytes> got;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(sent.meta(i).is_plain());
    got.emplace_back(sent.packet(i).begin(), sent.packet(i).end());
  }
  return got;
}

TEST(SessionControl, OversizedDownlinkBecomesIcmpFragmentsOrADrop) {
  auto s = make_session();
  tunio::PacketBatch icmp(2, tunio::kIcmpFragNeededMaxSize);
  tunio::PacketBatch frags(8, 1400);
  const tunio::GsoMetadata plain;
  test::PacketBytes fits = downlink(1160, true);
  EXPECT_TRUE(fits_peer_mtu(*s, fits, plain, 1200, icmp, frags));
  EXPECT_TRUE(icmp.empty());

  test::PacketBytes df = downlink(1360, true);
  EXPECT_FALSE(fits_peer_mtu(*s, df, plain, 1200, icmp, frags));
  ASSERT_EQ(icmp.size(), 1u);
  const ByteSpan m = icmp.packet(0);
  EXPECT_EQ(m[9], 1);                                // ICMP
  EXPECT_EQ(load_be32(m.data() + 16), 0xc0000207u);  // back to the origin
  EXPECT_EQ(m[20], 3);
  EXPECT_EQ(m[21], 4);
  EXPECT_EQ(load_be16(m.data() + 26), 1200);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragNeededSent), 1u);

  // No DF: fragments of <= 1200 bytes go to the session's inbox, which reassemble.
  test::PacketBytes no_df = downlink(1360, false);
  EXPECT_FALSE(fits_peer_mtu(*s, no_df, plain, 1200, icmp, frags));
  EXPECT_EQ(icmp.size(), 1u);
  EXPECT_TRUE(frags.empty()) << "scratch only";
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragTx), 1u);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kDropTooBig), 0u);
  std::vector<test::PacketBytes> got = take_inbox(*s);
  ASSERT_EQ(got.size(), 2u);
  const auto r = test::reassemble(got, 1200);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.packet(), no_df);

  // No DF and a partial checksum (TUN offload): completed before splitting.
  test::PacketSpec spec;
  spec.proto = 17;
  spec.src = {192, 0, 2, 7};
  spec.dst = {10, 78, 0, 2};
  spec.payload = 1500;
  spec.partial_csum = true;
  test::PacketBytes partial = test::build_packet(spec);
  tunio::GsoMetadata csum;
  csum.needs_csum = true;
  csum.csum_start = 20;
  csum.csum_offset = 6;
  EXPECT_FALSE(fits_peer_mtu(*s, partial, csum, 1200, icmp, frags));
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragTx), 2u);
  got = take_inbox(*s);
  const auto r2 = test::reassemble(got, 1200);
  ASSERT_EQ(r2.error, "");
  EXPECT_TRUE(test::ref_checksums_ok(r2.packet())) << "the UDP checksum was completed";

  // A TSO super-packet of 1400-byte segments for a 1200-byte client.
  const tunio::GsoMetadata tso = gso(tunio::GsoType::tcp4, 40, 1360);
  test::PacketBytes super = downlink(20000, true);
  EXPECT_FALSE(fits_peer_mtu(*s, super, tso, 1200, icmp, frags));
  EXPECT_EQ(icmp.size(), 2u);
  // The ICMP batch is full: the next one is only a drop.
  EXPECT_FALSE(fits_peer_mtu(*s, df, plain, 1200, icmp, frags));
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragNeededSent), 2u);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kDropTooBig), 1u);
  // A USO super-packet without DF is not segmented first: a drop.
  const tunio::GsoMetadata uso = gso(tunio::GsoType::udp4, 28, 1372);
  test::PacketBytes uso_pkt = downlink(5000, false);
  EXPECT_FALSE(fits_peer_mtu(*s, uso_pkt, uso, 1200, icmp, frags));
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kDropTooBig), 2u);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragTx), 2u);
}

// IPv6 (docs/PROTOCOL.md §21): never fragmented on the way, always a Packet Too Big; and
// every ICMP error the reader writes spends the reader's budget (RFC 4443 §2.4 f).
TEST(SessionControl, OversizedIpv6IsPacketTooBigWithinTheIcmpBudget) {
  auto s = make_session();
  tunio::PacketBatch icmp(4, tunio::kIcmpv6PacketTooBigMaxSize);
  tunio::PacketBatch frags(8, 1400);
  const tunio::GsoMetadata plain;
  test::PacketSpec spec;
  spec.version = 6;
  spec.src = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  spec.dst = {0xfd, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  spec.payload = 1300;  // 1360 bytes
  test::PacketBytes big = test::build_packet(spec);
  TokenBucket budget = TokenBucket::per_second(2, 1);
  const Instant t0{};
  EXPECT_FALSE(fits_peer_mtu(*s, big, plain, 1280, icmp, frags, &budget, t0));
  EXPECT_FALSE(fits_peer_mtu(*s, big, plain, 1280, icmp, frags, &budget, t0));
  ASSERT_EQ(icmp.size(), 2u);
  const ByteSpan m = icmp.packet(0);
  EXPECT_EQ(m[0] >> 4, 6);
  EXPECT_EQ(m[6], 58);  // ICMPv6
  EXPECT_EQ(m[40], 2);  // Packet Too Big
  EXPECT_EQ(load_be32(m.data() + 44), 1280u);
  EXPECT_EQ(std::memcmp(m.data() + 24, spec.src.data(), 16), 0) << "back to the origin";
  EXPECT_TRUE(frags.empty()) << "IPv6 is never fragmented on the way";
  // The budget is spent: the third is dropped, and allowed again a second later.
  EXPECT_FALSE(fits_peer_mtu(*s, big, plain, 1280, icmp, frags, &budget, t0));
  EXPECT_EQ(icmp.size(), 2u);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kDropTooBig), 1u);
  EXPECT_FALSE(
      fits_peer_mtu(*s, big, plain, 1280, icmp, frags, &budget, t0 + std::chrono::seconds(1)));
  EXPECT_EQ(icmp.size(), 3u);
  EXPECT_EQ(s->counters.get(tunnel::SessionCounter::kFragNeededSent), 3u);
}

}  // namespace
}  // namespace qeli::server
