// The UDP data path of one direction over real loopback UDP sockets: a tunnel::Sender
// seals a TUN batch (plain packets and super-packets) one record per datagram and a
// DatagramFramer sends it with sendmmsg / UDP_SEGMENT; the other end's framer receives
// (UDP GRO), a tunnel::Receiver opens in place and checks the replay window, and the
// framer coalesces the packets back for the TUN. Every drop reason
// is provoked once.
#include <poll.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "base/endian.h"
#include "crypto/aead.h"
#include "fakes/datagram_ends.h"
#include "fakes/packet_builder.h"
#include "fakes/udp_loopback.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

namespace qeli::engine {
namespace {

using test::PacketBytes;
using tunnel::PaddingPolicy;
using tunnel::RecordDrop;
using tunnel::SessionCounters;
using DatagramWriter = test::DatagramTx;

constexpr std::size_t kMtu = 1420;
constexpr std::size_t kMss = 1368;  // MTU 1420, IPv4, TCP with 12 bytes of options

PacketBytes tcp_segment(std::uint32_t seq, std::size_t payload, std::uint16_t id) {
  test::PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.ip_id = id;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  return test::build_packet(s);
}

// A toy envelope: "ENV" before the record and 0x7e after it.
class TestEnvelope : public DatagramEnvelope {
 public:
  std::size_t headroom() const override { return 3; }
  std::size_t tailroom() const override { return 1; }
  void wrap(MutableByteSpan d) override {
    std::memcpy(d.data(), "ENV", 3);
    d[d.size() - 1] = 0x7e;
    ++wrapped;
  }
  std::optional<MutableByteSpan> unwrap(MutableByteSpan d) override {
    if (d.size() < 4 || std::memcmp(d.data(), "ENV", 3) != 0 || d[d.size() - 1] != 0x7e) {
      return std::nullopt;
    }
    return d.subspan(3, d.size() - 4);
  }
  std::size_t wrapped = 0;
};

struct Path {
  explicit Path(bool offload, DatagramEnvelope& env = no_envelope(),
                PaddingPolicy pad = PaddingPolicy{true, 16, 64, true, 1.0})
      : env_ref(env),
        padding(pad),
        a(test::loopback_udp(offload)),
        b(test::loopback_udp(offload)),
        a_addr(a.local_address()),
        b_addr(b.local_address()),
        writer(wire::PacketCodec(wire::Framing::kTls, key.span(), seed), padding, kMtu, rng, sent,
               env),
        receiver(wire::PacketCodec(wire::Framing::kTls, key.span(), seed), got, env),
        in(DatagramSource::make_batch(128)) {}

  tunio::PacketBatch make_out(std::size_t n, std::size_t max_packet = 65535) {
    return tunio::PacketBatch(n, max_packet, DatagramWriter::headroom(writer_env()),
                              DatagramWriter::tailroom(padding, writer_env()));
  }
  DatagramEnvelope& writer_env() { return env_ref; }

  // Receives until `want` logical packets arrived (or 2 s of silence); returns them as
  // MTU-sized packets (coalesced groups are split back with the TUN engine's split).
  std::vector<PacketBytes> receive(std::size_t want) {
    std::vector<PacketBytes> out;
    while (out.size() < want) {
      if (!receive_once(out)) {
        pollfd p{b.fd(), POLLIN, 0};
        if (::poll(&p, 1, 2000) <= 0) break;
      }
    }
    return out;
  }

  // One receive call; false if there was nothing to read.
  bool receive_once(std::vector<PacketBytes>& out) {
    in.clear();
    auto r = receiver.receive(b, a_addr, in);
    if (!r.ok()) {
      EXPECT_EQ(r.error(), transport::UdpError::kWouldBlock);
      return false;
    }
    {
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in.logical(i) == 0) continue;
        if (in.meta(i).is_plain()) {
          out.emplace_back(in.packet(i).begin(), in.packet(i).end());
          continue;
        }
        ++coalesced_groups;
        auto m = tunio::revalidate(in.meta(i), in.packet(i));
        EXPECT_TRUE(m.ok()) << "coalesced packet must pass the TUN's validation gate";
        if (!m.ok()) continue;
        segs.clear();
        auto n = tunio::gso_split_all(in.packet(i), *m, segs);
        EXPECT_TRUE(n.ok());
        EXPECT_EQ(segs.size(), in.logical(i));
        for (std::size_t j = 0; j < segs.size(); ++j) {
          out.emplace_back(segs.packet(j).begin(), segs.packet(j).end());
        }
      }
    }
    return true;
  }

