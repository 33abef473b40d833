#include "engine/handshake_driver.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "transport/tcp.h"

namespace qeli::engine {
namespace {

using handshake::Failure;
using handshake::State;
using Clock = std::chrono::steady_clock;

// Sleeps `d` unless stopped first. Returns false when stopped.
bool pause(Duration d, const StopSignal& stop) {
  if (d <= Duration::zero()) return true;
  pollfd p{stop.fd(), POLLIN, 0};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  ::poll(&p, 1, static_cast<int>(ms));
  return p.revents == 0;
}

// Sends every pending chunk. Returns false if the socket failed or we were stopped.
bool flush(std::vector<handshake::Outgoing> out, int fd, const StopSignal& stop) {
  for (const auto& o : out) {
    if (!pause(o.delay, stop)) return false;
    if (transport::send_all(fd, o.bytes, std::chrono::seconds(15)) != transport::IoResult::kOk) {
      return false;
    }
  }
  return true;
}

// The shared loop. `after_bytes` lets the server answer events between reads.
template <class Machine, class AfterBytes>
Failure drive(Machine& hs, int fd, const StopSignal& stop, AfterBytes after_bytes) {
  std::uint8_t buf[16384];
  for (;;) {
    after_bytes();
    if (!flush(hs.take_output(), fd, stop)) {
      if (stop.stopped()) return Failure::kTimeout;
      hs.on_peer_closed();
    }
    if (hs.state() == State::kDone) return Failure::kNone;
    if (hs.state() == State::kFailed) return hs.failure();

    int timeout_ms = -1;
    if (auto dl = hs.deadline()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*dl - Clock::now());
      timeout_ms = left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1;
    }
    pollfd p[2] = {{fd, POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, timeout_ms);
    if (rc < 0 && errno != EINTR) {
      hs.on_peer_closed();
      continue;
    }
    if (p[1].revents != 0) return Failure::kTimeout;
    if (rc == 0) {
      hs.on_timer(Clock::now());
      continue;
    }
    if (p[0].revents != 0) {
      const ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        hs.on_bytes({buf, static_cast<std::size_t>(n)}, Clock::now());
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        hs.on_peer_closed();
      }
    }
  }
}

}  // namespace

Failure drive_client_handshake(handshake::ClientHandshake& hs, int fd, const StopSignal& stop) {
  return drive(hs, fd, stop, [] {});
}

Failure drive_server_handshake(
    handshake::ServerHandshake& hs, int fd, const StopSignal& stop,
    const std::function<void(handshake::ServerEvent&, handshake::ServerHandshake&)>& on_event) {
  return drive(hs, fd, stop, [&] {
    while (auto ev = hs.take_event()) on_event(*ev, hs);
  });
}

}  // namespace qeli::engine
