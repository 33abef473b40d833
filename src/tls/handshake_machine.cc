#include "tls/handshake_machine.h"

#include <utility>

#include "tls/record_protection.h"

namespace qeli::tls {

Bytes HandshakeMachine::take_output() { return std::exchange(out_, Bytes{}); }

std::string HandshakeMachine::failure_detail() const {
  if (state_ != State::kFailed) return {};
  std::string s = to_string(failure_);
  if (failure_ == TlsError::kPeerAlert && peer_alert_)
    s += std::string(": ") + to_string(*peer_alert_);
  return s;
}

void HandshakeMachine::fail_with_alert(TlsError e, CipherSuite suite, const Secret* alert_key) {
  if (state_ != State::kRunning) return;
  state_ = State::kFailed;
  failure_ = e;
  deadline_.reset();
  append_fatal_alert(out_, e, suite, alert_key);
}

}  // namespace qeli::tls
