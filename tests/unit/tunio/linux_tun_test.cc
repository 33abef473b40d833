// LinuxTun against an in-memory kernel: set-up, negotiation and fallbacks, the read path
// (split with carry-over, keep whole, drops) and the write path (GRO, headers, partial
// writes, rejections, software split). No root needed.
#include "tunio/linux_tun.h"

#include <gtest/gtest.h>

#include "fake_tun_kernel.h"
#include "fakes/packet_builder.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using qeli::test::PacketBytes;
using test::FakeTunKernel;

TunConfig quiet(TunConfig c = {}) {
  c.log = [](std::string_view) {};
  return c;
}

PacketBytes with_hdr(const VnetHdr& h, const PacketBytes& p) {
  PacketBytes out(kVnetHdrLen + p.size());
  encode_vnet_hdr(h, out.data());
  std::copy(p.begin(), p.end(), out.begin() + kVnetHdrLen);
  return out;
}

PacketBytes super_tcp4(std::uint32_t seq, std::size_t payload) {
  qeli::test::PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.partial_csum = true;
  return qeli::test::build_packet(s);
}

TEST(LinuxTunSetup, NegotiatesCsumTsoThenUso) {
  FakeTunKernel k;
  std::vector<std::string> lines;
  TunConfig c;
  c.log = [&](std::string_view l) { lines.emplace_back(l); };
  auto tun = LinuxTun::open(c, k);
  ASSERT_TRUE(tun.ok()) << tun.error().detail;
  EXPECT_EQ(k.offload_calls, (std::vector<unsigned long>{0x07, 0x67}));
  EXPECT_TRUE(tun->capabilities().vnet_hdr);
  EXPECT_TRUE(tun->capabilities().tso);
  EXPECT_TRUE(tun->capabilities().uso);
  EXPECT_EQ(tun->capabilities().offload_flags, 0x67u);
  EXPECT_EQ(tun->name(), "qeli7");
  ASSERT_EQ(k.setiffs.size(), 1u);
  EXPECT_EQ(static_cast<unsigned short>(k.setiffs[0].flags),
            IFF_TUN | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE | IFF_TUN_EXCL);
  ASSERT_EQ(lines.size(), 1u);  // logged once
  EXPECT_NE(lines[0].find("uso=on"), std::string::npos);
  EXPECT_EQ(tun->fd(0), 100);
  EXPECT_EQ(tun->fd(1), -1);
}

TEST(LinuxTunSetup, KernelWithoutUsoKeepsTsoAndDisablesUdpGro) {
  FakeTunKernel k;
  k.uso_supported = false;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  EXPECT_EQ(k.offload_calls, (std::vector<unsigned long>{0x07, 0x67}));
  EXPECT_TRUE(tun->capabilities().tso);
  EXPECT_FALSE(tun->capabilities().uso);
  EXPECT_EQ(tun->capabilities().offload_flags, 0x07u);
  // UDP GRO is off: two same-flow datagrams are written separately.
  PacketBatch b(4, 65535);
  ASSERT_TRUE(b.push(qeli::test::udp4(100)));
  ASSERT_TRUE(b.push(qeli::test::udp4(100)));
  auto r = tun->write_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(k.writes.size(), 2u);
}

TEST(LinuxTunSetup, OffloadRefusedFallsBackToPlainTun) {
  FakeTunKernel k;
  k.offload_supported = false;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  EXPECT_FALSE(tun->capabilities().vnet_hdr);
  ASSERT_EQ(k.setiffs.size(), 2u);
  EXPECT_TRUE(k.setiffs[0].flags & IFF_VNET_HDR);
  EXPECT_FALSE(k.setiffs[1].flags & IFF_VNET_HDR);
  EXPECT_EQ(k.closed, (std::vector<int>{100}));
  EXPECT_EQ(tun->fd(0), 101);
}

TEST(LinuxTunSetup, OffloadDisabledByConfigNeverAsks) {
  FakeTunKernel k;
  TunConfig c = quiet();
  c.offload = false;
  auto tun = LinuxTun::open(c, k);
  ASSERT_TRUE(tun.ok());
  EXPECT_TRUE(k.offload_calls.empty());
  EXPECT_FALSE(k.setiffs[0].flags & IFF_VNET_HDR);
}

