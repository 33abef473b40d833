// HandshakeMachine: what our two TLS 1.3 handshakes (ClientHandshake and Terminator)
// share as sans-I/O machines: running, done or failed; the reason and, for a peer's
// alert, its description; the deadline; the bytes not yet taken; and failing ONCE with
// the alert we owe. Each machine keeps its own steps and decides which key its alerts
// go under.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/bytes.h"
#include "base/clock.h"
#include "tls/alert.h"
#include "tls/cipher_suite.h"
#include "tls/secret.h"

namespace qeli::tls {

class HandshakeMachine {
 public:
  enum class State : std::uint8_t { kRunning, kDone, kFailed };

  /// Bytes to send, in order (empty if none). A failure queues the alert we owe.
  Bytes take_output();
  /// When on_timer() fails the machine with kTimeout; none once it is done or failed.
  std::optional<Instant> deadline() const { return deadline_; }
  State state() const { return state_; }
  TlsError failure() const { return failure_; }
  /// A human sentence for the log: the reason and, for a peer alert, its name; empty
  /// unless failed.
  std::string failure_detail() const;

 protected:
  HandshakeMachine() = default;
  ~HandshakeMachine() = default;
  HandshakeMachine(HandshakeMachine&&) = default;
  HandshakeMachine& operator=(HandshakeMachine&&) = default;

  /// Fails a running machine with `e` (a machine already done or failed stays as it is):
  /// no deadline any more, and the alert we owe for `e` queued, protected under
  /// `alert_key` (our handshake traffic secret, with `suite`) once the peer reads
  /// protected records, in the clear while it is null.
  void fail_with_alert(TlsError e, CipherSuite suite, const Secret* alert_key);
  /// True while running with the deadline passed at `now`.
  bool expired(Instant now) const {
    return state_ == State::kRunning && deadline_ && now >= *deadline_;
  }

  State state_ = State::kRunning;
  TlsError failure_ = TlsError::kInternal;
  std::optional<AlertDescription> peer_alert_;  ///< the peer's fatal alert, if it sent one
  std::optional<Instant> deadline_;
  Bytes out_;
};

}  // namespace qeli::tls
