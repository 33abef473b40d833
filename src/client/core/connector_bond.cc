// Stream bonding on the client (qeli 0.7.16 §3.8, docs/PROTOCOL.md "Stream bonding"):
// when AUTH OK allows max_streams > 1, more TCP connections to the same server address
// each run their own handshake and send JOIN (the session token, a stream index)
// instead of AUTH. One TUN reader pins every inner flow to one live stream by its
// 5-tuple hash (engine/stream_bond.h); each stream writes what it receives to the TUN.
// BondPolicy says how many streams to keep; a lost one only degrades and is opened
// again, and the session's data phase ends when its last stream does (or on a stop).
//
// Threads: the core's (the first stream's receive loop), its send thread, the TUN
// reader, the keeper (opens streams, samples the load) and one per JOINed stream, each
// with its own send thread. All end on the bond's stop.
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

#include "client/core/bond_policy.h"
#include "client/core/connector.h"
#include "client/core/farewell.h"
#include "crypto/random.h"
#include "engine/session_loop.h"
#include "engine/stream_bond.h"
#include "transport/tcp.h"
#include "wire/control_frame.h"
#include "wire/gso_chunk.h"
#include "wire/session_close.h"

namespace qeli::client {

/// What the streams of one bonded session share (connector.h names it).
struct BondRun {
  BondRun(engine::StreamBond& b, tunio::TunDevice& t, tunnel::SessionCounters& c,
          const handshake::AuthOk& o, std::size_t m, std::uint32_t negotiated,
          std::shared_ptr<const crypto::Key32> secret)
      : bond(b),
        tun(t),
        counters(c),
        ok(o),
        mtu(m),
        caps(negotiated),
        join_secret(std::move(secret)) {}
  engine::StreamBond& bond;
  tunio::TunDevice& tun;
  tunnel::SessionCounters& counters;
  const handshake::AuthOk& ok;
  std::size_t mtu;
  std::uint32_t caps;  ///< our extensions the first stream negotiated (0: a 0.7.16 server)
  std::shared_ptr<const crypto::Key32> join_secret;  ///< the session's (handshake::ClientSession)
  std::mutex tun_mu;                                 ///< the streams' TUN writes
  engine::StopSignal stop;        ///< ends every stream, the reader and the keeper
  engine::Notifier stream_ended;  ///< wakes the keeper: resume or replace at once
  std::atomic<int> joining{0};
  std::atomic<int> last_end{static_cast<int>(tunnel::SessionEnd::kStopped)};
  /// The server's session-close reason heard on a JOINed stream (-1: none): the session
  /// is over, as when the first stream hears it.
  std::atomic<int> closed{-1};
  /// TCP resume (PROTOCOL §22): the session outlives its connections for `grace`; a
  /// refused JOIN means the server no longer has it.
  bool resume = false;
  std::chrono::seconds grace{0};
  std::atomic<bool> refused{false};
  /// A stream ended for a move that took the route to the server with it
  /// (PathWatch::needs_new_routes): a new session, not a resume.
  std::atomic<bool> needs_new_routes{false};
  /// One stream at a time (max_streams = 1: a session bonded only to be resumable): the
  /// live stream reads the TUN itself, as an unbonded session does, with no reader thread
  /// and no copy into an inbox — that hand-off cost a resumable session 5–10 % of its
  /// throughput (docs/BENCHMARKS.md "TCP session resume").
  bool direct = false;
  /// The packet source of a stream: the TUN itself (direct) or its inbox in the bond.
  template <class F>
  tunnel::SessionEnd with_source(std::size_t slot, F&& run_with) {
    if (!direct) return run_with(static_cast<engine::PacketSource&>(bond.inbox(slot)));
    engine::TunQueueSource source(tun, counters, (caps & handshake::caps::kIpv6Inside) != 0);
    return run_with(static_cast<engine::PacketSource&>(source));
  }
};

namespace {

// The TUN reader: each packet to the inbox of the stream its flow is pinned to.
void read_tun(BondRun& run) {
  engine::TunQueueSource source(run.tun, run.counters,
                                (run.caps & handshake::caps::kIpv6Inside) != 0);
  // Whole super-packets land in a slot before a split read cuts them to the MTU.
  tunio::PacketBatch batch = source.make_batch(64, wire::kMaxSuperPacket, 0, 0);
  std::vector<engine::SessionInbox*> woken;
  woken.reserve(64);
  while (!run.stop.stopped()) {
    pollfd p[2] = {{run.tun.fd(), POLLIN, 0}, {run.stop.fd(), POLLIN, 0}};
    if (::poll(p, 2, 1000) < 0 && errno != EINTR) break;
    if (p[1].revents != 0) break;
    if (p[0].revents == 0) continue;
    batch.clear();
    if (!source.fill(batch)) {
      run.last_end = static_cast<int>(tunnel::SessionEnd::kTunError);
      run.stop.stop();
      break;
    }
    woken.clear();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto pkt = batch.packet(i);
      engine::SessionInbox& in = run.bond.pick(pkt);
      in.push(pkt, batch.meta(i));
      if (std::find(woken.begin(), woken.end(), &in) == woken.end()) woken.push_back(&in);
    }
    for (engine::SessionInbox* in : woken) in->notify();
  }
}

}  // namespace

