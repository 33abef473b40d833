// The data path of one direction without a TUN: a tunnel::Sender seals a PacketBatch in
// place and a StreamFramer writes it to one end of a socket pair; the other end's framer
// reads, a tunnel::Receiver opens the records and rebuilds the packets — plain IPv4 packets, and
// (extension) a TCP super-packet carried whole as GSO chunks and re-validated on arrival.
#include <gtest/gtest.h>

#include <thread>

#include "base/endian.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/stream_ends.h"
#include "fakes/xor_stream.h"

namespace qeli::engine {
namespace {

using tunnel::PaddingPolicy;
using tunnel::SessionCounters;
using RxStatus = test::StreamRx::Status;

Bytes ipv4_tcp(std::size_t payload, std::uint8_t fill) {
  Bytes p(40 + payload, fill);
  p[0] = 0x45;
  store_be16(p.data() + 2, static_cast<std::uint16_t>(p.size()));
  p[8] = 64;
  p[9] = 6;  // TCP
  store_be32(p.data() + 12, 0x0a4d0002);
  store_be32(p.data() + 16, 0x0a4d0001);
  p[20 + 12] = 5 << 4;  // data offset 5 words
  p[20 + 13] = 0x10;    // ACK
  return p;
}

TEST(RecordPath, PlainPacketsAndASuperPacketCrossIntact) {
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  wire::PacketCodec tx(wire::Framing::kTls, key.span(), seed);
  wire::PacketCodec rx(wire::Framing::kTls, key.span(), seed);
  crypto::DeterministicRng rng(5);
  SessionCounters sent, got;
  PaddingPolicy pad{true, 16, 64, true, 1.0};
  auto sp = test::socket_stream_pair();
  test::StreamTx writer(sp.a, std::move(tx), pad, 1400, rng, sent);
  test::StreamRx receiver(sp.b, std::move(rx), got, nullptr, /*gso=*/true);
  writer.set_peer_gso(true);
  StopSignal stop;

  tunio::PacketBatch out(8, wire::kMaxSuperPacket, writer.headroom(), writer.tailroom(pad));
  const Bytes small = ipv4_tcp(100, 0x11);
  const Bytes super = ipv4_tcp(40000, 0x22);
  tunio::GsoMetadata meta;
  meta.type = tunio::GsoType::tcp4;
  meta.needs_csum = true;
  meta.hdr_len = 40;
  meta.gso_size = 1360;
  meta.csum_start = 20;
  meta.csum_offset = 16;
  ASSERT_TRUE(out.push(small));
  ASSERT_TRUE(out.push(super, meta));
  ASSERT_TRUE(out.push(small));

  tunio::PacketBatch in(8, wire::kMaxSuperPacket);
  std::thread reader([&] {
    while (in.size() < 3) {
      const auto st = receiver.receive(in);
      ASSERT_TRUE(st == RxStatus::kOk || st == RxStatus::kWouldBlock) << receiver.why();
      if (st == RxStatus::kWouldBlock) std::this_thread::yield();
    }
  });
  ASSERT_EQ(writer.seal_and_write(out, stop), WriteStatus::kOk);
  reader.join();

  ASSERT_EQ(in.size(), 3U);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), in.packet(0).begin(), in.packet(0).end()));
  EXPECT_TRUE(std::equal(super.begin(), super.end(), in.packet(1).begin(), in.packet(1).end()));
  EXPECT_EQ(in.meta(1).type, tunio::GsoType::tcp4);
  EXPECT_EQ(in.meta(1).gso_size, 1360);
  EXPECT_TRUE(in.meta(0).is_plain());
  EXPECT_TRUE(std::equal(small.begin(), small.end(), in.packet(2).begin(), in.packet(2).end()));
  EXPECT_EQ(sent.get(tunnel::SessionCounter::kTxPackets), 3U);
  EXPECT_EQ(got.get(tunnel::SessionCounter::kDropBadGso), 0U);
}

