// The per-user byte-rate limiter and quota (engine/traffic_account.h): the rate holds
// over time for a shaper and a policer, the bucket allows its burst and no more, a live
// change applies at once, threads sharing one account stay within the rate, and the
// quota trips at the configured download total.
#include "engine/traffic_account.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace qeli::engine {
namespace {

const Instant t0 = Instant{} + Seconds(1000);

// Simulates a sender that obeys charge(): sends `chunk` bytes, then waits what it says.
std::uint64_t shaped_bytes(RateLimiter& l, std::uint64_t chunk, Duration span) {
  Instant now = t0;
  std::uint64_t sent = 0;
  while (now < t0 + span) {
    sent += chunk;
    now += l.charge(chunk, now);
    now += Duration(1);
  }
  return sent;
}

TEST(RateLimiter, UnlimitedNeverWaits) {
  RateLimiter l;
  EXPECT_EQ(l.charge(1 << 30, t0), Duration::zero());
  EXPECT_TRUE(l.police(1 << 30, t0));
}

TEST(RateLimiter, ShaperHoldsTheRateWithinOneBucket) {
  RateLimiter l;
  l.set(625'000, 64 * 1024);  // 5 Mbit/s
  for (std::uint64_t chunk : {1400ULL, 65536ULL, 200'000ULL}) {
    RateLimiter fresh;
    fresh.set(625'000, 64 * 1024);
    const std::uint64_t sent = shaped_bytes(fresh, chunk, Seconds(10));
    // 10 s at the rate, plus at most the bucket and one chunk of overshoot.
    EXPECT_GE(sent, 6'250'000U) << chunk;
    EXPECT_LE(sent, 6'250'000U + 64 * 1024 + chunk) << chunk;
  }
}

TEST(RateLimiter, BucketAllowsItsBurstThenWaits) {
  RateLimiter l;
  l.set(1'000'000, 100'000);
  std::uint64_t at_once = 0;
  while (l.charge(10'000, t0) == Duration::zero()) at_once += 10'000;
  EXPECT_EQ(at_once, 100'000U);  // exactly the bucket: the 10th chunk fills it, no wait yet
  // After a quiet second the bucket is full again, not larger.
  std::uint64_t later = 0;
  while (l.charge(10'000, t0 + Seconds(3)) == Duration::zero()) later += 10'000;
  EXPECT_EQ(later, 100'000U);
}

TEST(RateLimiter, PolicerDropsWhatIsOverTheBucket) {
  RateLimiter l;
  l.set(125'000, 32 * 1024);  // 1 Mbit/s
  std::uint64_t passed = 0;
  // 10 Mbit/s offered for 10 s in 1250-byte packets.
  for (int i = 0; i < 100'000; ++i) {
    const Instant now = t0 + std::chrono::microseconds(i * 100);
    if (l.police(1250, now)) passed += 1250;
  }
  EXPECT_GE(passed, 1'250'000U);
  EXPECT_LE(passed, 1'250'000U + 32 * 1024);
}

TEST(RateLimiter, LiveChangeAppliesToTheNextCharge) {
  RateLimiter l;
  l.set(125'000, 65536);
  EXPECT_GT(l.charge(1'000'000, t0), Seconds(7));
  l.set(0, 0);
  EXPECT_EQ(l.charge(1'000'000, t0), Duration::zero());
}

TEST(RateLimiter, ThreadsSharingOneLimiterStayWithinTheRate) {
  RateLimiter l;
  l.set(1'000'000, 65536);
  std::atomic<std::uint64_t> sent{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      Instant now = t0;
      while (now < t0 + Seconds(5)) {
        now += l.charge(1400, now);
        sent += 1400;
        now += std::chrono::microseconds(50);
      }
    });
  }
  for (auto& t : ts) t.join();
  // Simulated clocks per thread drift apart, so allow a generous margin: without the
  // shared state each thread alone would get 5 MB.
  EXPECT_LE(sent.load(), 5'000'000U * 13 / 10);
  EXPECT_GE(sent.load(), 4'000'000U);
}

TEST(TrafficAccount, QuotaTripsAtTheDownloadTotal) {
  TrafficAccount a(900, 0);  // totals carried over from the store
  a.set_quota(1000);
  EXPECT_FALSE(a.quota_exhausted());
  (void)a.on_send(99, t0);
  EXPECT_FALSE(a.quota_exhausted());
  (void)a.on_receive(500, t0);  // upload does not count
  EXPECT_FALSE(a.quota_exhausted());
  (void)a.on_send(1, t0);
  EXPECT_TRUE(a.quota_exhausted());
  a.reset_totals();
  EXPECT_FALSE(a.quota_exhausted());
  EXPECT_EQ(a.up_total(), 0U);
}

TEST(TrafficAccount, QuotaEventOncePerCrossing) {
  TrafficAccount a(0, 0);
  a.set_quota(1000);
  (void)a.on_send(1000, t0);
  ASSERT_TRUE(a.quota_exhausted());
  EXPECT_TRUE(a.claim_quota_event());   // the first session to see it announces it
  EXPECT_FALSE(a.claim_quota_event());  // every other one of the user's sessions does not
  a.set_quota(1000);                    // a reload with the same quota: still over it
  EXPECT_FALSE(a.claim_quota_event());
  a.set_quota(500);  // lowered: still the same crossing
  EXPECT_FALSE(a.claim_quota_event());
  a.set_quota(2000);  // raised above the total: re-armed
  (void)a.on_send(1000, t0);
  ASSERT_TRUE(a.quota_exhausted());
  EXPECT_TRUE(a.claim_quota_event());
  EXPECT_FALSE(a.claim_quota_event());
  a.reset_totals();  // `qeli usage --reset`: re-armed
  (void)a.on_send(2000, t0);
  EXPECT_TRUE(a.claim_quota_event());
}

TEST(TrafficAccount, AdmitReceiveCountsOnlyWhatPasses) {
  TrafficAccount a(0, 0);
  a.set_rate(125'000, 2000);
  EXPECT_TRUE(a.admit_receive(1500, t0));
  EXPECT_FALSE(a.admit_receive(1500, t0));
  EXPECT_EQ(a.up_total(), 1500U);
}

}  // namespace
}  // namespace qeli::engine