tunnel::SessionEnd Connector::run_bonded(const handshake::AuthOk& ok, std::uint32_t caps,
                                         std::shared_ptr<const crypto::Key32> join_secret,
                                         tunnel::Session& first, engine::StreamFramer& first_framer,
                                         tunio::TunDevice& tun, std::size_t mtu,
                                         tunnel::SessionCounters& counters,
                                         const PathWatch* first_path) {
  const engine::StopSignal& core_stop = core_.stop_;
  // Every stream's sender seals the inbox's batches in place: the room of this carrier
  // (all streams speak the same mode) and the pushed padding.
  const tunnel::CarrierRoom room = first_framer.room();
  const tunnel::SessionParams params = session_params(ok, mtu, false);
  // Super-packets cross the inboxes whole (a stream's sender splits them for a peer
  // without the GSO extension, as the server's do).
  // One stream at a time reads the TUN itself (BondRun::direct): its inbox stays empty,
  // so it gets one slot instead of 64 super-packets' worth (4 MiB).
  const bool direct = ok.max_streams <= 1;
  const engine::SessionInbox::Geometry g{direct ? std::size_t{1} : std::size_t{64},
                                         wire::kMaxSuperPacket, room.headroom(),
                                         room.tailroom(params.send.padding)};
  engine::SessionInbox primary(g, counters);
  engine::StreamBond bond(ok.max_streams, primary, g, counters);
  BondRun run(bond, tun, counters, ok, mtu, caps, std::move(join_secret));
  run.resume = (caps & handshake::caps::kResume) != 0 && ok.x_resume_secs.has_value();
  run.grace = std::chrono::seconds(ok.x_resume_secs.value_or(0));
  run.direct = direct;
  if (bond.max_streams() > 1) {
    log_.info("stream bonding: up to {} streams ({})", bond.max_streams(),
              ok.multipath_adaptive ? "adaptive" : "fixed");
  }

  std::thread reader;
  if (!run.direct) reader = std::thread([&] { read_tun(run); });
  std::thread keeper([&] {
    BondPolicy policy(bond.max_streams(), ok.multipath_adaptive);
    struct Joined {
      std::thread thread;
      std::shared_ptr<std::atomic<bool>> done;
    };
    std::list<Joined> streams;
    std::uint8_t next_index = 1;
    auto backoff = std::chrono::seconds(1);
    auto next_try = std::chrono::steady_clock::now();
    auto next_sample = next_try;
    int failures_seen = 0;
    std::atomic<int> failures{0};
    // Since when no stream carries the session (a zero time point: one does).
    std::chrono::steady_clock::time_point orphan_since{};
    while (!run.stop.stopped()) {
      const auto now = std::chrono::steady_clock::now();
      if (core_stop.stopped() || (bond.live() == 0 && (!run.resume || run.refused.load() ||
                                                       run.needs_new_routes.load()))) {
        if (run.refused.load()) log_.info("the server no longer has the session: reconnecting");
        if (run.needs_new_routes.load()) {
          log_.info("the route to the server left with the old network: reconnecting");
        }
        run.stop.stop();
        break;
      }
      if (bond.live() > 0) {
        orphan_since = {};
      } else if (orphan_since == std::chrono::steady_clock::time_point{}) {
        // The connection broke: resume the session on a new one (PROTOCOL §22).
        orphan_since = now;
        next_try = now;
        backoff = std::chrono::seconds(1);
        log_.info("the connection to the server broke: resuming the session (up to {} s)",
                  run.grace.count());
      } else if (now - orphan_since > run.grace) {
        // The server ends it now; a JOIN still on its way would be refused (its run.stop
        // cancels it).
        log_.info("the session was not resumed within {} s: reconnecting", run.grace.count());
        run.stop.stop();
        break;
      }
      if (now >= next_sample) {
        policy.on_sample(counters.get(tunnel::SessionCounter::kRxBytes) +
                             counters.get(tunnel::SessionCounter::kTxBytes),
                         now);
        next_sample = now + BondPolicy::kSamplePeriod;
      }
      // Threads of streams that ended are joined as they go (a long session may lose
      // and restore streams many times).
      for (auto it = streams.begin(); it != streams.end();) {
        if (it->done->load()) {
          it->thread.join();
          it = streams.erase(it);
        } else {
          ++it;
        }
      }
      // A failed JOIN waits longer each time (1 s doubling to 30 s); a whole bond resets.
      if (bond.live() >= policy.target()) backoff = std::chrono::seconds(1);
      if (const int f = failures.load(); f != failures_seen) {
        if (f > failures_seen) {
          next_try = now + backoff;
          // While orphaned, every second counts: the server holds the session for its grace.
          backoff = std::min<std::chrono::seconds>(
              backoff * 2, orphan_since != std::chrono::steady_clock::time_point{}
                               ? std::chrono::seconds(2)
                               : std::chrono::seconds(30));
        }
        failures_seen = f;
      }
      const auto want = policy.target();
      if (now >= next_try && bond.live() + static_cast<std::size_t>(run.joining.load()) < want) {
        const handshake::JoinToken token = *ok.session_token;
        const std::uint8_t index = next_index;
        next_index = static_cast<std::uint8_t>(next_index % 255 + 1);
        run.joining++;
        auto done = std::make_shared<std::atomic<bool>>(false);
        streams.push_back({std::thread([this, token, index, &run, &failures, done] {
                             if (!run_joined(token, index, run)) failures++;
                             done->store(true);
                             // After the count: the keeper applies the backoff first.
                             run.stream_ended.notify();
                           }),
                           done});
      }
      // A stream that ends wakes the keeper: a resume starts within a millisecond, not
      // at the next sample (a roam's stall, docs/BENCHMARKS.md).
      pollfd p[3] = {{core_stop.fd(), POLLIN, 0},
                     {run.stop.fd(), POLLIN, 0},
                     {run.stream_ended.fd(), POLLIN, 0}};
      (void)::poll(p, 3, 200);
      run.stream_ended.drain();
    }
    for (auto& j : streams) j.thread.join();
  });

  const SteadyClock clock;
  // On the bond's stop, which the keeper fires for the core's stop (the farewell still
  // goes: it asks the core's stop) and which a TUN failure or a close frame heard on a
  // JOINed stream fire too.
  const auto end = run.with_source(0, [&](engine::PacketSource& source) {
    return engine::run_session(first, first_framer, source, engine::TunWriter{&tun, &run.tun_mu},
                               run.stop, clock);
  });
  // The session lives while any of its streams does — unless it was ended on purpose —
  // and, resumable, while the keeper resumes it.
  const bool over = core_stop.stopped() || run.stop.stopped() || attempt_.closed.has_value() ||
                    end == tunnel::SessionEnd::kTunError;
  bool carried_on = false;
  if (first_path != nullptr && first_path->needs_new_routes()) run.needs_new_routes = true;
  const std::size_t left = bond.detach(0, run.resume && !over);
  run.stream_ended.notify();
  if (!over && run.resume) {
    ::shutdown(first_framer.fd(), SHUT_RDWR);
    while (!run.stop.stopped()) {
      pollfd p{run.stop.fd(), POLLIN, 0};
      (void)::poll(&p, 1, 1000);
    }
    carried_on = true;
  } else if (!over && left > 0) {
    log_.info("the first stream ended ({}); {} bonded stream(s) carry the session",
              tunnel::to_string(end), left);
    // Closed now: the server must see it go, or the flows it pins there are lost until
    // its liveness deadline.
    ::shutdown(first_framer.fd(), SHUT_RDWR);
    bond.wait_until_empty(run.stop);
    carried_on = true;
  }
  run.stop.stop();
  keeper.join();
  if (reader.joinable()) reader.join();
  if (const int why = run.closed.load(); why >= 0 && !attempt_.closed) {
    attempt_.closed = static_cast<wire::CloseReason>(why);
  }
  const auto later = static_cast<tunnel::SessionEnd>(run.last_end.load());
  if (later == tunnel::SessionEnd::kTunError || run.closed.load() >= 0) return later;
  // After the first stream went, the session ended with the last of the others.
  return carried_on && later != tunnel::SessionEnd::kStopped ? later : end;
}

