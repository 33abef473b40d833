#include "client/failure_hint.h"

namespace qeli::client {
namespace {

std::string lockout_advice() {
  return "wait for the server's lockout to end (auth.brute_force.lockout_secs, " +
         std::to_string(kDefaultLockoutMinutes) +
         " minutes after the last failure by default) or ask its operator to run `qeli "
         "list-blocked` and `qeli unblock ADDRESS`";
}

}  // namespace

FailureHint explain_handshake_failure(handshake::Failure failure, bool udp_auth_sent,
                                      std::string_view endpoint, std::string_view user) {
  FailureHint h;
  const std::string who = "user '" + std::string(user) + "'";
  const std::string at = "handshake with " + std::string(endpoint) + " failed: ";
  if (failure == handshake::Failure::kPeerClosed) {
    h.probably_locked_out = true;
    h.text = at +
             "the server closed the connection before answering. This address is probably "
             "locked out after repeated failed logins from it (by any user); " +
             lockout_advice() + ". (A server at its connection limit does the same.)";
    return h;
  }
  if ((failure == handshake::Failure::kTimeout && udp_auth_sent) ||
      failure == handshake::Failure::kRejected) {
    h.rejected = true;
    h.text = at +
             (failure == handshake::Failure::kRejected
                  ? "the server closed the connection after AUTH"
                  : "no answer to AUTH (a UDP server refuses by staying silent)") +
             ": a wrong user name or password, a disabled or expired account, or " + who +
             " is locked out at this address after repeated failed logins (then " +
             lockout_advice() + "); the server's log says which";
    return h;
  }
  h.text = at + handshake::to_string(failure);
  return h;
}

std::string rejected_too_often(int rejections, std::string_view endpoint, std::string_view user) {
  return "authentication rejected " + std::to_string(rejections) +
         " times: check the user name and password (user '" + std::string(user) + "' at " +
         std::string(endpoint) +
         "; the server's log says why). Not retrying, so this client does not lock itself "
         "out; if the password is right, the user may already be locked out at this address: " +
         lockout_advice();
}

}  // namespace qeli::client