TEST(RecordPath, SuperPacketIsDroppedWhenTheReceiverDidNotOfferTheExtension) {
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {9, 9, 9, 9};
  crypto::DeterministicRng rng(6);
  SessionCounters sent, got;
  auto sp = test::socket_stream_pair();
  test::StreamTx writer(sp.a, wire::PacketCodec(wire::Framing::kRaw, key.span(), seed), {}, 1400,
                        rng, sent);
  int controls = 0;
  test::StreamRx receiver(sp.b, wire::PacketCodec(wire::Framing::kRaw, key.span(), seed), got,
                          [&](const wire::ControlFrame&) { ++controls; });
  writer.set_peer_gso(true);  // a sender that wrongly believes the peer negotiated it
  StopSignal stop;
  tunio::PacketBatch out(2, wire::kMaxSuperPacket, writer.headroom(), writer.tailroom({}));
  tunio::GsoMetadata meta{tunio::GsoType::tcp4, true, 40, 1360, 20, 16};
  ASSERT_TRUE(out.push(ipv4_tcp(20000, 3), meta));
  ASSERT_EQ(writer.seal_and_write(out, stop), WriteStatus::kOk);
  tunio::PacketBatch in(4, wire::kMaxSuperPacket);
  for (int i = 0; i < 100 && controls < 2; ++i) {
    (void)receiver.receive(in);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(in.size(), 0U) << "no IP packet may come out of chunks nobody negotiated";
  EXPECT_EQ(controls, 2) << "the chunks are unknown control frames to an old peer";
}

TEST(RecordPath, SuperPacketIsSplitForAPeerWithoutTheExtension) {
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {5, 6, 7, 8};
  crypto::DeterministicRng rng(8);
  SessionCounters sent, got;
  PaddingPolicy pad{true, 16, 64, true, 1.0};
  auto sp = test::socket_stream_pair();
  test::StreamTx writer(sp.a, wire::PacketCodec(wire::Framing::kTls, key.span(), seed), pad, 1400,
                        rng, sent);  // peer_gso defaults to false: a 0.7.16 peer
  test::StreamRx receiver(sp.b, wire::PacketCodec(wire::Framing::kTls, key.span(), seed), got);
  StopSignal stop;
  tunio::PacketBatch out(4, wire::kMaxSuperPacket, writer.headroom(), writer.tailroom(pad));
  const Bytes small = ipv4_tcp(100, 0x11);
  Bytes super = ipv4_tcp(13600, 0x22);  // 10 segments of 1360 bytes
  tunio::GsoMetadata meta{tunio::GsoType::tcp4, true, 40, 1360, 20, 16};
  ASSERT_TRUE(out.push(small));
  ASSERT_TRUE(out.push(super, meta));
  ASSERT_TRUE(out.push(small));
  ASSERT_EQ(writer.seal_and_write(out, stop), WriteStatus::kOk);

  tunio::PacketBatch in(32, 1400);
  for (int i = 0; i < 200 && in.size() < 12; ++i) {
    const auto st = receiver.receive(in);
    ASSERT_TRUE(st == RxStatus::kOk || st == RxStatus::kWouldBlock) << receiver.why();
    if (st == RxStatus::kWouldBlock) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(in.size(), 12U) << "the small packet, 10 segments, the small packet, in order";
  EXPECT_TRUE(std::equal(small.begin(), small.end(), in.packet(0).begin(), in.packet(0).end()));
  Bytes payload;
  for (std::size_t k = 1; k <= 10; ++k) {
    const auto seg = in.packet(k);
    ASSERT_EQ(seg.size(), 1400U);
    EXPECT_TRUE(in.meta(k).is_plain());
    EXPECT_EQ(load_be16(seg.data() + 2), 1400U) << "segment " << k << " total length";
    payload.insert(payload.end(), seg.begin() + 40, seg.end());
  }
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), super.begin() + 40, super.end()));
  EXPECT_TRUE(std::equal(small.begin(), small.end(), in.packet(11).begin(), in.packet(11).end()));
  EXPECT_EQ(sent.get(tunnel::SessionCounter::kTxPackets), 12U);
  EXPECT_EQ(got.get(tunnel::SessionCounter::kDropBadGso), 0U);
}

TEST(RecordPath, RecordsFitTheCarriersChunkLimitOverALayer) {
  // The test-only XOR layer takes at most 4096 bytes per chunk: GSO chunks shrink to fit,
  // MTU-sized packets pass, a packet that no record of this carrier can hold is counted.
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {4, 3, 2, 1};
  crypto::DeterministicRng rng(9);
  SessionCounters sent, got;
  PaddingPolicy pad{true, 16, 64, true, 1.0};
  auto sp = test::socket_stream_pair();
  test::XorStream tx(std::make_unique<transport::TcpStream>(std::move(sp.a)), {});
  test::XorStream rx(std::make_unique<transport::TcpStream>(std::move(sp.b)), {});
  test::StreamTx writer(tx, wire::PacketCodec(wire::Framing::kTls, key.span(), seed), pad, 16000,
                        rng, sent);
  test::StreamRx receiver(rx, wire::PacketCodec(wire::Framing::kTls, key.span(), seed), got,
                          nullptr, /*gso=*/true);
  writer.set_peer_gso(true);
  EXPECT_EQ(writer.headroom(), wire::kMaxSealHeadroom + test::kXorHead);
  StopSignal stop;
  tunio::PacketBatch out(8, wire::kMaxSuperPacket, writer.headroom(), writer.tailroom(pad));
  const Bytes small = ipv4_tcp(1360, 0x11);
  const Bytes too_big = ipv4_tcp(5000, 0x33);  // > 4096 − 43 bytes of record data
  const Bytes super = ipv4_tcp(40000, 0x22);
  tunio::GsoMetadata meta{tunio::GsoType::tcp4, true, 40, 1360, 20, 16};
  ASSERT_TRUE(out.push(small));
  ASSERT_TRUE(out.push(too_big));
  ASSERT_TRUE(out.push(super, meta));
  ASSERT_EQ(writer.seal_and_write(out, stop), WriteStatus::kOk);

  tunio::PacketBatch in(8, wire::kMaxSuperPacket);
  for (int i = 0; i < 500 && in.size() < 2; ++i) {
    const auto st = receiver.receive(in);
    ASSERT_TRUE(st == RxStatus::kOk || st == RxStatus::kWouldBlock) << receiver.why();
    if (st == RxStatus::kWouldBlock) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(in.size(), 2U);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), in.packet(0).begin(), in.packet(0).end()));
  EXPECT_TRUE(std::equal(super.begin(), super.end(), in.packet(1).begin(), in.packet(1).end()));
  EXPECT_EQ(sent.get(tunnel::SessionCounter::kDropTooBig), 1U);
  EXPECT_EQ(got.get(tunnel::SessionCounter::kDropBadGso), 0U);
}

}  // namespace
}  // namespace qeli::engine