  DatagramEnvelope& env_ref;
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  crypto::DeterministicRng rng{7};
  PaddingPolicy padding;
  SessionCounters sent, got;
  transport::UdpSocket a, b;
  transport::SockAddr a_addr, b_addr;
  test::DatagramTx writer;
  test::DatagramRx receiver;
  tunio::PacketBatch in;
  StopSignal stop;
  tunio::PacketBatch segs{64, 65535};
  std::size_t coalesced_groups = 0;
};

class DatagramPath : public ::testing::TestWithParam<bool> {};

TEST_P(DatagramPath, OnePacket) {
  Path p(GetParam());
  auto out = p.make_out(4);
  const PacketBytes pkt = test::udp4(300);
  ASSERT_TRUE(out.push(pkt));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  const auto got = p.receive(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], pkt);
  EXPECT_EQ(p.sent.get(tunnel::SessionCounter::kTxPackets), 1u);
  EXPECT_EQ(p.got.get(tunnel::SessionCounter::kRxPackets), 1u);
  EXPECT_EQ(p.receiver.drops().total(), 0u);
}

TEST_P(DatagramPath, ManyPacketsOfMixedFlowsArriveInOrderAndCoalesce) {
  Path p(GetParam());
  auto out = p.make_out(128);
  std::vector<PacketBytes> sent;
  // A TCP stream of full-size segments (unpadded: full size), interleaved with small
  // UDP datagrams (padded at random, so their sizes differ).
  for (std::uint32_t i = 0; i < 100; ++i) {
    sent.push_back(tcp_segment(static_cast<std::uint32_t>(1 + i * kMss), kMss,
                               static_cast<std::uint16_t>(0x100 + i)));
    if (i % 10 == 0) sent.push_back(test::udp4(50 + i, 9, static_cast<std::uint8_t>(i)));
  }
  for (const auto& s : sent) ASSERT_TRUE(out.push(s));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  const auto got = p.receive(sent.size());
  ASSERT_EQ(got.size(), sent.size());
  // UDP datagrams are never reordered around each other; TCP segments of one flow are
  // coalesced and come back in sequence order.
  std::vector<PacketBytes> tcp_sent, tcp_got, udp_sent, udp_got;
  for (const auto& s : sent) (test::l4_proto(s) == 6 ? tcp_sent : udp_sent).push_back(s);
  for (const auto& g : got) (test::l4_proto(g) == 6 ? tcp_got : udp_got).push_back(g);
  EXPECT_EQ(tcp_got, tcp_sent);
  EXPECT_EQ(udp_got, udp_sent);
  EXPECT_GE(p.coalesced_groups, 2u) << "the TCP stream must leave as GSO packets";
  if (GetParam()) {
    EXPECT_GE(p.a.counters().send_gso_messages, 1u);
    EXPECT_GE(p.b.counters().recv_gro_reads, 1u);
  } else {
    EXPECT_EQ(p.a.counters().send_gso_messages, 0u);
    EXPECT_EQ(p.a.counters().send_messages, sent.size());
  }
}

