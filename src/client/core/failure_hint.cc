#include "client/core/failure_hint.h"

namespace qeli::client {
namespace {

std::string lockout_advice() {
  return "wait for the server's lockout to end (auth.brute_force.lockout_secs, " +
         std::to_string(kDefaultLockoutMinutes) +
         " minutes after the last failure by default) or ask its operator to run `qeli "
         "list-blocked` and `qeli unblock ADDRESS`";
}

}  // namespace

std::string mode_advice() {
  return "If it closed only after a long wait, or answered with something that is not "
         "qeli, the link probably does not match the server's profile: compare mode=, obfs=, "
         "front=, awg=/jc= and rsid= with a fresh link (`qeli share-link USER` on the server; a "
         "server drops or bridges a connection whose first bytes are not its mode's). A "
         "REALITY server also bridges a token sealed to another key= (the server's identity "
         "was rotated) or stamped by a clock more than 2 minutes off: check this machine's "
         "time";
}

bool is_mode_symptom(handshake::Failure f) {
  // What a client sees when its first flight is another mode's: the server's answer does
  // not parse as ours (a REALITY server bridges a hello without a valid token to its cover
  // site, whose real ServerHello is not qeli's), or its records do not open.
  return f == handshake::Failure::kBadServerHello || f == handshake::Failure::kRecordFraming ||
         f == handshake::Failure::kBadFlightRecord || f == handshake::Failure::kRecordAuthFailed ||
         f == handshake::Failure::kUnexpectedMessage;
}

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
             lockout_advice() + ". (A server at its connection limit does the same.) " +
             mode_advice();
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
  if (is_mode_symptom(failure)) h.text += ". " + mode_advice();
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
