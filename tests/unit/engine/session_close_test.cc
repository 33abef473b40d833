// Our close extension through the real data-phase loops, without a TUN (only control
// frames cross, so nothing is written to one): the sending side's farewell frame ends
// the receiving side's session at once with kClosedByPeer, and only when that side asked
// for it (end_on_close_frame) — over a stream socket pair and over loopback UDP.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/datagram_framer.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/udp_loopback.h"
#include "transport/tcp.h"
#include "transport/unique_fd.h"
#include "wire/session_close.h"

namespace qeli::engine {
namespace {

using namespace std::chrono_literals;
using tunnel::SessionEnd;

// A source that never has packets (a pipe nobody writes).
class SilentSource final : public PacketSource {
 public:
  SilentSource() {
    int p[2];
    EXPECT_EQ(::pipe(p), 0);
    r_.reset(p[0]);
    w_.reset(p[1]);
  }
  int fd() const override { return r_.get(); }
  bool fill(tunio::PacketBatch&) override { return true; }

 private:
  transport::UniqueFd r_, w_;
};

wire::PacketCodec codec(std::uint8_t k) {
  crypto::Key32 key;
  key.data()[0] = k;
  const std::array<std::uint8_t, 4> seed = {k, 2, 3, 4};
  return wire::PacketCodec(wire::Framing::kTls, key.span(), seed);
}

// The sender's hook: the close frame when the session was stopped, nothing otherwise.
Bytes kicked_on_stop(SessionEnd end) {
  return end == SessionEnd::kStopped ? wire::build_session_close(wire::CloseReason::kKicked)
                                     : Bytes{};
}

struct StreamRun {
  SessionEnd server_end = SessionEnd::kTunError;
  SessionEnd client_end = SessionEnd::kTunError;
  std::atomic<int> reason{0};
  bool client_still_running_after_server_stop = false;
};

// Runs a "server" and a "client" stream session over a socket pair, stops the server
// and reports how both ended.
void run_stream(bool client_accepts_close, StreamRun& out) {
  auto sp = test::socket_stream_pair();
  ASSERT_GE(sp.a.fd(), 0);
  crypto::DeterministicRng rng_a{1}, rng_b{2};
  tunnel::SessionCounters ca, cb;
  SilentSource src_a, src_b;
  StopSignal stop_a, stop_b;
  const SteadyClock clock;

  tunnel::SessionParams server_p;
  server_p.send.farewell = kicked_on_stop;
  tunnel::SessionParams client_p;
  client_p.receive.end_on_close_frame = client_accepts_close;
  client_p.receive.on_control = [&](const wire::ControlFrame& f) {
    if (auto r = wire::parse_session_close(f); r.ok()) out.reason = static_cast<int>(*r);
  };
  StreamFramer fa(sp.a, wire::Framing::kTls, {}), fb(sp.b, wire::Framing::kTls, {});
  tunnel::Session server_s(std::move(server_p), codec(1), codec(2), fa.room(), rng_a, ca, nullptr,
                           clock.now());
  tunnel::Session client_s(std::move(client_p), codec(2), codec(1), fb.room(), rng_b, cb, nullptr,
                           clock.now());

  std::atomic<bool> client_done{false};
  std::thread client([&] {
    out.client_end = run_session(client_s, fb, src_b, TunWriter{}, stop_b, clock);
    client_done = true;
  });
  std::thread server(
      [&] { out.server_end = run_session(server_s, fa, src_a, TunWriter{}, stop_a, clock); });
  std::this_thread::sleep_for(50ms);
  stop_a.stop();
  server.join();
  // Well under any liveness deadline: the frame must do it, or nothing does.
  for (int i = 0; i < 100 && !client_done; ++i) std::this_thread::sleep_for(10ms);
  out.client_still_running_after_server_stop = !client_done;
  stop_b.stop();
  client.join();
}

TEST(SessionClose, StreamFarewellEndsTheClientSessionAtOnce) {
  StreamRun r;
  run_stream(true, r);
  EXPECT_EQ(r.server_end, SessionEnd::kStopped);
  EXPECT_FALSE(r.client_still_running_after_server_stop);
  EXPECT_EQ(r.client_end, SessionEnd::kClosedByPeer);
  EXPECT_EQ(r.reason.load(), static_cast<int>(wire::CloseReason::kKicked));
}

TEST(SessionClose, StreamClientWithoutTheExtensionIgnoresTheFrame) {
  StreamRun r;
  run_stream(false, r);
  // It saw the frame (a control frame like any other) but did not end on it.
  EXPECT_EQ(r.reason.load(), static_cast<int>(wire::CloseReason::kKicked));
  EXPECT_TRUE(r.client_still_running_after_server_stop);
  EXPECT_EQ(r.client_end, SessionEnd::kStopped);
}

TEST(SessionClose, DatagramFarewellEndsTheClientSessionAtOnce) {
  transport::UdpSocket s = test::loopback_udp(false), c = test::loopback_udp(false);
  const transport::SockAddr s_addr = s.local_address(), c_addr = c.local_address();
  crypto::DeterministicRng rng_s{3}, rng_c{4};
  tunnel::SessionCounters cs, cc;
  std::atomic<int> reason{0};
  std::atomic<int> frames_seen{0};
  SilentSource src_s, src_c;
  StopSignal stop_s, stop_c;
  const SteadyClock clock;
  tunnel::SessionParams server_p;
  server_p.send.farewell = [](SessionEnd) {
    return wire::build_session_close(wire::CloseReason::kSuperseded);
  };
  tunnel::SessionParams client_p;
  client_p.receive.end_on_close_frame = true;
  client_p.receive.on_control = [&](const wire::ControlFrame& f) {
    ++frames_seen;
    if (auto r = wire::parse_session_close(f); r.ok()) reason = static_cast<int>(*r);
  };
  DatagramFramer fs(s, c_addr, no_envelope(), no_envelope());
  DatagramFramer fc(c, s_addr, no_envelope(), no_envelope());
  tunnel::Session server_s(std::move(server_p), codec(1), codec(2), fs.room(), rng_s, cs, nullptr,
                           clock.now());
  tunnel::Session client_s(std::move(client_p), codec(2), codec(1), fc.room(), rng_c, cc, nullptr,
                           clock.now());

  std::atomic<bool> client_done{false};
  SessionEnd client_end = SessionEnd::kTunError;
  std::thread client([&] {
    client_end = run_session(client_s, fc, src_c, TunWriter{}, stop_c, clock);
    client_done = true;
  });
  std::thread server(
      [&] { EXPECT_EQ(run_sender(server_s, fs, src_s, stop_s, clock), SessionEnd::kStopped); });
  std::this_thread::sleep_for(50ms);
  stop_s.stop();
  server.join();
  for (int i = 0; i < 100 && !client_done; ++i) std::this_thread::sleep_for(10ms);
  const bool ended_by_frame = client_done.load();
  stop_c.stop();
  client.join();
  EXPECT_TRUE(ended_by_frame);
  EXPECT_EQ(client_end, SessionEnd::kClosedByPeer);
  EXPECT_EQ(reason.load(), static_cast<int>(wire::CloseReason::kSuperseded));
  // The copies that arrived after the first were handled as plain control frames.
  EXPECT_GE(frames_seen.load(), 1);
  EXPECT_LE(frames_seen.load(), fs.farewell_copies());
}

}  // namespace
}  // namespace qeli::engine