TEST(LinuxTunSetup, MultiQueueSameFlagsOneNegotiation) {
  FakeTunKernel k;
  TunConfig c = quiet();
  c.queues = 3;
  {
    auto tun = LinuxTun::open(c, k);
    ASSERT_TRUE(tun.ok());
    EXPECT_EQ(tun->queue_count(), 3u);
    ASSERT_EQ(k.setiffs.size(), 3u);
    // Only the first queue creates the device exclusively; later ones join it with the
    // same flags otherwise.
    EXPECT_NE(k.setiffs[0].flags & IFF_TUN_EXCL, 0);
    for (std::size_t i = 1; i < k.setiffs.size(); ++i) {
      EXPECT_EQ(k.setiffs[i].flags, static_cast<short>(k.setiffs[0].flags & ~IFF_TUN_EXCL));
      EXPECT_EQ(k.setiffs[i].name, "qeli7");  // later queues join the kernel-chosen name
    }
    EXPECT_EQ(k.offload_calls.size(), 2u);
    EXPECT_EQ(tun->fd(2), 102);
  }
  EXPECT_EQ(k.closed.size(), 3u);  // the destructor closes every queue
}

// Checklist 32 (our side): a read buffer below 10 + 65535 bytes is refused at start-up.
TEST(LinuxTunSetup, RejectsBadConfig) {
  FakeTunKernel k;
  auto expect_bad = [&](TunConfig c) {
    auto r = LinuxTun::open(quiet(c), k);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, TunError::bad_config);
  };
  TunConfig c;
  c.read_buffer_bytes = 65544;
  expect_bad(c);
  c = {};
  c.name = "0123456789abcdef";
  expect_bad(c);
  c = {};
  c.queues = 0;
  expect_bad(c);
  c = {};
  c.max_udp_segments = 129;
  expect_bad(c);
  EXPECT_TRUE(k.setiffs.empty());
  k.open_error = -EACCES;
  auto r = LinuxTun::open(quiet(), k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, TunError::open_failed);
}

// Read: a 48-segment super-packet into a 32-slot batch: 32 now, 16 carried to the next call.
TEST(LinuxTunRead, SplitCarriesPendingSuperPacket) {
  FakeTunKernel k;
  TunConfig c = quiet();
  c.mtu = 1500;
  auto tun = LinuxTun::open(c, k);
  ASSERT_TRUE(tun.ok());
  auto sp = super_tcp4(1, 48 * 1000);
  k.reads[100].push_back(with_hdr({1, 1, 40, 1000, 20, 16}, sp));
  k.reads[100].push_back(with_hdr({}, qeli::test::tcp4(77, 10)));
  PacketBatch b(32, 1500, 32);
  auto r1 = tun->read_batch(0, b);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(*r1, 32u);
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(b.packet(i).size(), 1040u);
    EXPECT_TRUE(qeli::test::ref_checksums_ok(b.packet(i).data(), b.packet(i).size()));
    EXPECT_EQ(qeli::test::rd32(&b.packet(i)[24]), 1 + i * 1000);
    EXPECT_EQ(b.room_before(i), 32u);  // headroom preserved for in-place framing
  }
  b.clear();
  auto r2 = tun->read_batch(0, b);
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(*r2, 17u);  // 16 pending segments, then the next packet
  EXPECT_EQ(qeli::test::rd32(&b.packet(15)[24]), 1u + 47 * 1000);
  EXPECT_EQ(qeli::test::rd32(&b.packet(16)[24]), 77u);
  b.clear();
  auto r3 = tun->read_batch(0, b);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error(), TunError::would_block);
  EXPECT_EQ(tun->counters(0).read_packets, 49u);
  EXPECT_EQ(tun->counters(0).read_superpackets, 1u);
}

TEST(LinuxTunRead, KeepWholeKeepsMetadata) {
  FakeTunKernel k;
  TunConfig c = quiet();
  c.read_mode = ReadMode::keep_whole;
  auto tun = LinuxTun::open(c, k);
  ASSERT_TRUE(tun.ok());
  auto sp = super_tcp4(1, 3 * 1000 + 5);
  k.reads[100].push_back(with_hdr({1, 1, 9999, 1000, 20, 16}, sp));
  PacketBatch small(4, 1500);
  auto bad = tun->read_batch(0, small);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), TunError::batch_too_small);
  PacketBatch b(4, 65535);
  auto r = tun->read_batch(0, b);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(*r, 1u);
  EXPECT_EQ(b.meta(0), (GsoMetadata{GsoType::tcp4, true, 40, 1000, 20, 16}));  // hdr_len fixed
  EXPECT_EQ(b.logical(0), 4u);
  EXPECT_TRUE(std::equal(b.packet(0).begin(), b.packet(0).end(), sp.begin(), sp.end()));
}

