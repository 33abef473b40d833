// Checklist gso-gro.md cases 33-35: UDP GSO planning, the UDP_SEGMENT cmsg, and the
// split of UDP GRO reads — pure functions over arrays.
#include "transport/udp_gso.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace qeli::transport {
namespace {

SockAddr v4(std::uint16_t port) { return SockAddr::ipv4(0x7f000001, port); }

SockAddr v6(std::uint16_t port) {
  sockaddr_in6 sa{};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(port);
  sa.sin6_addr = in6addr_loopback;
  return SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&sa), sizeof(sa));
}

struct Planned {
  std::size_t bytes;
  std::uint16_t gso;
  friend bool operator==(const Planned&, const Planned&) = default;
};

std::vector<Planned> plan(const std::vector<std::size_t>& lens, const SockAddr& to,
                          GsoLimits limits = {}, bool gso = true) {
  static const std::uint8_t data[70000] = {};
  std::vector<OutDatagram> in;
  for (auto n : lens) in.push_back({data, n, &to});
  std::vector<GsoMessage> out(lens.size() + 1);
  const GsoPlan p = plan_gso(in, gso, limits, out);
  EXPECT_EQ(p.datagrams, lens.size());
  std::vector<Planned> r;
  std::size_t next = 0;
  for (std::size_t i = 0; i < p.messages; ++i) {
    EXPECT_EQ(out[i].first, next) << "messages must be consecutive";
    next += out[i].count;
    EXPECT_EQ(out[i].gso_size == 0, out[i].count == 1);
    r.push_back({out[i].bytes, out[i].gso_size});
  }
  return r;
}

// Case 33.
TEST(UdpGso, CoalesceTable) {
  const SockAddr to = v4(9);
  EXPECT_EQ(plan({1}, to), (std::vector<Planned>{{1, 0}}));
  EXPECT_EQ(plan({1, 1}, to), (std::vector<Planned>{{2, 1}}));
  EXPECT_EQ(plan({2, 1}, to), (std::vector<Planned>{{3, 2}}));
  EXPECT_EQ(plan({2, 1, 2}, to), (std::vector<Planned>{{3, 2}, {2, 0}}));
  GsoLimits room4;
  room4.max_bytes = 4;
  EXPECT_EQ(plan({2, 2, 2}, to, room4), (std::vector<Planned>{{4, 2}, {2, 0}}));
  // Larger after smaller starts a new message; GSO off gives one message per datagram.
  EXPECT_EQ(plan({1, 2}, to), (std::vector<Planned>{{1, 0}, {2, 0}}));
  EXPECT_EQ(plan({5, 5, 5}, to, {}, false), (std::vector<Planned>{{5, 0}, {5, 0}, {5, 0}}));
}

TEST(UdpGso, DifferentDestinationsNeverShareAMessage) {
  static const std::uint8_t data[8] = {};
  const SockAddr a = v4(1), b = v4(2), a2 = v4(1);
  const std::vector<OutDatagram> in = {{data, 8, &a}, {data, 8, &a2}, {data, 8, &b}, {data, 8, &a}};
  std::vector<GsoMessage> out(4);
  const GsoPlan p = plan_gso(in, true, {}, out);
  ASSERT_EQ(p.messages, 3u);
  EXPECT_EQ(out[0].count, 2u);  // equal addresses, different objects
  EXPECT_EQ(out[1].count, 1u);
  EXPECT_EQ(out[2].count, 1u);
}

TEST(UdpGso, StopsWhenTheMessageArrayIsFull) {
  static const std::uint8_t data[8] = {};
  const SockAddr a = v4(1);
  const std::vector<OutDatagram> in = {{data, 3, &a}, {data, 4, &a}, {data, 5, &a}};
  std::vector<GsoMessage> out(2);
  const GsoPlan p = plan_gso(in, true, {}, out);
  EXPECT_EQ(p.messages, 2u);
  EXPECT_EQ(p.datagrams, 2u);
}

// Case 34.
TEST(UdpGso, CoalesceLimits) {
  const SockAddr to4 = v4(9), to6 = v6(9);
  const auto p65 = plan(std::vector<std::size_t>(65, 100), to4);
  EXPECT_EQ(p65, (std::vector<Planned>{{6400, 100}, {100, 0}}));
  // 60 x 1100 = 66000: IPv4 fits 59 (64900 <= 65507).
  const auto big = plan(std::vector<std::size_t>(60, 1100), to4);
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0].bytes, 59u * 1100);
  // 5 x 13105 = 65525: one IPv6 message (<= 65527), but not IPv4 (> 65507).
  EXPECT_EQ(plan(std::vector<std::size_t>(5, 13105), to6).size(), 1u);
  EXPECT_EQ(plan(std::vector<std::size_t>(5, 13105), to4).size(), 2u);
  EXPECT_EQ(plan({65507, 1}, to4), (std::vector<Planned>{{65507, 0}, {1, 0}}));
  EXPECT_EQ(plan({65527, 1}, to6), (std::vector<Planned>{{65527, 0}, {1, 0}}));

  alignas(cmsghdr) std::uint8_t control[64];
  std::memset(control, 0xAA, sizeof(control));
  const std::size_t len = write_segment_cmsg(control, 1200);
  EXPECT_EQ(len, CMSG_SPACE(2));
  const auto* c = reinterpret_cast<const cmsghdr*>(control);
  EXPECT_EQ(c->cmsg_level, 17);
  EXPECT_EQ(c->cmsg_type, 103);
  EXPECT_EQ(c->cmsg_len, CMSG_LEN(2));
  std::uint16_t v = 0;
  std::memcpy(&v, CMSG_DATA(c), 2);
  EXPECT_EQ(v, 1200);
}

