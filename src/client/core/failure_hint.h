// What the client tells its user when a handshake fails (docs/OPERATIONS.md "When the
// client cannot log in"). A 0.7.16 server never says why it refuses: it closes the
// connection (TCP) or stays silent (UDP). The client can still tell two cases apart by
// WHEN that happens, and the likely causes differ:
//
//   * closed before the server's first flight (TCP): the server refused the source address
//     before any key agreement — nearly always a lockout of the whole address after
//     repeated failed logins from it (auth.brute_force.address_max_attempts), rarely a
//     server at its connection limit;
//   * closed after AUTH (TCP) / AUTH unanswered (UDP): the login was refused — wrong user
//     or password, a disabled or expired account, or this user locked out at this address
//     after max_attempts failures.
//
// Pure: the daemon logs the text and counts `rejected` towards its stop after repeated
// refusals.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "handshake/types.h"

namespace qeli::client {

/// The server's default lockout (auth.brute_force.lockout_secs): what the hint tells the
/// user to wait when the server does not say.
inline constexpr int kDefaultLockoutMinutes = 15;

/// On UDP, an AUTH left unanswered this long (or half the attempt's timeout, if that is
/// shorter) reads as a refusal (0.7.16 refuses silently; a verification takes well under
/// a second, ~2 s in a login storm). The attempt always waits this long after its first
/// AUTH (UdpClientConfig::auth_patience), even past its timeout, so every timeout after
/// AUTH is such a silence and counts toward the stop.
inline constexpr std::chrono::seconds kUdpAuthSilenceMeansRefusal{5};

struct FailureHint {
  bool rejected = false;             ///< the login itself was refused (counts to the stop)
  bool probably_locked_out = false;  ///< the address was refused before the handshake
  std::string text;                  ///< one line for the log
};

/// `udp_auth_sent`: on UDP, the AUTH went out (the server's identity was verified) and
/// stayed unanswered for kUdpAuthSilenceMeansRefusal or more.
FailureHint explain_handshake_failure(handshake::Failure failure, bool udp_auth_sent,
                                      std::string_view endpoint, std::string_view user);

/// Advice for a failure that looks like a link of another mode than the server's profile.
std::string mode_advice();
/// True for handshake failures that a mode mismatch produces (an answer that is not qeli).
bool is_mode_symptom(handshake::Failure f);

/// The message with which the client stops after `rejections` refusals in a row.
std::string rejected_too_often(int rejections, std::string_view endpoint, std::string_view user);

}  // namespace qeli::client
