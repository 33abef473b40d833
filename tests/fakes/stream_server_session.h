// StreamServerSession: the server's half of one TCP connection, in a thread of its own —
// the fake-tls handshake (accepting any login with `auth_ok`), then a tunnel::Session
// run by the engine's session loop over a StreamFramer, its TUN a ChannelTun — as
// server/profile_runtime.cc wires it. For tests whose client is a whole ClientCore
// (tests/unit/client/in_memory_client_core_test.cc) over one end of a socket pair.
//
//   test::StreamServerSession server(std::move(stream_end), identity, auth_ok);  // identity
//   outlives it server.tun.inject(pkt);  ...  server.wait_end(5s);  server.close_heard();
//
// Header-only; needs qeli::engine and qeli::tunnel.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "engine/flight_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "fakes/channel_tun.h"
#include "handshake/server_handshake.h"
#include "tunnel/session.h"
#include "wire/session_close.h"

namespace qeli::test {

class StreamServerSession {
 public:
  StreamServerSession(std::unique_ptr<transport::Stream> stream,
                      const crypto::X25519KeyPair& identity, handshake::AuthOk auth_ok,
                      bool bind_static = true)
      : stream_(std::move(stream)),
        identity_(identity),
        auth_ok_(std::move(auth_ok)),
        bind_static_(bind_static) {
    thread_ = std::thread([this] { run(); });
  }
  ~StreamServerSession() {
    stop_.stop();
    if (thread_.joinable()) thread_.join();
  }
  StreamServerSession(const StreamServerSession&) = delete;
  StreamServerSession& operator=(const StreamServerSession&) = delete;

  /// The handshake is done and the session runs (or ran).
  bool wait_session(std::chrono::milliseconds d) const { return wait(session_up_, d); }
  /// The session (or the handshake) ended.
  bool wait_end(std::chrono::milliseconds d) const { return wait(done_, d); }
  tunnel::SessionEnd end() const { return end_; }
  /// The client's session-close reason, if it sent one.
  std::optional<wire::CloseReason> close_heard() const {
    const int r = close_heard_.load();
    if (r < 0) return std::nullopt;
    return static_cast<wire::CloseReason>(r);
  }

  ChannelTun tun;
  tunnel::SessionCounters counters;

 private:
  static bool wait(const std::atomic<bool>& flag, std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!flag.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return flag.load();
  }

  void run() {
    handshake::ServerConfig sc;
    sc.mode = handshake::Mode::kFakeTls;
    sc.identity = &identity_;
    sc.bind_static = bind_static_;  // off: a client may learn our key on first use
    sc.extensions = handshake::our_extensions(handshake::Carrier::kStream);
    handshake::ServerHandshake hs(sc, rng_);
    hs.start(std::chrono::steady_clock::now());
    const auto failure = engine::drive_server_handshake(
        hs, *stream_, stop_,
        [&](handshake::ServerEvent&, handshake::ServerHandshake& h) { h.accept(auth_ok_); });
    if (failure != handshake::Failure::kNone) {
      done_ = true;
      return;
    }
    handshake::ServerSession s = hs.take_session();
    engine::StreamFramer framer(*stream_, s.recv.framing(), s.leftover);
    tunnel::SessionParams sp;
    sp.send.mtu = auth_ok_.mtu.value_or(1400);
    sp.receive.offered_caps = s.advertised_caps;
    sp.receive.gso_receive = (s.advertised_caps & handshake::caps::kGsoSuperPackets) != 0;
    sp.receive.end_on_close_frame = true;
    sp.receive.on_control = [this](const wire::ControlFrame& f) {
      if (f.type != wire::kCtrlSessionClose) return;
      if (auto r = wire::parse_session_close(f); r.ok()) close_heard_ = static_cast<int>(*r);
    };
    tunnel::Session session(std::move(sp), std::move(s.send), std::move(s.recv), framer.room(),
                            rng_, counters, nullptr, std::chrono::steady_clock::now());
    engine::TunQueueSource source(tun, counters);
    session_up_ = true;
    end_ = engine::run_session(session, framer, source, engine::TunWriter{&tun, nullptr}, stop_,
                               clock_);
    done_ = true;
  }

  std::unique_ptr<transport::Stream> stream_;
  const crypto::X25519KeyPair& identity_;  // the caller's; outlives us
  const handshake::AuthOk auth_ok_;
  const bool bind_static_;
  crypto::DeterministicRng rng_{12};
  const SteadyClock clock_;
  engine::StopSignal stop_;
  std::atomic<bool> session_up_{false}, done_{false};
  std::atomic<tunnel::SessionEnd> end_{tunnel::SessionEnd::kStopped};
  std::atomic<int> close_heard_{-1};
  std::thread thread_;
};

}  // namespace qeli::test
