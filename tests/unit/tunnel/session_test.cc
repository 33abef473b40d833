// tunnel::Session driven by hand, sans I/O: two sessions whose records are handed to each
// other in memory, time from a FakeClock. Heartbeats, liveness, the idle timeout, the
// close extension, capabilities and the MTU report, GSO super-packets whole or split —
// everything the data phase decides, without a thread, a socket or the system clock.
#include "tunnel/session.h"

#include <gtest/gtest.h>

#include <optional>

#include <array>

#include "fakes/fake_clock.h"
#include "fakes/packet_builder.h"
#include "handshake/types.h"
#include "tunio/offload_validate.h"
#include "wire/session_close.h"

namespace qeli::tunnel {
namespace {

using namespace std::chrono_literals;

wire::PacketCodec codec(std::uint8_t k, wire::Framing f = wire::Framing::kTls) {
  crypto::Key32 key;
  key.data()[0] = k;
  const std::array<std::uint8_t, 4> seed = {k, 2, 3, 4};
  return wire::PacketCodec(f, key.span(), seed);
}

// Two sessions of one tunnel: a→b records are codec 1, b→a codec 2.
// `aes_a`/`aes_b`: that end's handshake enabled AES-GCM records (caps::kAesGcm) on its
// receiving codec.
wire::PacketCodec recv_codec(std::uint8_t k, bool aes) {
  wire::PacketCodec c = codec(k);
  if (aes) c.set_accept_aes(true);
  return c;
}
struct Pair {
  explicit Pair(SessionParams pa, SessionParams pb, CarrierRoom room = {}, bool aes_a = false,
                bool aes_b = false)
      : a(std::move(pa), codec(1), recv_codec(2, aes_a), room, rng_a, ca, nullptr, clock.now()),
        b(std::move(pb), codec(2), recv_codec(1, aes_b), room, rng_b, cb, nullptr, clock.now()) {}

  // Delivers one record from `from`'s sender output to `to`'s receiver.
  static Inbound deliver(MutableByteSpan record, Session& to, Instant now) {
    Bytes copy(record.begin(), record.end());
    Inbound in = to.receiver().open(copy, now);
    if (in.kind == InboundKind::kPacket) last_packet = Bytes(in.packet.begin(), in.packet.end());
    return in;
  }
  // Seals `batch` at a and delivers every record to b; returns the verdicts.
  std::vector<Inbound> send(tunio::PacketBatch& batch) {
    std::vector<Inbound> out;
    a.sender().refresh();
    batch.set_cursor(0);
    RecordQueue q;
    for (;;) {
      q.clear();
      a.sender().recycle();
      const SealStatus st = a.sender().seal(batch, q);
      for (std::size_t i = 0; i < q.size(); ++i) {
        out.push_back(deliver(q[i], b, clock.now()));
        if (out.back().kind == InboundKind::kPacket) packets.push_back(last_packet);
      }
      if (st != SealStatus::kMore) break;
    }
    a.sender().on_sent(clock.now());
    return out;
  }