bool Connector::run_joined(const handshake::JoinToken& token, std::size_t index, BondRun& run) {
  // Counted as joining until it carries traffic or failed (the keeper's arithmetic).
  struct Joining {
    BondRun& r;
    bool counted = true;
    void done() {
      if (counted) r.joining--;
      counted = false;
    }
    ~Joining() { done(); }
  } joining{run};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.timeout);
  auto c = core_.env_.dial_tcp
               ? core_.env_.dial_tcp(server_, ms, run.stop.fd())
               : transport::tcp_connect(server_, ms, run.stop.fd(), core_.env_.protect);
  if (!c.ok()) {
    if (!run.stop.stopped()) log_.warn("bonded stream {}: connect failed: {}", index, c.error());
    return false;
  }
  // Toward our server the connection takes the extensions its session negotiated (a
  // capability frame after JOINOK; no TLS binding: only AUTH OK carries its proof).
  // Toward 0.7.16 it speaks the plain data plane.
  handshake::ClientConfig hc = handshake_config(run.caps & ~handshake::caps::kTlsBinding);
  hc.join = handshake::JoinMessage{token, static_cast<std::uint8_t>(index), std::nullopt};
  // Our server wants proof of the session's keys, not only its token (PROTOCOL §19).
  if (run.caps != 0) hc.join_secret = run.join_secret;
  auto opened = open_stream(std::move(*c), hc, run.stop);
  if (!opened || opened->failure != handshake::Failure::kNone) {
    if (opened && !run.stop.stopped()) {
      log_.warn("bonded stream {}: the JOIN failed: {}", index,
                handshake::to_string(opened->failure));
    }
    // Closed after our JOIN: the server has no such session (a restart, its grace ran out).
    if (opened && opened->failure == handshake::Failure::kRejected) run.refused = true;
    return false;
  }
  const auto slot = run.bond.attach();
  joining.done();
  if (!slot) return true;  // others were faster: the bond is full
  auto& session = *opened->session;
  const std::uint32_t caps = session.negotiated_caps;
  if (opened->obfs && (caps & handshake::caps::kObfsHeaderXor) != 0) {
    opened->obfs->begin_header_only();
  }
  const bool gso = (caps & handshake::caps::kGsoSuperPackets) != 0;
  // The server's close frame may come on any stream (the first may be gone): it ends the
  // whole session (run_bonded reads run.closed). Our goodbye, when the core stops, too.
  const bool close_notify = (caps & handshake::caps::kCloseNotify) != 0;
  tunnel::SessionParams sc = session_params(run.ok, run.mtu, false);
  sc.receive.gso_receive = gso;
  if (close_notify) {
    sc.send.farewell = client_farewell(true, core_.stop_);
    sc.receive.end_on_close_frame = true;
    sc.receive.on_control = [&run](const wire::ControlFrame& f) {
      if (f.type != wire::kCtrlSessionClose) return;
      auto why = wire::parse_session_close(f);
      run.closed = static_cast<int>(why.ok() ? *why : wire::CloseReason{});
    };
  }
  engine::StreamFramer framer(*opened->stream, session.recv.framing(), session.leftover);
  const auto path = watch_path(framer.fd());
  crypto::Rng& rng = crypto::system_rng();
  tunnel::Session ts(std::move(sc), std::move(session.send), std::move(session.recv), framer.room(),
                     rng, run.counters, nullptr, std::chrono::steady_clock::now());
  ts.peer().gso = gso;
  ts.peer().close_notify = close_notify;
  ts.peer().aes_gcm = (caps & handshake::caps::kAesGcm) != 0;
  ts.peer().ipv6 = (caps & handshake::caps::kIpv6Inside) != 0;
  if (run.resume && run.bond.live() == 1) {
    log_.info("resumed the session on a new connection (fresh keys, no new AUTH)");
  } else {
    log_.info("bonded stream {} joined ({} live)", index, run.bond.live());
  }
  const SteadyClock clock;
  const auto started = std::chrono::steady_clock::now();
  const auto end = run.with_source(*slot, [&](engine::PacketSource& source) {
    return engine::run_session(ts, framer, source, engine::TunWriter{&run.tun, &run.tun_mu},
                               run.stop, clock);
  });
  // A resumable session outlives a connection that broke (the keeper resumes it).
  const bool broke = end != tunnel::SessionEnd::kStopped && end != tunnel::SessionEnd::kTunError &&
                     run.closed.load() < 0 && !core_.stop_.stopped();
  if (path && path->needs_new_routes()) run.needs_new_routes = true;
  const std::size_t left = run.bond.detach(*slot, run.resume && broke);
  if (run.closed.load() >= 0) run.stop.stop();  // the server ended the session
  // A stream that read the TUN itself (direct) saw it fail: nothing can carry the session.
  if (end == tunnel::SessionEnd::kTunError) run.stop.stop();
  if (end == tunnel::SessionEnd::kStopped) return true;
  run.last_end = static_cast<int>(end);
  log_.info("bonded stream {} ended: {} ({} live)", index, tunnel::to_string(end), left);
  // One that dies at once counts as a failed JOIN: the keeper backs off before the next.
  return std::chrono::steady_clock::now() - started > std::chrono::seconds(1);
}

}  // namespace qeli::client
