#include "engine/flight_driver.h"

#include <poll.h>

#include <cerrno>

#include "transport/stream_io.h"

namespace qeli::engine {
namespace {

using Clock = std::chrono::steady_clock;
enum class Phase { kRunning, kDone, kFailed };

Phase phase_of(handshake::State s) {
  return s == handshake::State::kDone     ? Phase::kDone
         : s == handshake::State::kFailed ? Phase::kFailed
                                          : Phase::kRunning;
}
Phase phase_of(transport::SetupState s) {
  return s == transport::SetupState::kDone     ? Phase::kDone
         : s == transport::SetupState::kFailed ? Phase::kFailed
                                               : Phase::kRunning;
}

// Sleeps `d` unless stopped first. Returns false when stopped.
bool pause(Duration d, const StopSignal& stop) {
  if (d <= Duration::zero()) return true;
  pollfd p{stop.fd(), POLLIN, 0};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  ::poll(&p, 1, static_cast<int>(ms));
  return p.revents == 0;
}

// Sends every pending chunk. Returns false if the stream failed or we were stopped.
template <class Output>
bool flush(std::vector<Output> out, transport::Stream& s, const StopSignal& stop) {
  for (const auto& o : out) {
    if (!pause(o.delay, stop)) return false;
    if (transport::write_copy(s, o.bytes, std::chrono::seconds(15), stop.fd()) !=
        transport::IoResult::kOk) {
      return false;
    }
  }
  return true;
}

// The shared loop. `after_bytes` lets the server answer events between reads. Returns
// false when stopped.
template <class Machine, class AfterBytes>
bool drive(Machine& m, transport::Stream& s, const StopSignal& stop, ByteSpan prefix,
           AfterBytes after_bytes) {
  std::uint8_t buf[16384];
  if (!prefix.empty()) m.on_bytes(prefix, Clock::now());
  // Read before the first poll: a layer built by a set-up may already hold bytes of this
  // flight that poll() cannot see (a TLS client sends its first record right behind its
  // Finished, so the terminator's set-up read it with the Finished).
  bool may_have_more = true;  // the last read filled bytes: read again before polling
  for (;;) {
    after_bytes();
    if (!flush(m.take_output(), s, stop)) {
      if (stop.stopped()) return false;
      m.on_peer_closed();
    }
    if (phase_of(m.state()) != Phase::kRunning) return true;

    if (!may_have_more) {
      int timeout_ms = -1;
      if (auto dl = m.deadline()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*dl - Clock::now());
        timeout_ms = left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1;
      }
      pollfd p[2] = {{s.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
      const int rc = ::poll(p, 2, timeout_ms);
      if (rc < 0 && errno != EINTR) {
        m.on_peer_closed();
        continue;
      }
      if (p[1].revents != 0) return false;
      if (rc == 0) {
        m.on_timer(Clock::now());
        continue;
      }
      if (p[0].revents == 0) continue;
    }
    // One read, then the machine decides: bytes past the end of the flight stay in it.
    const transport::ReadResult r = s.read(buf);
    may_have_more = r.status == transport::StreamStatus::kOk;
    if (r.status == transport::StreamStatus::kOk) {
      m.on_bytes({buf, r.bytes}, Clock::now());
    } else if (r.status != transport::StreamStatus::kWouldBlock) {
      m.on_peer_closed();
    }
  }
}

}  // namespace

handshake::Failure drive_client_handshake(handshake::ClientHandshake& hs, transport::Stream& s,
                                          const StopSignal& stop, ByteSpan prefix) {
  if (!drive(hs, s, stop, prefix, [] {})) return handshake::Failure::kTimeout;
  return hs.state() == handshake::State::kDone ? handshake::Failure::kNone : hs.failure();
}

handshake::Failure drive_server_handshake(
    handshake::ServerHandshake& hs, transport::Stream& s, const StopSignal& stop,
    const std::function<void(handshake::ServerEvent&, handshake::ServerHandshake&)>& on_event,
    ByteSpan prefix) {
  const bool finished = drive(hs, s, stop, prefix, [&] {
    while (auto ev = hs.take_event()) on_event(*ev, hs);
  });
  if (!finished) return handshake::Failure::kTimeout;
  return hs.state() == handshake::State::kDone ? handshake::Failure::kNone : hs.failure();
}

transport::SetupState drive_stream_setup(transport::StreamSetup& setup, transport::Stream& lower,
                                         const StopSignal& stop, ByteSpan prefix) {
  if (!drive(setup, lower, stop, prefix, [] {})) return transport::SetupState::kFailed;
  return setup.state();
}

}  // namespace qeli::engine