  test::FakeClock clock;
  crypto::DeterministicRng rng_a{1}, rng_b{2};
  SessionCounters ca, cb;
  Session a, b;
  std::vector<Bytes> packets;
  static inline Bytes last_packet;
};

SessionParams quiet() {
  SessionParams p;
  p.send.heartbeat.enabled = false;
  return p;
}

TEST(InMemoryTimers, HeartbeatIsDueAfterTheIntervalWithoutWrites) {
  SessionParams pa = quiet();
  pa.send.heartbeat = {true, std::chrono::milliseconds(15000), 16, std::chrono::milliseconds(0)};
  Pair p(std::move(pa), quiet());
  ASSERT_TRUE(p.a.sender().deadline());
  EXPECT_EQ(*p.a.sender().deadline(), p.clock.now() + 15s);
  EXPECT_EQ(p.a.sender().on_timer(p.clock.now() + 14s).kind, Outbound::Kind::kNone);
  // A write restarts the interval.
  p.clock.advance(10s);
  p.a.sender().on_sent(p.clock.now());
  p.clock.advance(14s);
  EXPECT_EQ(p.a.sender().on_timer(p.clock.now()).kind, Outbound::Kind::kNone);
  p.clock.advance(1s);
  const Outbound hb = p.a.sender().on_timer(p.clock.now());
  ASSERT_EQ(hb.kind, Outbound::Kind::kRecord);
  // An empty record with 16..48 bytes of padding: a heartbeat to the peer.
  EXPECT_GE(hb.record.size(), wire::record_size(wire::Framing::kTls, 0, 16));
  EXPECT_LE(hb.record.size(), wire::record_size(wire::Framing::kTls, 0, 48));
  EXPECT_EQ(Pair::deliver(hb.record, p.b, p.clock.now()).kind, InboundKind::kHeartbeat);
  EXPECT_EQ(p.ca.get(SessionCounter::kHeartbeatsTx), 1U);
  EXPECT_EQ(p.cb.get(SessionCounter::kHeartbeatsRx), 1U);
}

TEST(InMemoryTimers, LivenessEndsASilentSessionAndAuthenticatedRecordsKeepItAlive) {
  SessionParams pb = quiet();
  pb.receive.liveness = 30s;
  Pair p(quiet(), std::move(pb));
  EXPECT_EQ(*p.b.receiver().deadline(), p.clock.now() + 30s);
  p.clock.advance(20s);
  const Outbound ctl = p.a.sender().control(wire::build_mtu_report(1400));
  ASSERT_EQ(Pair::deliver(ctl.record, p.b, p.clock.now()).kind, InboundKind::kControl);
  p.clock.advance(29s);
  EXPECT_EQ(p.b.receiver().on_timer(p.clock.now()), SessionEnd::kStopped);
  p.clock.advance(2s);
  EXPECT_EQ(p.b.receiver().on_timer(p.clock.now()), SessionEnd::kLiveness);
}

TEST(InMemoryTimers, IdleTimeoutCountsIpPacketsOnlyEitherWay) {
  SessionParams pb = quiet();
  pb.receive.idle_timeout = 60s;
  Pair p(quiet(), std::move(pb));
  tunio::PacketBatch batch(4, 2000, p.a.room().headroom(), p.a.room().tailroom({}));
  const Bytes pkt = test::udp4(100);
  ASSERT_TRUE(batch.push(pkt));
  p.send(batch);
  EXPECT_EQ(p.b.receiver().on_timer(p.clock.now()), SessionEnd::kStopped);  // activity seen
  p.clock.advance(40s);
  // Heartbeats and control frames are not activity.
  ASSERT_EQ(
      Pair::deliver(p.a.sender().control(wire::build_mtu_report(1400)).record, p.b, p.clock.now())
          .kind,
      InboundKind::kControl);
  EXPECT_EQ(p.b.receiver().on_timer(p.clock.now()), SessionEnd::kStopped);
  p.clock.advance(21s);
  EXPECT_EQ(p.b.receiver().on_timer(p.clock.now()), SessionEnd::kIdle);
  // Traffic the other way (b's own tx) also counts as activity.
  SessionParams pc = quiet();
  pc.receive.idle_timeout = 60s;
  Pair q(quiet(), std::move(pc));
  (void)q.b.receiver().on_timer(q.clock.now());
  q.clock.advance(59s);
  q.cb.add(SessionCounter::kTxPackets);
  EXPECT_EQ(q.b.receiver().on_timer(q.clock.now()), SessionEnd::kStopped);
  q.clock.advance(59s);
  EXPECT_EQ(q.b.receiver().on_timer(q.clock.now()), SessionEnd::kStopped);
}

TEST(InMemoryTimers, CloseFrameEndsTheSessionOnlyWhenAsked) {
  SessionParams pa = quiet();
  pa.send.farewell = [](SessionEnd e) {
    return e == SessionEnd::kStopped ? wire::build_session_close(wire::CloseReason::kKicked)
                                     : Bytes{};
  };
  int seen = 0;
  SessionParams pb = quiet();
  pb.receive.end_on_close_frame = true;
  pb.receive.on_control = [&](const wire::ControlFrame& f) {
    seen += f.type == wire::kCtrlSessionClose;
  };
  Pair p(std::move(pa), std::move(pb));
  EXPECT_EQ(p.a.sender().farewell(SessionEnd::kLiveness).kind, Outbound::Kind::kNone);
  const Outbound bye = p.a.sender().farewell(SessionEnd::kStopped);
  ASSERT_EQ(bye.kind, Outbound::Kind::kRecord);
  const Inbound in = Pair::deliver(bye.record, p.b, p.clock.now());
  EXPECT_EQ(in.kind, InboundKind::kEnd);
  EXPECT_EQ(in.end, SessionEnd::kClosedByPeer);
  EXPECT_EQ(seen, 1) << "the host still sees the frame (the client logs the reason)";

  Pair q(quiet(), quiet());  // a peer without the extension: a control frame like any other
  const Bytes frame = wire::build_session_close(wire::CloseReason::kKicked);
  EXPECT_EQ(Pair::deliver(q.a.sender().control(frame).record, q.b, q.clock.now()).kind,
            InboundKind::kControl);
}

TEST(InMemoryTimers, CapabilitiesAndMtuReportReachTheSender) {
  SessionParams pb = quiet();  // b is the server: it offered GSO and close notify
  pb.receive.offered_caps = handshake::caps::kGsoSuperPackets | handshake::caps::kCloseNotify;
  Pair p(quiet(), std::move(pb));
  const Bytes caps =
      wire::build_capabilities(handshake::caps::kGsoSuperPackets | handshake::caps::kRekey);
  Pair::deliver(p.a.sender().control(caps).record, p.b, p.clock.now());
  EXPECT_TRUE(p.b.peer().gso.load());
  EXPECT_FALSE(p.b.peer().close_notify.load()) << "not answered";
  Pair::deliver(p.a.sender().control(wire::build_mtu_report(1280)).record, p.b, p.clock.now());
  EXPECT_EQ(p.b.peer().mtu.load(), 1280U);
  p.b.sender().refresh();
  EXPECT_TRUE(p.b.sender().sealer().peer_gso());
  EXPECT_EQ(p.b.sender().sealer().mtu(), 1280U) << "padding now respects the client's path";
}

TEST(InMemoryTimers, ABadRecordEndsAStreamSessionButIsADropOnDatagrams) {
  Pair stream(quiet(), quiet());
  Bytes forged = [&] {
    const Outbound o = stream.a.sender().control(wire::build_mtu_report(1400));
    return Bytes(o.record.begin(), o.record.end());
  }();
  forged[20] ^= 1;
  Inbound in = stream.b.receiver().open(forged, stream.clock.now());
  EXPECT_EQ(in.kind, InboundKind::kEnd);
  EXPECT_EQ(in.end, SessionEnd::kBadRecord);

  CarrierRoom dgram;
  dgram.stream = false;
  Pair udp(quiet(), quiet(), dgram);
  Bytes forged2 = [&] {
    const Outbound o = udp.a.sender().control(wire::build_mtu_report(1400));
    return Bytes(o.record.begin(), o.record.end());
  }();
  forged2[20] ^= 1;
  in = udp.b.receiver().open(forged2, udp.clock.now());
  EXPECT_EQ(in.kind, InboundKind::kDrop);
  EXPECT_EQ(in.drop, RecordDrop::kAuthFailed);
  EXPECT_EQ(udp.b.receiver().drops().get(RecordDrop::kAuthFailed), 1U);
}

TEST(InMemoryTimers, SuperPacketsCrossWholeOrSplitAsThePeerTakesThem) {
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = 20 * 1308;
  s.partial_csum = true;
  const test::PacketBytes super = test::build_packet(s);
  const auto meta = tunio::validate_offload({1, 1, 52, 1308, 20, 16}, super);
  ASSERT_TRUE(meta.ok());

  SessionParams pb = quiet();
  pb.receive.gso_receive = true;
  Pair whole(quiet(), std::move(pb));
  whole.a.peer().gso = true;
  tunio::PacketBatch batch(2, 65535, whole.a.room().headroom(), whole.a.room().tailroom({}));
  ASSERT_TRUE(batch.push(super, *meta));
  whole.send(batch);
  ASSERT_EQ(whole.packets.size(), 1U) << "reassembled from GSO chunk records";
  EXPECT_EQ(whole.packets[0], Bytes(super.begin(), super.end()));
  EXPECT_EQ(whole.cb.get(SessionCounter::kRxPackets), 20U) << "counted as the packets it holds";

  Pair split(quiet(), quiet());  // a 0.7.16 peer: MTU-sized packets
  tunio::PacketBatch b2(2, 65535, split.a.room().headroom(), split.a.room().tailroom({}));
  ASSERT_TRUE(b2.push(super, *meta));
  split.send(b2);
  EXPECT_EQ(split.packets.size(), 20U);
  EXPECT_EQ(split.cb.get(SessionCounter::kRxPackets), 20U);
}

TEST(InMemoryTimers, InboundFilterAndNonIpv4AreCountedDrops) {
  SessionParams pb = quiet();
  pb.receive.inbound_filter = [](ByteSpan pkt) { return pkt[9] != 17; };  // no UDP
  Pair p(quiet(), std::move(pb));
  tunio::PacketBatch batch(4, 2000, p.a.room().headroom(), p.a.room().tailroom({}));
  ASSERT_TRUE(batch.push(test::udp4(50)));
  ASSERT_TRUE(batch.push(test::tcp4(1, 50)));
  ASSERT_TRUE(batch.push(test::udp6(50)));
  const auto v = p.send(batch);
  ASSERT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0].drop, RecordDrop::kFiltered);
  EXPECT_EQ(v[1].kind, InboundKind::kPacket);
  EXPECT_EQ(v[2].drop, RecordDrop::kNotIpv4);
  EXPECT_EQ(p.cb.get(SessionCounter::kDropIpv6), 1U);
  EXPECT_EQ(p.cb.get(SessionCounter::kRxPackets), 1U);
}

