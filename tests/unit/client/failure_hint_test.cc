// What the client says when a handshake fails: a close before the server's first flight
// means a locked-out address (the trial saw only "peer closed").
#include "client/failure_hint.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

TEST(FailureHint, ClosedBeforeAnsweringIsProbablyALockout) {
  const auto h =
      explain_handshake_failure(handshake::Failure::kPeerClosed, false, "vpn:443", "bob");
  EXPECT_TRUE(h.probably_locked_out);
  EXPECT_FALSE(h.rejected) << "not a credential refusal: does not count to the stop";
  EXPECT_NE(h.text.find("probably locked out"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("15 minutes"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("qeli unblock"), std::string::npos) << h.text;
}

TEST(FailureHint, RefusedAfterAuthNamesThePairLockoutToo) {
  for (auto [f, udp] : {std::pair{handshake::Failure::kRejected, false},
                        std::pair{handshake::Failure::kTimeout, true}}) {
    const auto h = explain_handshake_failure(f, udp, "vpn:443", "bob");
    EXPECT_TRUE(h.rejected);
    EXPECT_FALSE(h.probably_locked_out);
    EXPECT_NE(h.text.find("user 'bob' is locked out at this address"), std::string::npos) << h.text;
  }
  const auto timeout = explain_handshake_failure(handshake::Failure::kTimeout, false, "v", "b");
  EXPECT_FALSE(timeout.rejected);
  EXPECT_FALSE(timeout.probably_locked_out);
  EXPECT_NE(rejected_too_often(3, "vpn:443", "bob").find("locked out"), std::string::npos);
}

}  // namespace
}  // namespace qeli::client
