// VerifiedSources (sources that answered a cookie challenge): bounded, least recently
// used out first, entries expire, and a hit keeps an entry in.
#include "server/verified_sources.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

using namespace std::chrono_literals;
using transport::SockAddr;

SockAddr addr(std::uint32_t i) { return SockAddr::ipv4(0x0A000000 + i, 1000); }

TEST(VerifiedSources, ContainsOnlyWhatWasAddedAndOnlyForItsLifetime) {
  VerifiedSources v(8, 120s);
  const Instant t0{};
  EXPECT_FALSE(v.contains(addr(1), t0));
  EXPECT_TRUE(v.add(addr(1), t0));        // newly verified
  EXPECT_FALSE(v.add(addr(1), t0 + 1s));  // renewed only
  EXPECT_TRUE(v.contains(addr(1), t0 + 119s));
  EXPECT_FALSE(v.contains(addr(1).with_port(1001), t0));  // the port is part of the proof
  EXPECT_TRUE(v.contains(addr(1), t0 + 120s));            // renewed at t0 + 1 s
  EXPECT_FALSE(v.contains(addr(1), t0 + 121s));           // expired, and removed
  EXPECT_EQ(v.size(), 0U);
  EXPECT_TRUE(v.add(addr(1), t0 + 200s));  // a new proof after expiry: verified anew
  EXPECT_TRUE(v.contains(addr(1), t0 + 300s));
}

TEST(VerifiedSources, BoundedLeastRecentlyUsedFirst) {
  VerifiedSources v(4, 120s);
  const Instant t0{};
  for (std::uint32_t i = 0; i < 4; ++i) v.add(addr(i), t0);
  EXPECT_TRUE(v.contains(addr(0), t0));  // 0 is now the most recently used
  v.add(addr(4), t0);                    // full: 1 (least recently used) goes
  EXPECT_EQ(v.size(), 4U);
  EXPECT_FALSE(v.contains(addr(1), t0));
  for (std::uint32_t i : {0U, 2U, 3U, 4U}) EXPECT_TRUE(v.contains(addr(i), t0)) << i;
  // Many more: never more than the capacity.
  for (std::uint32_t i = 10; i < 1000; ++i) v.add(addr(i), t0);
  EXPECT_EQ(v.size(), 4U);
  for (std::uint32_t i = 996; i < 1000; ++i) EXPECT_TRUE(v.contains(addr(i), t0));
}

TEST(VerifiedSources, TheDefaultBound) {
  VerifiedSources v;
  EXPECT_EQ(v.capacity(), kMaxVerifiedSources);
  const Instant t0{};
  for (std::uint32_t i = 0; i < kMaxVerifiedSources + 100; ++i) v.add(addr(i), t0);
  EXPECT_EQ(v.size(), kMaxVerifiedSources);
  EXPECT_FALSE(v.contains(addr(0), t0));
  EXPECT_TRUE(v.contains(addr(kMaxVerifiedSources + 99), t0));
}

}  // namespace
}  // namespace qeli::server
