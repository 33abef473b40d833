// The one codec of AUTH OK's `obfuscation` object: the server's bytes for a profile's
// defaults (unchanged from before the codec, byte for byte), the round trip, and what a
// client does with hostile or partial values.
#include "tunnel/pushed_params.h"

#include <gtest/gtest.h>

namespace qeli::tunnel {
namespace {

TEST(PushedParams, DefaultsAsTheServerSendsThem) {
  PushedParams p;
  p.padding.enabled = true;
  EXPECT_EQ(
      to_json(p),
      R"({"heartbeat":{"data_size_bytes":16,"enabled":true,"interval_ms":15000,"jitter_ms":20},)"
      R"("padding":{"enabled":true,"max_bytes":512,"min_bytes":32,"probability":1.0,"randomize":true},)"
      R"("traffic_normalization":{"enabled":false,"round_sizes":[64,128,256,512,1024,1500]},)"
      R"("traffic_shaping":{"budget_bytes_per_sec":16384,"enabled":false,"idle_gap_max_ms":6000,)"
      R"("idle_gap_mean_ms":700,"idle_gap_min_ms":40,"max_size":1024,"min_size":64,)"
      R"("stealth":false,"stealth_rate_mbps":2}})");
}

TEST(PushedParams, RoundTrip) {
  PushedParams p;
  p.padding = {true, 16, 256, false, 0.5};
  p.heartbeat = {true, std::chrono::milliseconds(5000), 32, std::chrono::milliseconds(100)};
  p.normalization.enabled = true;
  p.normalization.round_sizes = {100, 200};
  p.shaping.enabled = true;
  p.shaping.stealth_rate_mbps = 7;
  EXPECT_EQ(parse_pushed_params(to_json(p), PushedParams{}), p);
}

TEST(PushedParams, AbsentOrMistypedKeysKeepTheFallback) {
  PushedParams fb;
  fb.padding.enabled = true;
  fb.padding.max_bytes = 300;
  const auto p = parse_pushed_params(
      R"({"heartbeat":{"enabled":true,"interval_ms":15000},"padding":{"max_bytes":"big","min_bytes":-3}})",
      fb);
  EXPECT_TRUE(p.padding.enabled);
  EXPECT_EQ(p.padding.max_bytes, 300U);
  EXPECT_EQ(p.padding.min_bytes, 32U);
  EXPECT_EQ(parse_pushed_params("{not json", fb), parse_pushed_params("{}", fb));
}

TEST(PushedParams, HostileValuesAreClamped) {
  const auto p = parse_pushed_params(
      R"({"padding":{"enabled":true,"min_bytes":9000,"max_bytes":1000000,"probability":7},)"
      R"("heartbeat":{"interval_ms":1,"jitter_ms":5000,"data_size_bytes":99999}})",
      PushedParams{});
  EXPECT_EQ(p.padding.max_bytes, 4096U);
  EXPECT_EQ(p.padding.min_bytes, 4096U);
  EXPECT_EQ(p.padding.probability, 1.0);
  EXPECT_EQ(p.heartbeat.interval, std::chrono::seconds(1));
  EXPECT_EQ(p.heartbeat.jitter.count(), 0);
  EXPECT_EQ(p.heartbeat.data_size_bytes, 1024U);
}

TEST(PushedParams, LivenessFollowsTheHeartbeat) {
  HeartbeatPolicy h;
  EXPECT_EQ(h.liveness(), std::chrono::milliseconds(45060));
  h.interval = std::chrono::seconds(1);
  h.jitter = std::chrono::milliseconds(0);
  EXPECT_EQ(h.liveness(), std::chrono::seconds(30));
  h.enabled = false;
  EXPECT_EQ(h.liveness().count(), 0);
}

}  // namespace
}  // namespace qeli::tunnel
