// ffi::FfiClient without a server: the transport-core state machine and event queue as
// qeli 0.7.16 drives them (its transport_core/mod.rs and runtime.rs), so an app written
// for the original sees the same events, states and result codes.
#include "ffi/ffi_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

namespace qeli::ffi {
namespace {

constexpr std::uint8_t kDeviceId[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

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

std::vector<std::uint32_t> states(const std::vector<Event>& events) {
  std::vector<std::uint32_t> out;
  for (const auto& e : events) {
    if (e.kind == EventKind::kStateChanged) out.push_back(e.state);
  }
  return out;
}

constexpr auto u(State s) { return static_cast<std::uint32_t>(s); }

TEST(FfiClient, UptimeCountsFromCreation) {
  // 0.7.16: uptime_ms since the handle was made, whatever the state.
  FfiClient c(profile(), platform::kTunPacketBatch, 64);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Stats s = c.stats();
  EXPECT_EQ(s.state, u(State::kCreated));
  EXPECT_GE(s.uptime_ms, 20U);
}

TEST(FfiClient, NewQueuesCreatedAsSequenceOne) {
  FfiClient c(profile(), platform::kTunPacketBatch, 64);
  auto events = drain(c);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].kind, EventKind::kStateChanged);
  EXPECT_EQ(events[0].state, u(State::kCreated));
  EXPECT_EQ(events[0].sequence, 1U);
  ASSERT_EQ(c.start(), rc::kOk);
  events = drain(c);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].state, u(State::kConnecting));
  EXPECT_EQ(events[0].sequence, 2U);
}

TEST(FfiClient, AFullTunnelKillSwitchNeedsTheCapabilityASplitTunnelDoesNot) {
  // 0.7.16: the plan's kill_switch is the profile's in a full tunnel only, and only then
  // is QELI_PLATFORM_KILL_SWITCH required; without it: ERROR(-10) + FAILED, run fails.
  FfiClient full(profile("gateway = true\nkill_switch = true\n"), platform::kTunPacketBatch, 64);
  ASSERT_EQ(full.set_device_id(kDeviceId, 16), rc::kOk);
  ASSERT_EQ(full.start(), rc::kOk);
  drain(full);
  EXPECT_EQ(full.run({}), rc::kPlatformRejected);
  auto events = drain(full);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, EventKind::kError);
  EXPECT_EQ(events[0].error_code, rc::kPlatformRejected);
  EXPECT_EQ(events[0].payload, "platform is missing required capabilities 0x4");
  EXPECT_EQ(events[1].state, u(State::kFailed));
  EXPECT_EQ(full.state(), State::kFailed);

  // A split tunnel's kill_switch asks for nothing: run connects (here to a closed port).
  FfiClient split(profile("kill_switch = true\n"), platform::kTunPacketBatch, 64);
  ASSERT_EQ(split.set_device_id(kDeviceId, 16), rc::kOk);
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
  ASSERT_EQ(c.set_device_id(kDeviceId, 16), rc::kOk);
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
  EXPECT_EQ(events[1].state, u(State::kFailed));
  EXPECT_EQ(c.state(), State::kFailed);
  EXPECT_EQ(c.stats().reconnects, 0U);
}