TEST_P(DatagramPath, SuperPacketIsSplitSealedAndCoalescedBack) {
  Path p(GetParam());
  // A 64 KiB TCP super-packet as a TUN read gives it: partial checksum, 48 segments.
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = 64776 - 52;
  s.partial_csum = true;
  const PacketBytes super = test::build_packet(s);
  auto meta = tunio::validate_offload({1, 1, 52, kMss, 20, 16}, super);
  ASSERT_TRUE(meta.ok());
  tunio::PacketBatch expect(64, 1500);
  ASSERT_EQ(*tunio::gso_split_all(super, *meta, expect), 48u);

  auto out = p.make_out(4);
  // Two UDP flows (the receiver's UDP GRO would merge one flow's datagrams).
  const PacketBytes small = test::udp4(10, 5);
  const PacketBytes small2 = test::udp4(10, 6);
  ASSERT_TRUE(out.push(small));
  ASSERT_TRUE(out.push(super, *meta));
  ASSERT_TRUE(out.push(small2));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  EXPECT_EQ(p.sent.get(tunnel::SessionCounter::kDropBadGso), 0u);
  EXPECT_EQ(p.sent.get(tunnel::SessionCounter::kTxPackets), 50u);
  const auto got = p.receive(50);
  ASSERT_EQ(got.size(), 50u);
  EXPECT_EQ(got.front(), small);
  EXPECT_EQ(got.back(), small2);
  for (std::size_t i = 0; i < 48; ++i) {
    const auto seg = expect.packet(i);
    ASSERT_EQ(got[1 + i], PacketBytes(seg.begin(), seg.end())) << "segment " << i;
  }
  // One group per receive batch: the 48 datagrams (70 KB) leave as two GSO messages
  // (65507-byte limit) and may land in two batches.
  EXPECT_GE(p.coalesced_groups, 1u);
  EXPECT_LE(p.coalesced_groups, 2u);
  if (GetParam()) {
    EXPECT_GE(p.a.counters().send_gso_messages, 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Gso, DatagramPath, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "on" : "off";
                         });

TEST(DatagramPath, SealAcrossASmallQueueKeepsOrder) {
  Path p(true);
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = 20 * kMss;
  s.partial_csum = true;
  const PacketBytes super = test::build_packet(s);
  auto meta = tunio::validate_offload({1, 1, 52, kMss, 20, 16}, super);
  ASSERT_TRUE(meta.ok());
  auto out = p.make_out(2);
  ASSERT_TRUE(out.push(super, *meta));
  ASSERT_TRUE(out.push(test::udp4(10)));
  tunnel::RecordQueue q(7);
  std::vector<std::uint64_t> per_round;
  out.set_cursor(0);
  for (;;) {
    q.clear();
    p.writer.recycle();
    const tunnel::SealStatus st = p.writer.seal(out, q);
    ASSERT_NE(st, tunnel::SealStatus::kCounterExhausted);
    per_round.push_back(q.size());
    const auto items = p.writer.wrap(q, p.b_addr);
    ASSERT_EQ(p.a.send(items).sent, q.size());
    if (st == tunnel::SealStatus::kDone) break;
  }
  EXPECT_EQ(per_round, (std::vector<std::uint64_t>{7, 7, 7}));
  const auto got = p.receive(21);
  ASSERT_EQ(got.size(), 21u);
  EXPECT_EQ(got.back(), test::udp4(10));
}

TEST(DatagramPath, EnvelopeWrapsEveryDatagram) {
  TestEnvelope env;
  Path p(true, env);
  // The writer's batch needs the envelope's room too.
  tunio::PacketBatch out(8, 1500, DatagramWriter::headroom(env),
                         DatagramWriter::tailroom(p.padding, env));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(out.push(test::udp4(100)));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  EXPECT_EQ(env.wrapped, 5u);
  EXPECT_EQ(p.receive(5).size(), 5u);
  EXPECT_EQ(p.receiver.drops().total(), 0u);
}

// The loss / reorder test for the replay window: records sealed in order and delivered
// shuffled, some lost, some duplicated, one older than the 2048-record window.
TEST(DatagramPath, ReplayWindowUnderLossReorderAndDuplication) {
  Path p(false, no_envelope(), PaddingPolicy{});
  constexpr std::size_t kN = 2100;
  tunio::PacketBatch out(kN, 200, DatagramWriter::headroom(no_envelope()),
                         DatagramWriter::tailroom(p.padding, no_envelope()));
  for (std::size_t i = 0; i < kN; ++i) {
    test::PacketSpec s;
    s.proto = 17;
    s.payload = 20;
    s.sport = static_cast<std::uint16_t>(i + 1);  // each its own flow: no coalescing
    ASSERT_TRUE(out.push(test::build_packet(s)));
  }
  tunnel::RecordQueue q(kN);
  out.set_cursor(0);
  ASSERT_EQ(p.writer.seal(out, q), tunnel::SealStatus::kDone);
  ASSERT_EQ(q.size(), kN);
  const std::vector<transport::OutDatagram> items = p.writer.wrap(q, p.b_addr);
  // Order: records 2048..2099 first, then 100..2047 reversed in blocks, every 7th
  // lost; 10 duplicates; finally record 0, now 2099 - 0 > 2047 behind: too old.
  std::vector<transport::OutDatagram> order;
  std::map<std::uint16_t, int> expected;  // sport -> copies that must arrive
  auto add = [&](std::size_t i) {
    order.push_back(items[i]);
    expected[static_cast<std::uint16_t>(i + 1)] = 1;
  };
  for (std::size_t i = 2048; i < kN; ++i) add(i);
  for (std::size_t blk = 2047 / 64 + 1; blk-- > 1;) {
    for (std::size_t i = blk * 64; i < std::min<std::size_t>(blk * 64 + 64, 2048); ++i) {
      if (i % 7 != 0) add(i);
    }
  }
  for (std::size_t i = 2050; i < 2060; ++i) order.push_back(items[i]);  // duplicates
  order.push_back(items[0]);                                            // too old
  std::vector<PacketBytes> got;
  for (std::size_t off = 0; off < order.size(); off += 64) {
    const auto chunk = std::span(order).subspan(off, std::min<std::size_t>(64, order.size() - off));
    ASSERT_EQ(p.a.send(chunk).sent, chunk.size());
    // Drain as we go so a small (unprivileged) socket buffer never overflows.
    while (p.receive_once(got)) {
    }
  }
  for (int i = 0; i < 20 && p.receiver.drops().get(RecordDrop::kReplay) < 11; ++i) {
    const auto more = p.receive(1);
    got.insert(got.end(), more.begin(), more.end());
  }
  std::map<std::uint16_t, int> seen;
  for (const auto& g : got) ++seen[test::rd16(g.data() + 20)];
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(p.receiver.drops().get(RecordDrop::kReplay), 11u);
  EXPECT_EQ(p.got.get(tunnel::SessionCounter::kDropReplay), 11u);
}

// Sends raw bytes from `from` to the path's receiver.
void send_raw(transport::UdpSocket& from, const transport::SockAddr& to, const Bytes& d) {
  const transport::OutDatagram od{d.data(), d.size(), &to};
  ASSERT_EQ(from.send({&od, 1}).sent, 1u);
}

TEST(DatagramPath, EveryDropReasonIsCounted) {
  TestEnvelope env;
  Path p(true);
  crypto::DeterministicRng rng(3);
  wire::PacketCodec sealer(wire::Framing::kTls, p.key.span(), p.seed);
  auto seal = [&](ByteSpan plaintext) {
    Bytes rec(wire::max_record_size(wire::Framing::kTls));
    auto n = sealer.seal(plaintext, 0, rec);
    EXPECT_TRUE(n.ok());
    rec.resize(*n);
    return rec;
  };
  const PacketBytes v4 = test::udp4(40);
  const PacketBytes v6 = test::udp6(40);

  send_raw(p.a, p.b_addr, Bytes{0x17, 0x03});  // kShort
  send_raw(p.a, p.b_addr, Bytes(60, 0x16));    // kBadHeader
  Bytes mismatch = seal(v4);
  mismatch.push_back(0);
  send_raw(p.a, p.b_addr, mismatch);                                            // kLengthMismatch
  send_raw(p.a, p.b_addr, Bytes{0x17, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5});  // kTooSmall
  Bytes huge(5 + 16677, 0);
  huge[0] = 0x17, huge[1] = 0x03, huge[2] = 0x03;
  store_be16(huge.data() + 3, 16677);
  send_raw(p.a, p.b_addr, huge);  // kTooLarge
  Bytes forged = seal(v4);
  forged[30] ^= 1;
  send_raw(p.a, p.b_addr, forged);  // kAuthFailed
  {
    // Authentic record whose padding length exceeds the plaintext.
    crypto::Aead aead(crypto::AeadAlgorithm::kChaCha20Poly1305, p.key.span());
    Bytes rec(5 + 12 + 11 + 16, 0);
    rec[0] = 0x17, rec[1] = 0x03, rec[2] = 0x03;
    store_be16(rec.data() + 3, 12 + 11 + 16);
    std::uint8_t* pt = rec.data() + 17;
    store_be64(pt, 999);
    pt[8] = 0x45;
    store_be16(pt + 9, 0xffff);
    ASSERT_TRUE(aead.seal(std::span<const std::uint8_t, 12>(rec.data() + 5, 12), {},
                          std::span<std::uint8_t>(pt, 11),
                          std::span<std::uint8_t, 16>(pt + 11, 16)));
    send_raw(p.a, p.b_addr, rec);  // kBadPadding
  }
  const Bytes good = seal(v4);
  send_raw(p.a, p.b_addr, good);
  send_raw(p.a, p.b_addr, good);      // kReplay
  send_raw(p.a, p.b_addr, seal(v6));  // kNotIpv4
  transport::UdpSocket stranger = test::loopback_udp(false);
  send_raw(stranger, p.b_addr, seal(v4));  // kUnknownSource

  const auto got = p.receive(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], v4);
  // Everything else is in flight or already read: drain until 10 drops were counted.
  for (int i = 0; i < 100 && p.receiver.drops().total() < 10; ++i) {
    std::vector<PacketBytes> more;
    if (!p.receive_once(more)) {
      pollfd pf{p.b.fd(), POLLIN, 0};
      ::poll(&pf, 1, 50);
    }
    EXPECT_TRUE(more.empty());
  }
  for (RecordDrop d : {RecordDrop::kShort, RecordDrop::kBadHeader, RecordDrop::kLengthMismatch,
                       RecordDrop::kTooSmall, RecordDrop::kTooLarge, RecordDrop::kAuthFailed,
                       RecordDrop::kBadPadding, RecordDrop::kReplay, RecordDrop::kNotIpv4,
                       RecordDrop::kUnknownSource}) {
    EXPECT_EQ(p.receiver.drops().get(d), 1u) << tunnel::to_string(d);
  }
  EXPECT_EQ(p.receiver.drops().get(RecordDrop::kEnvelope), 0u);

  // kEnvelope: a receiver that expects an envelope gets a bare record.
  SessionCounters c;
  test::DatagramRx wrapped(wire::PacketCodec(wire::Framing::kTls, p.key.span(), p.seed), c, env);
  send_raw(p.a, p.b_addr, seal(v4));
  tunio::PacketBatch in = DatagramSource::make_batch(8);
  for (int i = 0; i < 100 && wrapped.drops().total() == 0; ++i) {
    in.clear();
    auto r = wrapped.receive(p.b, p.a_addr, in);
    if (!r.ok()) {
      pollfd pf{p.b.fd(), POLLIN, 0};
      ::poll(&pf, 1, 100);
    }
  }
  EXPECT_EQ(wrapped.drops().get(RecordDrop::kEnvelope), 1u);
}