TEST(LinuxTunRead, DropsInvalidAndCompletesPartial) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  qeli::test::PacketSpec s;
  s.proto = 17;
  s.partial_csum = true;
  k.reads[100].push_back(PacketBytes(9, 0));                                     // short
  k.reads[100].push_back(with_hdr({1, 3, 28, 100, 20, 6}, super_tcp4(1, 200)));  // UFO
  k.reads[100].push_back(with_hdr({1, 1, 40, 0, 20, 16}, super_tcp4(1, 200)));   // gso 0
  k.reads[100].push_back(with_hdr({1, 0, 0, 0, 20, 6}, qeli::test::build_packet(s)));
  PacketBatch b(8, 1500);
  auto r = tun->read_batch(0, b);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(*r, 1u);
  s.partial_csum = false;
  auto full = qeli::test::build_packet(s);
  EXPECT_TRUE(std::equal(b.packet(0).begin(), b.packet(0).end(), full.begin(), full.end()));
  const auto& d = tun->counters(0).drops;
  EXPECT_EQ(d.get(OffloadError::short_header), 1u);
  EXPECT_EQ(d.get(OffloadError::bad_gso_type), 1u);
  EXPECT_EQ(d.get(OffloadError::zero_gso_size), 1u);
}

TEST(LinuxTunRead, PlainTunReadsPacketsAsIs) {
  FakeTunKernel k;
  k.offload_supported = false;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  auto p = qeli::test::tcp4(5, 50);
  k.reads[101].push_back(p);
  PacketBatch b(8, 1500);
  auto r = tun->read_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1u);
  EXPECT_TRUE(std::equal(b.packet(0).begin(), b.packet(0).end(), p.begin(), p.end()));
}

// Write: GRO, then writev([10-byte header, packet]); checklist 27: every header is
// initialised (0xAA headroom never leaks), non-merged packets get an all-zero header.
TEST(LinuxTunWrite, CoalescesAndWritesInitialisedHeaders) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(8, 65535, 16);
  for (auto& p : {qeli::test::tcp4(1, 100), qeli::test::tcp4(101, 100), qeli::test::udp4(30, 9)}) {
    ASSERT_TRUE(b.push(p));
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    auto hr = b.prepend(i, 16);
    std::memset(hr.data(), 0xAA, 16);
    b.trim_front(i, 16);
  }
  auto r = tun->write_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logical_written, 3u);
  EXPECT_EQ(r->syscalls, 2u);
  EXPECT_TRUE(r->complete());
  ASSERT_EQ(k.writes.size(), 2u);
  EXPECT_EQ(k.write_iov_lens[0], (std::vector<std::size_t>{10, 240}));
  auto h0 = decode_vnet_hdr(k.writes[0]);
  EXPECT_EQ(*h0, (VnetHdr{1, 1, 40, 100, 20, 16}));
  EXPECT_EQ(k.write_iov_lens[1], (std::vector<std::size_t>{10, 58}));
  EXPECT_TRUE(
      std::all_of(k.writes[1].begin(), k.writes[1].begin() + 10, [](auto v) { return v == 0; }));
  EXPECT_EQ(tun->counters(0).gro_merged, 1u);
}

// A would-block in the middle: the report counts logical packets, and passing the same
// batch again writes only what is left.
TEST(LinuxTunWrite, PartialWriteResumesWithoutDuplicates) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(8, 65535);
  ASSERT_TRUE(b.push(qeli::test::tcp4(1, 100)));
  ASSERT_TRUE(b.push(qeli::test::tcp4(101, 100)));
  ASSERT_TRUE(b.push(qeli::test::tcp4(201, 100)));
  ASSERT_TRUE(b.push(qeli::test::udp4(10)));
  ASSERT_TRUE(b.push(qeli::test::udp4(10, 5)));
  k.write_errors[1] = -EAGAIN;
  auto r1 = tun->write_batch(0, b);
  ASSERT_TRUE(r1.ok());
  EXPECT_TRUE(r1->would_block);
  EXPECT_EQ(r1->logical_written, 3u);  // the 3-segment TCP group
  auto r2 = tun->write_batch(0, b);
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->would_block);
  EXPECT_EQ(r2->logical_written, 2u);
  ASSERT_EQ(k.writes.size(), 3u);  // 240+100 group, then each UDP datagram once
  EXPECT_EQ(k.writes[0].size(), 10u + 340);
  EXPECT_EQ(k.writes[1].size(), 10u + 38);
  EXPECT_EQ(k.writes[2].size(), 10u + 38);
  EXPECT_NE(k.writes[1], k.writes[2]);
}