TEST(FfiClient, StateRulesAs0716) {
  FfiClient c(profile(), platform::kTunPacketBatch, 64);
  // run before start, and without a device id: PLATFORM_REJECTED, no event, no change.
  EXPECT_EQ(c.run({}), rc::kPlatformRejected);
  ASSERT_EQ(c.start(), rc::kOk);
  EXPECT_EQ(c.start(), rc::kInvalidState);
  drain(c);
  EXPECT_EQ(c.run({}), rc::kPlatformRejected);  // no device id
  EXPECT_TRUE(drain(c).empty());
  EXPECT_EQ(c.state(), State::kConnecting);
  // The device id: CREATED or STOPPED only, the state before the id itself.
  EXPECT_EQ(c.set_device_id(kDeviceId, 16), rc::kInvalidState);
  EXPECT_EQ(c.set_device_id(kDeviceId, 15), rc::kInvalidState);
  // Values 0.7.16 refuses (9 fallback resolvers): PLATFORM_REJECTED without events.
  EXPECT_EQ(c.run({{}, std::vector<std::string>(9, "1.1.1.1")}), rc::kPlatformRejected);
  EXPECT_TRUE(drain(c).empty());
  // stop: STOPPING and STOPPED at once; STOPPED again is OK and queues nothing.
  ASSERT_EQ(c.stop(), rc::kOk);
  EXPECT_EQ(c.state(), State::kStopped);
  EXPECT_EQ(states(drain(c)), (std::vector{u(State::kStopping), u(State::kStopped)}));
  EXPECT_EQ(c.stop(), rc::kOk);
  EXPECT_TRUE(drain(c).empty());
  std::uint8_t zero[16] = {};
  EXPECT_EQ(c.set_device_id(zero, 16), rc::kInvalidArgument);
  EXPECT_EQ(c.set_device_id(kDeviceId, 15), rc::kInvalidArgument);
  EXPECT_EQ(c.set_device_id(kDeviceId, 16), rc::kOk);
  // FAILED is left by stop, not by start.
  ASSERT_EQ(c.start(), rc::kOk);
  drain(c);
  EXPECT_EQ(c.run({}), rc::kPlatformRejected);  // nobody at 127.0.0.1:9
  EXPECT_EQ(c.state(), State::kFailed);
  EXPECT_EQ(c.start(), rc::kInvalidState);
  ASSERT_EQ(c.stop(), rc::kOk);
  ASSERT_EQ(c.start(), rc::kOk);
  // Nothing to answer: every answer is out of turn.
  EXPECT_EQ(c.plan_result(1, true, ""), rc::kInvalidState);
  EXPECT_EQ(c.protect_result(1, true, ""), rc::kStaleRequest);
  EXPECT_EQ(c.identity_result(1, false, ""), rc::kStaleRequest);
}

TEST(FfiClient, StopNeedsTwoFreeSlots) {
  // 0.7.16: STOPPING and STOPPED go in together or not at all (EVENT_QUEUE_FULL; the
  // state stays, and a stop after a poll goes through).
  FfiClient c(profile(), platform::kTunPacketBatch, 2);
  ASSERT_EQ(c.start(), rc::kOk);  // [CREATED, CONNECTING]: full
  EXPECT_EQ(c.stop(), rc::kEventQueueFull);
  EXPECT_EQ(c.state(), State::kConnecting);
  EXPECT_EQ(c.start(), rc::kInvalidState);
  ASSERT_EQ(c.poll([](const Event&) { return rc::kOk; }), rc::kOk);
  EXPECT_EQ(c.stop(), rc::kEventQueueFull);  // one slot is not enough
  ASSERT_EQ(c.poll([](const Event&) { return rc::kOk; }), rc::kOk);
  EXPECT_EQ(c.stop(), rc::kOk);
  EXPECT_EQ(states(drain(c)), (std::vector{u(State::kStopping), u(State::kStopped)}));
  EXPECT_EQ(c.start(), rc::kOk);
}

