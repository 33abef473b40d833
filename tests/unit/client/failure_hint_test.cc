// What the client says when a handshake fails: a close before the server's first flight
// means a locked-out address (the trial saw only "peer closed").
#include "client/core/failure_hint.h"

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
  // A trial's mode mismatch (a fake-tls link to an obfs server) ends the same way after the
  // server's read timeout: the text names that cause too.
  EXPECT_NE(h.text.find("does not match the server's profile"), std::string::npos) << h.text;
}

// An answer that is not qeli (a REALITY server bridged a hello without a valid rsid= to
// its cover site) points at the link's mode parameters; a credential or timing failure
// does not.
TEST(FailureHint, AnAnswerThatIsNotQeliPointsAtTheLinksMode) {
  for (auto f : {handshake::Failure::kBadServerHello, handshake::Failure::kRecordFraming,
                 handshake::Failure::kRecordAuthFailed}) {
    const auto h = explain_handshake_failure(f, false, "vpn:443", "bob");
    EXPECT_NE(h.text.find("rsid="), std::string::npos) << h.text;
    EXPECT_NE(h.text.find("clock"), std::string::npos) << h.text;  // a REALITY token's time
    EXPECT_FALSE(h.rejected);
  }
  for (auto f : {handshake::Failure::kTimeout, handshake::Failure::kServerProofInvalid}) {
    EXPECT_EQ(explain_handshake_failure(f, false, "v", "b").text.find("rsid="), std::string::npos);
  }
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