// Checklist 31 (our side): a rejected write is surfaced and the batch goes on.
TEST(LinuxTunWrite, KernelRejectionDoesNotStallBatch) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(8, 65535);
  ASSERT_TRUE(b.push(qeli::test::tcp4(1, 100)));
  ASSERT_TRUE(b.push(qeli::test::tcp4(101, 100)));
  ASSERT_TRUE(b.push(qeli::test::udp4(10)));
  k.write_errors[0] = -EINVAL;
  auto r = tun->write_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logical_dropped, 2u);
  EXPECT_EQ(r->logical_written, 1u);
  EXPECT_EQ(r->last_errno, EINVAL);
  EXPECT_TRUE(r->complete());
  EXPECT_EQ(tun->counters(0).write_errors, 1u);
}

TEST(LinuxTunWrite, InvalidPeerMetadataIsDropped) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(4, 65535);
  ASSERT_TRUE(b.push(super_tcp4(1, 300), GsoMetadata{GsoType::tcp4, true, 40, 0, 20, 16}));
  ASSERT_TRUE(b.push(super_tcp4(1, 300), GsoMetadata{GsoType::tcp6, true, 60, 100, 40, 16}));
  auto r = tun->write_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logical_dropped, 2u);
  EXPECT_TRUE(k.writes.empty());
  EXPECT_EQ(tun->counters(0).drops.get(OffloadError::zero_gso_size), 1u);
  EXPECT_EQ(tun->counters(0).drops.get(OffloadError::version_mismatch), 1u);
}

TEST(LinuxTunWrite, SuperPacketPassesWholeWithItsHeader) {
  FakeTunKernel k;
  auto tun = LinuxTun::open(quiet(), k);
  ASSERT_TRUE(tun.ok());
  PacketBatch b(4, 65535);
  auto sp = super_tcp4(1, 250);
  ASSERT_TRUE(b.push(sp, GsoMetadata{GsoType::tcp4, true, 40, 100, 20, 16}));
  b.set_logical(0, 3);
  auto r = tun->write_batch(0, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logical_written, 3u);
  ASSERT_EQ(k.writes.size(), 1u);
  EXPECT_EQ(*decode_vnet_hdr(k.writes[0]), (VnetHdr{1, 1, 40, 100, 20, 16}));
}

// A plain TUN (or UDP GSO without USO) gets software-split packets with full checksums.
TEST(LinuxTunWrite, SoftwareSplitWhenDeviceCannotTakeGso) {
  for (bool plain : {true, false}) {
    FakeTunKernel k;
    k.offload_supported = !plain;
    k.uso_supported = false;
    auto tun = LinuxTun::open(quiet(), k);
    ASSERT_TRUE(tun.ok());
    PacketBatch b(4, 65535);
    qeli::test::PacketSpec s;
    s.proto = 17;
    s.payload = 250;
    s.partial_csum = true;
    ASSERT_TRUE(
        b.push(qeli::test::build_packet(s), GsoMetadata{GsoType::udp4, true, 28, 100, 20, 6}));
    auto r = tun->write_batch(0, b);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->logical_written, 3u);
    ASSERT_EQ(k.writes.size(), 3u);
    const std::size_t off = plain ? 0 : kVnetHdrLen;
    for (auto& w : k.writes) {
      if (!plain) {
        EXPECT_TRUE(std::all_of(w.begin(), w.begin() + 10, [](auto v) { return v == 0; }));
      }
      EXPECT_TRUE(qeli::test::ref_checksums_ok(w.data() + off, w.size() - off));
    }
  }
}

}  // namespace
}  // namespace qeli::tunio