TEST(FfiClient, AStartMayFollowAStopWhileTheOldRunWindsDown) {
  // 0.7.16: stop leaves STOPPED at once and the old run cannot touch the new start's
  // state (generation-checked); the old run returns OK.
  FfiClient c(profile("timeout = 30\n"), platform::kTunPacketBatch | platform::kSocketProtect, 64);
  ASSERT_EQ(c.set_device_id(kDeviceId, 16), rc::kOk);
  ASSERT_EQ(c.start(), rc::kOk);
  std::int32_t first = 1;
  std::thread t([&] { first = c.run({}); });
  // The run asks to protect its socket; nobody answers.
  std::vector<Event> seen;
  for (int i = 0; i < 200 && seen.empty(); ++i) {
    for (auto& e : drain(c)) {
      if (e.kind == EventKind::kSocketProtect) seen.push_back(e);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(seen.size(), 1U);
  ASSERT_EQ(c.stop(), rc::kOk);
  EXPECT_EQ(c.state(), State::kStopped);
  EXPECT_EQ(c.protect_result(seen[0].sequence, true, ""), rc::kStaleRequest);  // cancelled
  ASSERT_EQ(c.start(), rc::kOk);  // at once, the old run may still be unwinding
  t.join();
  EXPECT_EQ(first, rc::kOk);
  EXPECT_EQ(c.state(), State::kConnecting);  // untouched by the old run's end
  EXPECT_EQ(states(drain(c)),
            (std::vector{u(State::kStopping), u(State::kStopped), u(State::kConnecting)}));
}

TEST(FfiClient, ARefusedProtectFailsInTheAnsweringCall) {
  // 0.7.16: ERROR(-10, the app's reason verbatim, cut to 512 characters) and FAILED are
  // queued by the *_result call itself; a refusal needs two free slots.
  FfiClient c(profile(), platform::kTunPacketBatch | platform::kSocketProtect, 64);
  ASSERT_EQ(c.set_device_id(kDeviceId, 16), rc::kOk);
  ASSERT_EQ(c.start(), rc::kOk);
  drain(c);
  std::int32_t result = 1;
  std::thread t([&] { result = c.run({}); });
  std::uint64_t sequence = 0;
  for (int i = 0; i < 200 && sequence == 0; ++i) {
    for (auto& e : drain(c)) {
      if (e.kind == EventKind::kSocketProtect) sequence = e.sequence;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(sequence, 0U);
  std::string reason(600, 'r');
  EXPECT_EQ(c.protect_result(sequence, false, reason), rc::kOk);
  EXPECT_EQ(c.state(), State::kFailed);  // at once, not when the run notices
  const auto events = drain(c);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, EventKind::kError);
  EXPECT_EQ(events[0].error_code, rc::kPlatformRejected);
  EXPECT_EQ(events[0].payload, std::string(512, 'r'));
  EXPECT_EQ(events[1].state, u(State::kFailed));
  EXPECT_EQ(c.protect_result(sequence, false, ""), rc::kStaleRequest);
  t.join();
  EXPECT_EQ(result, rc::kPlatformRejected);
  EXPECT_TRUE(drain(c).empty());  // one ERROR, one FAILED
}

// ABI 1.5's seam (QELI_CORE_HANDSHAKE_NETWORK_INPUT): an app's own handshake hands in the
// AUTH OK it got; the core publishes the plan a run would, answered the same way.
std::string handshake_input(std::uint32_t mtu = 1400, const std::string& extra = {}) {
  const std::string ok =
      R"(OK:{"client_ip":"10.8.0.2","server_ip":"10.8.0.1","prefix":24,"mtu":1400,)"
      R"("dns":"10.8.0.1","dns_port":53,"routes":[{"cidr":"10.20.0.0/16","metric":100}],)"
      R"("obfuscation":{},"max_streams":2,"multipath_adaptive":true})";
  return nlohmann::json{{"auth_ok", ok}, {"effective_mtu", mtu}}.dump().insert(1, extra);
}

TEST(FfiClient, HandshakeNetworkPublishesThePlanOfTheAppsHandshake) {
  const auto caps = platform::kRoutes | platform::kDns | platform::kTunPacketBatch;
  FfiClient c(profile(), caps, 64);
  std::uint64_t gen = 9;
  EXPECT_EQ(c.publish_handshake_network(handshake_input(), gen), rc::kInvalidState);  // CREATED
  EXPECT_EQ(gen, 0U);
  ASSERT_EQ(c.start(), rc::kOk);
  drain(c);
  // Malformed input, MTU or push: INVALID_ARGUMENT, nothing queued.
  for (const std::string& bad :
       {std::string("{}"), std::string("[]"), handshake_input(575), handshake_input(16639),
        std::string(R"({"auth_ok":"OK:{}","effective_mtu":1400})"),
        std::string(R"({"auth_ok":"nope","effective_mtu":1400})"),
        handshake_input(1400, R"("fallback_dns_servers":["x"],)")}) {
    EXPECT_EQ(c.publish_handshake_network(bad, gen), rc::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(drain(c).empty());
  ASSERT_EQ(c.publish_handshake_network(handshake_input(1380, R"("unknown":1,)"), gen), rc::kOk);
  EXPECT_EQ(gen, 1U);
  EXPECT_EQ(c.state(), State::kAwaitingNetwork);
  auto events = drain(c);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].state, u(State::kAwaitingNetwork));
  ASSERT_EQ(events[1].kind, EventKind::kNetworkPlan);
  EXPECT_EQ(events[1].plan_generation, 1U);
  const auto plan = nlohmann::json::parse(events[1].payload);
  EXPECT_EQ(plan["tunnel_address"], "10.8.0.2");
  EXPECT_EQ(plan["mtu"], 1380);
  EXPECT_EQ(plan["max_streams"], 2);
  EXPECT_EQ(plan["pushed_routes"], nlohmann::json::array({"10.20.0.0/16"}));
  EXPECT_FALSE(plan.contains("carrier_address"));  // 0.7.16 leaves it out here
  // A second one before the answer: INVALID_STATE.
  EXPECT_EQ(c.publish_handshake_network(handshake_input(), gen), rc::kInvalidState);
  // Answered as any plan: accepted → RUNNING, packets may be pushed.
  EXPECT_EQ(c.plan_result(2, true, ""), rc::kStalePlan);
  ASSERT_EQ(c.plan_result(1, true, ""), rc::kOk);
  EXPECT_EQ(c.state(), State::kRunning);
  std::shared_ptr<PacketPipe> pipe;
  EXPECT_EQ(c.pipe_for(1, pipe), rc::kOk);
  // A new plan while RUNNING (generation 2); refused → ERROR + FAILED in the call.
  ASSERT_EQ(c.publish_handshake_network(handshake_input(), gen), rc::kOk);
  EXPECT_EQ(gen, 2U);
  drain(c);
  ASSERT_EQ(c.plan_result(2, false, ""), rc::kOk);
  EXPECT_EQ(c.state(), State::kFailed);
  events = drain(c);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, EventKind::kError);
  EXPECT_EQ(events[0].payload, "platform rejected the network plan");  // 0.7.16's fixed text
  EXPECT_EQ(events[1].state, u(State::kFailed));
}

TEST(FfiClient, HandshakeNetworkNeedsTheCapabilitiesAndTheRoom) {
  // The plan has a route and a resolver: without ROUTES/DNS, UNSUPPORTED (0.7.16's
  // MissingCapability); with a full queue, EVENT_QUEUE_FULL.
  FfiClient bare(profile(), platform::kTunPacketBatch, 64);
  ASSERT_EQ(bare.start(), rc::kOk);
  std::uint64_t gen = 0;
  EXPECT_EQ(bare.publish_handshake_network(handshake_input(), gen), rc::kUnsupported);
  FfiClient full(profile(), platform::kRoutes | platform::kDns | platform::kTunPacketBatch, 2);
  ASSERT_EQ(full.start(), rc::kOk);  // [CREATED, CONNECTING]
  EXPECT_EQ(full.publish_handshake_network(handshake_input(), gen), rc::kEventQueueFull);
  drain(full);
  EXPECT_EQ(full.publish_handshake_network(handshake_input(), gen), rc::kOk);
}

TEST(FfiClient, TheFirstProtectWaitsTheProfilesTimeout) {
  // 0.7.16: an initial carrier the app does not protect within `timeout` fails the run.
  FfiClient c(profile("timeout = 1\n"), platform::kTunPacketBatch | platform::kSocketProtect, 64);
  ASSERT_EQ(c.set_device_id(kDeviceId, 16), rc::kOk);
  ASSERT_EQ(c.start(), rc::kOk);
  drain(c);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(c.run({}), rc::kPlatformRejected);  // nobody answers the protect
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900));
  const auto events = drain(c);
  ASSERT_EQ(events.size(), 3U);
  ASSERT_EQ(events[0].kind, EventKind::kSocketProtect);
  EXPECT_EQ(events[1].kind, EventKind::kError);
  EXPECT_EQ(events[1].payload, "platform did not protect the initial carrier within 1s");
  EXPECT_EQ(events[2].state, u(State::kFailed));
  EXPECT_EQ(c.protect_result(events[0].sequence, true, ""), rc::kStaleRequest);
}

}  // namespace
}  // namespace qeli::ffi