// caps::kIpv6Inside (docs/PROTOCOL.md §21): a server (b) that did not offer it drops IPv6
// as 0.7.16 does; one that offered it takes IPv6 after the client's capability frame with
// the bit, or — no frame seen (a UDP capability frame may be lost) — from the client's
// first IPv6 packet the inbound filter passes. A frame without the bit keeps the drop.
TEST(InMemoryTimers, Ipv6IsDeliveredOnlyWhenOffered) {
  const auto one6 = [](Pair& p) {
    tunio::PacketBatch b(2, 2000, p.a.room().headroom(), p.a.room().tailroom({}));
    EXPECT_TRUE(b.push(test::udp6(50)));
    EXPECT_TRUE(b.push(test::tcp4(1, 50)));
    const auto v = p.send(b);
    EXPECT_EQ(v.size(), 2U);
    EXPECT_EQ(v.at(1).kind, InboundKind::kPacket);
    return v.at(0);
  };
  const auto server = [](std::uint32_t offered, bool filter_passes) {
    SessionParams pb = quiet();
    pb.receive.offered_caps = offered;
    pb.receive.inbound_filter = [filter_passes](ByteSpan pkt) {
      return (pkt[0] >> 4) == 4 || filter_passes;  // the IPv6 source check's verdict
    };
    return pb;
  };
  const std::uint32_t with6 = handshake::caps::kCloseNotify | handshake::caps::kIpv6Inside;
  struct Row {
    std::uint32_t offered;
    std::optional<std::uint32_t> frame;  // the client's capability frame, if any
    bool filter_passes;
    bool delivered;
  };
  for (const Row& r : {
           Row{handshake::caps::kCloseNotify, std::nullopt, true, false},  // not offered
           Row{with6, handshake::caps::kIpv6Inside, true, true},           // the frame
           Row{with6, std::nullopt, true, true},                           // the first packet
           Row{with6, std::nullopt, false, false},  // a packet the filter refuses: nothing
           Row{with6, handshake::caps::kCloseNotify, true, false},  // answered without it
       }) {
    Pair p(quiet(), server(r.offered, r.filter_passes));
    if (r.frame) {
      const Bytes caps = wire::build_capabilities(*r.frame);
      EXPECT_EQ(Pair::deliver(p.a.sender().control(caps).record, p.b, p.clock.now()).kind,
                InboundKind::kControl);
    }
    const Inbound in = one6(p);
    EXPECT_EQ(in.kind == InboundKind::kPacket, r.delivered) << r.filter_passes;
    EXPECT_EQ(p.b.peer().ipv6.load(), r.delivered);
  }
}