TEST(DatagramPath, AnUnsealablePacketIsCountedAndTheRestStillGoes) {
  Path p(false, no_envelope(), PaddingPolicy{});
  auto out = p.make_out(3);
  const PacketBytes ok1 = test::udp4(100, 1), ok2 = test::udp4(100, 2);
  ASSERT_TRUE(out.push(ok1));
  ASSERT_TRUE(out.push(test::udp4(17000)));  // above the 16638-byte record maximum
  ASSERT_TRUE(out.push(ok2));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  EXPECT_EQ(p.sent.get(tunnel::SessionCounter::kDropTooBig), 1u);
  EXPECT_EQ(p.receive(2), (std::vector<PacketBytes>{ok1, ok2}));
}

TEST(DatagramPath, ControlFramesAndHeartbeatsFreeTheirSlots) {
  Path p(false);
  ASSERT_EQ(p.writer.send_one(p.a, p.b_addr, {}, 16, p.stop), WriteStatus::kOk);
  const Bytes mtu_report = wire::build_mtu_report(1280);
  ASSERT_EQ(p.writer.send_one(p.a, p.b_addr, mtu_report, 0, p.stop), WriteStatus::kOk);
  auto out = p.make_out(2);
  ASSERT_TRUE(out.push(test::udp4(30)));
  ASSERT_EQ(p.writer.send(p.a, p.b_addr, out, p.stop), WriteStatus::kOk);
  const auto got = p.receive(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(p.got.get(tunnel::SessionCounter::kHeartbeatsRx), 1u);
  EXPECT_EQ(p.got.get(tunnel::SessionCounter::kControlRx), 1u);
  EXPECT_EQ(p.receiver.drops().total(), 0u);
}

}  // namespace
}  // namespace qeli::engine
