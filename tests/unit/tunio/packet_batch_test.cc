#include "tunio/packet_batch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace qeli::tunio {
namespace {

TEST(PacketBatch, PushAndReadBack) {
  PacketBatch b(4, 100, 16, 8);
  EXPECT_EQ(b.capacity(), 4u);
  EXPECT_TRUE(b.empty());
  const std::uint8_t a[] = {1, 2, 3};
  ASSERT_TRUE(b.push(a));
  std::vector<std::uint8_t> big(101, 7);
  EXPECT_FALSE(b.push(big));  // longer than max_packet
  EXPECT_EQ(b.size(), 1u);
  ASSERT_EQ(b.packet(0).size(), 3u);
  EXPECT_EQ(0, std::memcmp(b.packet(0).data(), a, 3));
  EXPECT_EQ(b.room_before(0), 16u);
  EXPECT_EQ(b.room_after(0), 97u);
  EXPECT_EQ(b.logical(0), 1u);
}

TEST(PacketBatch, FixedCapacityAndClear) {
  PacketBatch b(2, 10);
  const std::uint8_t a[] = {1};
  EXPECT_TRUE(b.push(a));
  EXPECT_TRUE(b.push(a));
  EXPECT_TRUE(b.full());
  EXPECT_FALSE(b.push(a));
  b.set_cursor(1);
  b.set_coalesced(true);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.cursor(), 0u);
  EXPECT_FALSE(b.coalesced());
}

TEST(PacketBatch, SlotsAreContiguousAndDisjoint) {
  PacketBatch b(8, 1500, 32);
  for (int i = 0; i < 8; ++i) {
    auto s = b.next_slot();
    std::memset(s.data(), i, s.size());
    b.commit(1500);
  }
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::uint8_t v : b.packet(i)) ASSERT_EQ(v, i);
    if (i > 0) {
      EXPECT_GT(b.packet(i).data(), b.packet(i - 1).data() + 1500 + 32 - 1);
    }
  }
  // One buffer: distance between first and last slot is bounded by the stride.
  EXPECT_LT(static_cast<std::size_t>(b.packet(7).data() - b.packet(0).data()),
            8u * (1500 + 32 + 64));
}

TEST(PacketBatch, PrependTrimAndGrowInPlace) {
  PacketBatch b(2, 64, 16);
  const std::uint8_t a[] = {9, 9};
  ASSERT_TRUE(b.push(a));
  auto front = b.prepend(0, 4);
  std::memset(front.data(), 1, 4);
  EXPECT_EQ(b.packet(0).size(), 6u);
  EXPECT_EQ(b.room_before(0), 12u);
  EXPECT_EQ(b.packet(0)[0], 1);
  EXPECT_EQ(b.packet(0)[4], 9);
  b.trim_front(0, 4);
  EXPECT_EQ(b.packet(0).size(), 2u);
  b.set_length(0, 64);
  EXPECT_EQ(b.room_after(0), 0u);
}

TEST(PacketBatch, SwapMovesIndexesNotBytes) {
  PacketBatch b(2, 8);
  const std::uint8_t x[] = {1}, y[] = {2, 2};
  ASSERT_TRUE(b.push(x));
  ASSERT_TRUE(b.push(y));
  const auto* px = b.packet(0).data();
  b.set_logical(1, 5);
  b.swap(0, 1);
  EXPECT_EQ(b.packet(1).data(), px);
  EXPECT_EQ(b.packet(0).size(), 2u);
  EXPECT_EQ(b.logical(0), 5u);
  EXPECT_EQ(b.room_after(1), 7u);  // room still computed within the moved slot
}

TEST(PacketBatch, ClearRestoresEverySlotAfterPartialUseSwapsAndEdits) {
  PacketBatch b(8, 16, 4);
  std::vector<const std::uint8_t*> home;
  const std::uint8_t one[] = {9};
  for (std::size_t i = 0; i < 8; ++i) {
    ASSERT_TRUE(b.push(one));
    home.push_back(b.packet(i).data());
  }
  b.clear();
  for (int round = 0; round < 3; ++round) {
    const std::uint8_t p[] = {1, 2, 3};
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(b.push(p));
    b.swap(0, 4);
    b.swap(1, 3);
    (void)b.prepend(2, 4);
    b.trim_front(3, 1);
    b.set_length(4, 10);
    b.meta(1).gso_size = 1000;
    b.set_logical(0, 7);
    b.truncate(2);
    b.clear();
    for (std::size_t i = 0; i < 8; ++i) {
      ASSERT_EQ(b.next_slot().data(), home[i]) << "round " << round << " slot " << i;
      ASSERT_TRUE(b.push(p));
      EXPECT_EQ(b.meta(i).gso_size, 0) << "round " << round << " slot " << i;
      EXPECT_EQ(b.logical(i), 1U);
    }
    b.clear();
  }
}

}  // namespace
}  // namespace qeli::tunio
