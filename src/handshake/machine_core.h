// MachineCore: the bookkeeping ClientHandshake and ServerHandshake share — where the
// machine stands, why it failed, its deadline, the output not yet taken and the session
// it hands over once — so that both answer state(), deadline(), on_timer() and
// take_session() by the same rules. Each machine's Impl derives from it and adds its
// own steps (and its own phases between kIdle and kDone).
#pragma once

#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "handshake/types.h"

namespace qeli::handshake {

/// `Phase` is the machine's step enum; it must have kIdle (before start()), kDone and
/// kFailed (the two ends).
/// `Session` is what a finished machine hands over (ClientSession, ServerSession).
template <class Phase, class Session>
struct MachineCore {
  Phase phase = Phase::kIdle;
  Failure why = Failure::kNone;
  std::optional<Instant> deadline;
  std::vector<Outgoing> out;       ///< not yet taken by take_output()
  std::optional<Session> session;  ///< set with phase kDone

  /// kDone or kFailed: no input changes anything any more.
  bool ended() const { return phase == Phase::kDone || phase == Phase::kFailed; }

  State state() const {
    if (phase == Phase::kDone) return State::kDone;
    if (phase == Phase::kFailed) return State::kFailed;
    return State::kRunning;
  }

  /// The deadline while the machine runs; none once it ended (there is nothing to wait for).
  std::optional<Instant> live_deadline() const {
    if (ended()) return std::nullopt;
    return deadline;
  }

  /// True when the machine still runs and its deadline has passed at `now`.
  bool expired(Instant now) const { return !ended() && deadline && now >= *deadline; }

  /// Ends the machine with `f`. The output not yet taken is dropped: nothing more goes on
  /// the wire after a failure.
  void fail_with(Failure f) {
    phase = Phase::kFailed;
    why = f;
    out.clear();
  }

  std::vector<Outgoing> take_output() { return std::exchange(out, {}); }

  /// The session, once, in kDone. Anything else is the caller's bug and aborts.
  Session take_session() {
    if (phase != Phase::kDone || !session) std::abort();
    Session s = std::move(*session);
    session.reset();
    return s;
  }
};

}  // namespace qeli::handshake
