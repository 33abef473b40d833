// ffi::PacketPipe (libqeli's packet mode): what the app pushes the engine reads, what the
// engine writes the app pulls, full rings behave as documented, super-packets reach the
// app split, and none of it allocates.
#include "ffi/packet_pipe.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <vector>

#include "support/counting_allocator.h"

namespace qeli::ffi {
namespace {

std::vector<std::uint8_t> packet(std::size_t n, std::uint8_t fill) {
  std::vector<std::uint8_t> p(n, fill);
  p[0] = 0x45;
  return p;
}

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

TEST(PacketPipe, PushedPacketsReachTheEngineInOrder) {
  PacketPipe pipe(1400, 64 * 1400);
  EXPECT_FALSE(readable(pipe.fd()));
  const auto a = packet(100, 1), b = packet(1400, 2);
  std::vector<std::uint8_t> both(a);
  both.insert(both.end(), b.begin(), b.end());
  const std::uint32_t lens[] = {100, 1400};
  EXPECT_EQ(pipe.push(both.data(), lens, 2), 2U);
  EXPECT_TRUE(readable(pipe.fd()));
  tunio::PacketBatch batch(8, 1400);
  auto n = pipe.read_batch(batch);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(*n, 2U);
  EXPECT_EQ(batch.packet(0).size(), 100U);
  EXPECT_EQ(batch.packet(1)[5], 2);
  EXPECT_FALSE(readable(pipe.fd()));  // drained: the engine stops polling it
  batch.clear();
  EXPECT_FALSE(pipe.read_batch(batch).ok());  // would_block
}

TEST(PacketPipe, AFullUplinkTakesAPrefix) {
  PacketPipe pipe(1000, 1);  // the minimum: 64 slots
  const auto p = packet(1000, 3);
  std::vector<std::uint8_t> many;
  std::vector<std::uint32_t> lens;
  for (int i = 0; i < 70; ++i) {
    many.insert(many.end(), p.begin(), p.end());
    lens.push_back(1000);
  }
  EXPECT_EQ(pipe.push(many.data(), lens.data(), 70), 64U);
  tunio::PacketBatch batch(64, 1000);
  ASSERT_TRUE(pipe.read_batch(batch).ok());
  EXPECT_EQ(pipe.push(many.data(), lens.data(), 6), 6U);
}

TEST(PacketPipe, APushOverTheMtuIsDroppedAloneAndCounted) {
  // 0.7.16 takes packets up to 65535 bytes: one the tunnel cannot carry is dropped, the
  // batch goes on (iOS would fail the whole generation on an error).
  PacketPipe pipe(1000, 1);
  const auto small = packet(100, 1), big = packet(1001, 2), last = packet(200, 3);
  std::vector<std::uint8_t> all;
  for (const auto* p : {&small, &big, &last}) all.insert(all.end(), p->begin(), p->end());
  const std::uint32_t lens[] = {100, 1001, 200};
  EXPECT_EQ(pipe.push(all.data(), lens, 3), 3U);
  EXPECT_EQ(pipe.dropped(), 1U);
  tunio::PacketBatch batch(64, 1000);
  ASSERT_TRUE(pipe.read_batch(batch).ok());
  ASSERT_EQ(batch.size(), 2U);
  EXPECT_EQ(batch.packet(0).size(), 100U);
  EXPECT_EQ(batch.packet(1).size(), 200U);
  EXPECT_EQ(batch.packet(1)[5], 3);
}

TEST(PacketPipe, EngineWritesArePulledAndAFullDownlinkDropsAndCounts) {
  PacketPipe pipe(500, 1);  // 64 slots
  tunio::PacketBatch batch(80, 500);
  for (int i = 0; i < 80; ++i) batch.push(packet(200, static_cast<std::uint8_t>(i)));
  auto r = pipe.write_batch(batch);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logical_written, 64U);
  EXPECT_EQ(r->logical_dropped, 16U);
  EXPECT_FALSE(r->would_block);  // the engine never waits on the app
  EXPECT_EQ(pipe.dropped(), 16U);

  std::vector<std::uint8_t> out(1000);
  std::uint32_t lens[64];
  auto got = pipe.pull(out.data(), 150, lens, 64);  // the first does not fit
  EXPECT_EQ(got.packets, 0U);
  EXPECT_EQ(got.first_size, 200U);
  got = pipe.pull(out.data(), out.size(), lens, 64);
  EXPECT_EQ(got.packets, 5U);  // 1000 bytes hold five
  EXPECT_EQ(got.bytes, 1000U);
  EXPECT_EQ(out[200 + 5], 1);  // in order
}

TEST(PacketPipe, PushPullReadWriteAllocateNothing) {
  PacketPipe pipe(1400);
  const auto p = packet(1400, 9);
  std::vector<std::uint8_t> burst;
  std::vector<std::uint32_t> lens(64, 1400);
  for (int i = 0; i < 64; ++i) burst.insert(burst.end(), p.begin(), p.end());
  tunio::PacketBatch batch(64, 1400);
  std::vector<std::uint8_t> out(64 * 1400);
  std::uint32_t out_lens[64];
  test::AllocationWindow window;
  for (int round = 0; round < 100; ++round) {
    ASSERT_EQ(pipe.push(burst.data(), lens.data(), 64), 64U);
    batch.clear();
    ASSERT_TRUE(pipe.read_batch(batch).ok());
    ASSERT_TRUE(pipe.write_batch(batch).ok());
    ASSERT_EQ(pipe.pull(out.data(), out.size(), out_lens, 64).packets, 64U);
    const std::uint32_t too_big = 1401;  // dropped: no allocation either
    ASSERT_EQ(pipe.push(burst.data(), &too_big, 1), 1U);
  }
  EXPECT_EQ(window.allocations(), 0U);
}

}  // namespace
}  // namespace qeli::ffi
