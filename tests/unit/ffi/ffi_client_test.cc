// ffi::FfiClient without a server: the transport-core state machine and event queue as
// qeli 0.7.16 drives them (its transport_core/mod.rs), so an app written for the original
// sees the same events, states and result codes.
#include "ffi/ffi_client.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace qeli::ffi {
namespace {

config::ClientConfig profile(const std::string& extra = {}) {
  auto c = load_profile("[qeli]\nserver = 127.0.0.1:9\nuser = a\npass = b\nmode = plain\n" + extra);
  EXPECT_TRUE(c.ok()) << c.error();
  return c.ok() ? *c : config::ClientConfig{};
}

std::vector<Event> drain(FfiClient& c) {
  std::vector<Event> out;
  while (c.poll([&](const Event& e) {
    out.push_back(e);
    return rc::kOk;
  }) == rc::kOk) {
  }
  return out;
}

TEST(FfiClient, NewQueuesCreatedAsSequenceOne) {
  FfiClient c(profile(), platform::kTunPacketBatch, 64);
  auto events = drain(c);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].kind, EventKind::kStateChanged);
  EXPECT_EQ(events[0].state, static_cast<std::uint32_t>(State::kCreated));
  EXPECT_EQ(events[0].sequence, 1U);
  ASSERT_EQ(c.start(), rc::kOk);
  events = drain(c);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].state, static_cast<std::uint32_t>(State::kConnecting));
  EXPECT_EQ(events[0].sequence, 2U);
}

TEST(FfiClient, AFullTunnelKillSwitchNeedsTheCapabilityASplitTunnelDoesNot) {
  // 0.7.16: the plan's kill_switch is the profile's in a full tunnel only, and only then
  // is QELI_PLATFORM_KILL_SWITCH required; without it: ERROR(-10) + FAILED, run fails.
  FfiClient full(profile("gateway = true\nkill_switch = true\n"), platform::kTunPacketBatch, 64);
  ASSERT_EQ(full.start(), rc::kOk);
  drain(full);
  EXPECT_EQ(full.run({}), rc::kPlatformRejected);
  auto events = drain(full);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, EventKind::kError);
  EXPECT_EQ(events[0].error_code, rc::kPlatformRejected);
  EXPECT_EQ(events[0].payload, "platform is missing required capabilities 0x4");
  EXPECT_EQ(events[1].state, static_cast<std::uint32_t>(State::kFailed));
  EXPECT_EQ(full.state(), State::kFailed);

  // A split tunnel's kill_switch asks for nothing: run connects (here to a closed port).
  FfiClient split(profile("kill_switch = true\n"), platform::kTunPacketBatch, 64);
  ASSERT_EQ(split.start(), rc::kOk);
  drain(split);
  EXPECT_EQ(split.run({}), rc::kPlatformRejected);
  events = drain(split);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].payload.find("capabilities"), std::string::npos) << events[0].payload;
}

TEST(FfiClient, OneConnectionPerRunThenErrorAndFailed) {
  // 0.7.16 runs one connection per qeli_client_run (the app reconnects): an attempt that
  // fails, or a session that ends, without a stop is ERROR(-10, why) then FAILED, and run
  // returns PLATFORM_REJECTED — whatever the profile's `reconnect` says.
  FfiClient c(profile("reconnect = true\nreconnect_retries = -1\n"), platform::kTunPacketBatch, 64);
  ASSERT_EQ(c.start(), rc::kOk);
  drain(c);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(c.run({}), rc::kPlatformRejected);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  const auto events = drain(c);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, EventKind::kError);
  EXPECT_EQ(events[0].error_code, rc::kPlatformRejected);
  EXPECT_FALSE(events[0].payload.empty());
  EXPECT_EQ(events[1].kind, EventKind::kStateChanged);
  EXPECT_EQ(events[1].state, static_cast<std::uint32_t>(State::kFailed));
  EXPECT_EQ(c.state(), State::kFailed);
  EXPECT_EQ(c.stats().reconnects, 0U);
}

}  // namespace
}  // namespace qeli::ffi