// caps::kAesGcm (docs/PROTOCOL.md §18): a is the client that negotiated it (its
// handshake switched its sending codec and enabled AES on its receiving one), b the server
// that offered it (its receiving codec takes AES). b switches once the client's capability
// frame (or, on UDP where that frame may be lost, its first AES record) says so; a 0.7.16
// client never sees AES.
SessionParams aes_server() {
  SessionParams p = quiet();
  p.receive.offered_caps = handshake::caps::kCloseNotify | handshake::caps::kAesGcm;
  return p;
}
// One IP packet a → b; then the AEAD b's sender seals with after its next refresh().
wire::RecordAeadKind one_packet_then_server_aead(Pair& p) {
  tunio::PacketBatch batch(1, 2000, p.a.room().headroom(), p.a.room().tailroom({}));
  EXPECT_TRUE(batch.push(test::tcp4(1, 1000), {}));
  p.send(batch);
  EXPECT_EQ(p.packets.size(), 1U);
  p.b.sender().refresh();
  return p.b.sender().sealer().aead();
}

TEST(AesGcmSwitch, BothEndsSwitchAfterTheCapabilityFrameOnAStream) {
  Pair p(quiet(), aes_server(), {}, true, true);
  p.a.peer().aes_gcm = true;  // the client negotiated it in AUTH OK
  const Bytes caps = wire::build_capabilities(handshake::caps::kAesGcm);
  EXPECT_EQ(Pair::deliver(p.a.sender().control(caps).record, p.b, p.clock.now()).kind,
            InboundKind::kControl);  // sealed with ChaCha: the client has not refreshed yet
  EXPECT_TRUE(p.b.peer().aes_gcm.load());
  // The client's records go AES (refresh()); so do the server's.
  EXPECT_EQ(one_packet_then_server_aead(p), wire::RecordAeadKind::kAes256Gcm);
  EXPECT_EQ(p.a.sender().sealer().aead(), wire::RecordAeadKind::kAes256Gcm);
  const Bytes mtu = wire::build_mtu_report(1300);
  EXPECT_EQ(Pair::deliver(p.b.sender().control(mtu).record, p.a, p.clock.now()).kind,
            InboundKind::kControl);
  // After its first AES record, a ChaCha one from the client is a bad record: on a stream
  // the session ends (as for any record that fails to open).
  wire::PacketCodec old = codec(1);
  old.set_send_counter_for_test(100);
  Bytes rec(wire::record_size(wire::Framing::kTls, mtu.size(), 0));
  ASSERT_TRUE(old.seal(mtu, 0, rec).ok());
  const Inbound in = p.b.receiver().open(rec, p.clock.now());
  EXPECT_EQ(in.kind, InboundKind::kEnd);
  EXPECT_EQ(in.end, SessionEnd::kBadRecord);
}