struct Slots {
  Slots(std::size_t n, std::size_t cap) : mem(n * cap), slots(n) {
    for (std::size_t i = 0; i < n; ++i) slots[i] = RecvSlot::over(mem.data() + i * cap, cap);
  }
  std::vector<std::uint8_t> mem;
  std::vector<RecvSlot> slots;
};

// Case 35.
TEST(UdpGro, SplitsACoalescedReadIntoConsecutiveSlots) {
  Slots s(8, 4000);
  RecvSlot& in = s.slots[6];
  for (std::size_t i = 0; i < 3500; ++i) in.data[i] = static_cast<std::uint8_t>(i * 7);
  in.len = 3500;
  in.gso_size = 1200;
  in.from = v4(5);
  RecvSlot& plain = s.slots[7];
  plain.len = 10;
  std::memset(plain.data, 0x5c, 10);
  plain.from = v4(6);
  const SplitResult r = split_gro(s.slots, 6, 2);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.datagrams, 4u);
  EXPECT_EQ(s.slots[0].len, 1200u);
  EXPECT_EQ(s.slots[1].len, 1200u);
  EXPECT_EQ(s.slots[2].len, 1100u);
  EXPECT_EQ(s.slots[3].len, 10u);  // gso absent: unsplit
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < s.slots[k].len; ++i) {
      ASSERT_EQ(s.slots[k].data[i], static_cast<std::uint8_t>((k * 1200 + i) * 7));
    }
    EXPECT_EQ(s.slots[k].from, v4(5));
  }
  EXPECT_EQ(s.slots[3].data[9], 0x5c);
  EXPECT_EQ(s.slots[3].from, v4(6));
}

TEST(UdpGro, SplitThatWouldOverwriteAnUnreadReadFails) {
  Slots s(4, 4000);
  s.slots[2].len = 3000;  // 3 datagrams of 1000 -> slots 0, 1, 2 (its own: allowed)
  s.slots[2].gso_size = 1000;
  s.slots[3].len = 2000;  // 4 more: slot 3 (its own, allowed), then slot 4 > 3: overflow
  s.slots[3].gso_size = 500;
  const SplitResult r = split_gro(s.slots, 2, 2);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, SplitError::kOverflow);
  EXPECT_EQ(r.datagrams, 4u);  // the three of the first read and one of the second
}

TEST(UdpGro, TruncatedReadsAreDroppedAndCounted) {
  Slots s(4, 100);
  s.slots[0].len = 100;
  s.slots[0].truncated = true;
  s.slots[1].len = 7;
  const SplitResult r = split_gro(s.slots, 0, 2);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.datagrams, 1u);
  EXPECT_EQ(r.truncated, 1u);
  EXPECT_EQ(s.slots[0].len, 7u);
}

TEST(UdpGro, SlotTooSmallForASegmentFails) {
  Slots s(3, 100);
  std::vector<std::uint8_t> big(3000);
  s.slots[2] = RecvSlot::over(big.data(), 3000);
  s.slots[2].len = 400;
  s.slots[2].gso_size = 200;
  const SplitResult r = split_gro(s.slots, 2, 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, SplitError::kSlotTooSmall);
}

msghdr with_control(std::uint8_t* buf, std::size_t space, int level, int type, const void* v,
                    std::size_t n) {
  std::memset(buf, 0, space);
  msghdr m{};
  m.msg_control = buf;
  m.msg_controllen = CMSG_SPACE(n);
  auto* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = CMSG_LEN(n);
  std::memcpy(CMSG_DATA(c), v, n);
  return m;
}

TEST(UdpGro, ParsesTheGroCmsgAsFourOrTwoBytes) {
  alignas(cmsghdr) std::uint8_t buf[64];
  const int four = 1200;
  EXPECT_EQ(parse_gro_size(with_control(buf, sizeof(buf), kSolUdp, kUdpGro, &four, 4)), 1200u);
  const std::uint16_t two = 1300;
  EXPECT_EQ(parse_gro_size(with_control(buf, sizeof(buf), kSolUdp, kUdpGro, &two, 2)), 1300u);
  EXPECT_EQ(parse_gro_size(with_control(buf, sizeof(buf), kSolUdp, kUdpSegment, &four, 4)), 0u);
  const int negative = -5;
  EXPECT_EQ(parse_gro_size(with_control(buf, sizeof(buf), kSolUdp, kUdpGro, &negative, 4)), 0u);
  msghdr none{};
  EXPECT_EQ(parse_gro_size(none), 0u);
}

}  // namespace
}  // namespace qeli::transport
