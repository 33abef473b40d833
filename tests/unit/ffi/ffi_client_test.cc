// ffi::FfiClient without a server: the transport-core state machine and event queue as
// qeli 0.7.16 drives them (its transport_core/mod.rs), so an app written for the original
// sees the same events, states and result codes.
#include "ffi/ffi_client.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace qeli::ffi