TEST(AesGcmSwitch, UdpServerLearnsFromTheFirstAesRecordWhenTheCapabilityFrameIsLost) {
  CarrierRoom dgram;
  dgram.stream = false;
  Pair p(quiet(), aes_server(), dgram, true, true);
  p.a.peer().aes_gcm = true;
  (void)p.a.sender().control(wire::build_capabilities(handshake::caps::kAesGcm));  // lost
  EXPECT_EQ(one_packet_then_server_aead(p), wire::RecordAeadKind::kAes256Gcm);
  EXPECT_TRUE(p.b.peer().aes_gcm.load());
}

TEST(AesGcmSwitch, AnOldClientNeverGetsAes) {
  for (const bool stream : {true, false}) {
    CarrierRoom room;
    room.stream = stream;
    Pair p(quiet(), aes_server(), room, false, true);  // a: 0.7.16: ChaCha only
    EXPECT_EQ(one_packet_then_server_aead(p), wire::RecordAeadKind::kChaCha20Poly1305);
    EXPECT_FALSE(p.b.peer().aes_gcm.load());
    const Bytes mtu = wire::build_mtu_report(1300);
    EXPECT_EQ(Pair::deliver(p.b.sender().control(mtu).record, p.a, p.clock.now()).kind,
              InboundKind::kControl);
  }
}

}  // namespace
}  // namespace qeli::tunnel
