// ProfileRuntime's TCP connection (profile_runtime.h), on its own thread: the carrier's
// outer layers (obfs, WebSocket front, TLS 1.3 for reality-tls), the qeli handshake,
// Admission or a JOIN / resume of a live session, then the session's data phase and its
// end (a resumable session waits for its client in hold_for_resume).
#include "server/profile_runtime.h"

#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <chrono>

#include "engine/flight_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "server/auth_context.h"
#include "server/auth_ok_builder.h"
#include "server/session_control.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "server/tcp_carrier.h"
#include "sys/log_fields.h"
#include "transport/tcp.h"
#include "transport/tcp_stream.h"
#include "transport/tls_setup.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

// How long a session we ended keeps reading after its farewell (transport/tcp.h
// half_close_and_drain): a client with the close extension closes at once on reading it.
constexpr std::chrono::milliseconds kFarewellLinger{2000};

}  // namespace

void ProfileRuntime::handle_connection(transport::UniqueFd fd, const transport::SockAddr& peer,
                                       Bytes prefix, std::optional<std::string> short_id_owner) {
  preauth_++;
  bool preauth = true;
  auto leave_preauth = [&] {
    if (preauth) preauth_--;
    preauth = false;
  };
  const auto& p = profile_;
  AuthContext ctx;
  ctx.peer = peer;
  transport::StreamOptions so;
  so.nodelay = p.perf.tcp_nodelay;
  so.keepalive_secs = static_cast<int>(p.perf.tcp_keepalive.count());
  so.send_buffer = static_cast<int>(p.perf.tcp_send_buffer_size);
  so.recv_buffer = static_cast<int>(p.perf.tcp_recv_buffer_size);
  transport::apply_stream_options(fd.get(), so);
  if (guard_.locked_out(source_key(ctx.peer), Clock::now())) {
    const auto total = ++counters_.locked_out;
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
            .count();
    auto last = last_lockout_log_ms_.load(std::memory_order_relaxed);
    if (now_ms - last >= 10'000 &&
        last_lockout_log_ms_.compare_exchange_strong(last, now_ms, std::memory_order_relaxed)) {
      spdlog::warn(
          "[{}] {} closed: source address locked out ({} lockout closes so far; "
          "logged at most every 10 s)",
          p.name, ctx.peer.to_string(), total);
    }
    leave_preauth();
    return;
  }

  crypto::Rng& rng = crypto::system_rng();
  std::unique_ptr<transport::Stream> stream = std::make_unique<transport::TcpStream>(std::move(fd));
  // The carrier's own set-up (obfs: WebSocket upgrade, junk, nonces) on the raw socket;
  // then the handshake runs over the layers it built.
  // Half the pre-auth slots at most may idle in nginx's keep-alive after a decoy answer.
  if (auto setup = make_obfs_setup(p, rng, unix_now(), preauth_.load() < preauth_limit() / 2)) {
    setup->start(Clock::now());
    if (engine::drive_stream_setup(*setup, *stream, stop_, prefix) !=
        transport::SetupState::kDone) {
      carrier_.add(counter_of(setup->failure_kind()));
      spdlog::debug("[{}] {} obfs set-up failed: {}", p.name, ctx.peer.to_string(),
                    setup->failure());
      leave_preauth();
      return;
    }
    prefix.clear();
    stream = setup->into_stream(std::move(stream));
  }
  std::optional<handshake::TlsExporter> tls_exporter;
  if (tls_target_) {
    // reality-tls: our TLS 1.3 terminator answers the hello the gate peeked at the way
    // the target answers Chromium; the fake-TLS flight then runs inside its records.
    tls::TerminatorConfig tc;
    tc.shape = tls_target_->current();
    tc.timeout = p.perf.handshake_timeout;
    transport::TlsServerSetup setup(std::move(tc), rng);
    setup.start(Clock::now());
    if (engine::drive_stream_setup(setup, *stream, stop_, prefix) != transport::SetupState::kDone) {
      carrier_.add(CarrierCounter::kRealityTlsFailed);
      spdlog::debug("[{}] {} TLS handshake failed: {}", p.name, ctx.peer.to_string(),
                    setup.failure());
      leave_preauth();
      return;
    }
    prefix.clear();
    handshake::TlsExporter e{};
    if (setup.export_keying_material(handshake::kTlsBindingExporterLabel, {}, e)) {
      tls_exporter = e;
    }
    stream = setup.into_stream(std::move(stream));
  }

  handshake::ServerConfig hc;
  hc.mode = config::mode_spec(p.transport, p.obf.mode)->flight;
  hc.identity = &identity_;
  hc.bind_static = auth_.bind_static_to_session;
  hc.require_client_key_proof = auth_.require_client_key_proof;
  hc.fragmentation.enabled = p.obf.fragmentation.enabled;
  hc.fragmentation.min_chunk = p.obf.fragmentation.min_chunk_size;
  hc.fragmentation.max_chunk = p.obf.fragmentation.max_chunk_size;
  hc.fragmentation.max_fragments = p.obf.fragmentation.max_fragments_per_packet;
  if (p.obf.anti_fingerprinting && p.obf.add_jitter_to_handshake) {
    hc.max_jitter = std::chrono::milliseconds(11);
  }
  hc.timeout = p.perf.handshake_timeout;
  hc.extensions = handshake::our_extensions(handshake::Carrier::kStream);
  if (!p.pool.ipv6) hc.extensions &= ~handshake::caps::kIpv6Inside;
  if (!p.roaming || p.roaming_max_orphaned == 0) hc.extensions &= ~handshake::caps::kResume;
  if (tls_exporter && hc.extensions != 0) {
    // Offer the TLS binding; a client that proves the same exporter drops the inner AEAD.
    hc.extensions |= handshake::caps::kTlsBinding;
    hc.tls_exporter = tls_exporter;
  }
  handshake::ServerHandshake hs(hc, rng);
  hs.start(Clock::now());
  JoinedStream joined;  // set when the client JOINs a live session (stream bonding)
  bool join_refused = false;

  const auto failure = engine::drive_server_handshake(
      hs, *stream, stop_,
      [&](handshake::ServerEvent& ev, handshake::ServerHandshake& h) {
        if (auto* auth = std::get_if<handshake::AuthRequest>(&ev)) {
          ctx.req = std::move(*auth);
          // A per-user REALITY short id admits its own user only (a leaked link of one
          // user cannot be used with another's credentials).
          if (short_id_owner && *short_id_owner != ctx.req.user) {
            events_.failure(source_key(ctx.peer), ctx.req.user, Clock::now());
            ctx.reason = "REALITY short id of user '" + *short_id_owner + "' used by another";
            h.reject();
            return;
          }
          if (!admission_->admit(ctx)) {
            h.reject();
            return;
          }
          // Before the token can find the session: what every stream of it checks.
          ctx.session->inbound_filter = inbound_filter(ctx.session.get(), p, ctx);
          ctx.session->join_secret = ctx.req.join_secret;
          handshake::JoinToken token{};
          rng.fill(token);
          // Bonded streams and resumes find the session by its token (PROTOCOL §19, §22).
          if (ctx.session->bond.max_streams() > 1 ||
              (hc.extensions & handshake::caps::kResume) != 0) {
            sessions_->publish_join(ctx.session, token);
          }
          h.accept(build_auth_ok(p, ctx.user, ctx.session->tunnel_ip, token,
                                 destination_acl(ctx).allows_some_ipv6()));
        } else if (claim_join_slot(std::get<handshake::JoinRequest>(ev), ctx, joined)) {
          h.accept_join();
        } else {
          join_refused = true;
          h.reject();
        }
      },
      prefix);
  if (failure != handshake::Failure::kNone) {
    if (ctx.session) sessions_->remove(ctx.session);
    if (joined.session) joined.session->bond.detach(joined.slot);
    if (failure == handshake::Failure::kRejected) {
      (join_refused ? counters_.joins_refused : counters_.auth_failed)++;
      spdlog::warn("[{}] {} rejected: {} (user '{}')", p.name, ctx.peer.to_string(), ctx.reason,
                   ctx.req.user.substr(0, 64));
    } else if (const std::string layer = stream->failure(); !layer.empty()) {
      // A carrier layer broke under the flight (a malformed WebSocket frame, …).
      carrier_.add(CarrierCounter::kObfsStreamError);
      spdlog::debug("[{}] {} handshake failed: {}", p.name, ctx.peer.to_string(), layer);
    } else {
      counters_.handshake_failed++;
      spdlog::debug("[{}] {} handshake failed: {}", p.name, ctx.peer.to_string(),
                    handshake::to_string(failure));
    }
    leave_preauth();
    return;
  }
  leave_preauth();
  if (joined.session) {
    joined.peer = ctx.peer;
    serve_joined_stream(std::move(stream), hs.take_session(), joined);
    return;
  }
  counters_.sessions_started++;
  auto session = ctx.session;
  // journalctl QELI_USER=alice: every line of this session's thread (sys/log_fields.h).
  const sys::LogFields fields{{"QELI_PROFILE", p.name},
                              {"QELI_USER", session->user},
                              {"QELI_TUNNEL_IP", transport::ipv4_to_string(session->tunnel_ip)},
                              {"QELI_PEER", ctx.peer.to_string()}};
  spdlog::info("[{}] {} connected as '{}' → {}", p.name, ctx.peer.to_string(), session->user,
               transport::ipv4_to_string(session->tunnel_ip));
  events_.connected(*session);

  auto hs_session = hs.take_session();
  Session* sp = session.get();
  tunnel::SessionParams sc = stream_params(p, *sp, sp->peer_state, hc.extensions);
  if ((hc.extensions & handshake::caps::kTlsBinding) != 0) {
    sc.receive.tls_binding_proof =
        handshake::tls_binding_proof(*tls_exporter, handshake::BindingSide::kClient);
  }
  engine::StreamFramer framer(*stream, hs_session.recv.framing(), hs_session.leftover);
  tunnel::Session ts(std::move(sc), std::move(hs_session.send), std::move(hs_session.recv),
                     framer.room(), rng, session->counters, &sp->peer_state, Clock::now());
  const std::size_t q = session->id % tun_->queue_count();
  tunio::TunQueue dev(*tun_, q);
  const SteadyClock clock;
  sp->bond.set_socket(0, stream->fd());  // a resume that supersedes it shuts it down
  auto end = engine::run_session(ts, framer, session->inbox,
                                 engine::TunWriter{&dev, tun_write_mu_[q].get()}, session->stop,
                                 clock, 64, sp->account.get());
  // Our client may resume the session on a new connection (PROTOCOL §22).
  const bool hold = may_resume(*sp, end);
  const std::size_t left = sp->bond.detach(0, hold);
  const bool carried = left > 0 && (hold || !sp->stop.stopped());
  if (carried) {
    // Bonded: the session lives while any of its streams does (0.7.16 §3.8).
    spdlog::info("[{}] '{}' ({}): its first stream ended ({}); {} bonded stream(s) carry it",
                 p.name, sp->user, transport::ipv4_to_string(sp->tunnel_ip), tunnel::to_string(end),
                 left);
  }
  if (hold) {
    ::shutdown(stream->fd(), SHUT_RDWR);
    end = hold_for_resume(*sp, end);
  } else if (carried) {
    // Closed now, not with the session: the client must see this stream go (its flows
    // on it would otherwise vanish into a socket nobody reads until its liveness ends).
    ::shutdown(stream->fd(), SHUT_RDWR);
    sp->bond.wait_until_empty(sp->stop);
    // Why it ends is what ended the last stream or the stop (a kick, the quota…), not
    // how the first one went minutes ago.
    end = sp->stop.stopped() ? tunnel::SessionEnd::kStopped : tunnel::SessionEnd::kClosedByPeer;
  }
  sessions_->remove(session);
  // We ended it and may have said why (a kick, the quota, a stop): let that farewell
  // arrive instead of resetting it away with the client's unread upload.
  if (end == tunnel::SessionEnd::kStopped || end == tunnel::SessionEnd::kQuotaExhausted ||
      end == tunnel::SessionEnd::kIdle || end == tunnel::SessionEnd::kCounterExhausted) {
    transport::half_close_and_drain(stream->fd(), kFarewellLinger);
  }
  std::string why = describe_end(*session, end);
  if (const std::string layer = stream->failure();
      !layer.empty() && end == tunnel::SessionEnd::kSocketError) {
    carrier_.add(CarrierCounter::kObfsStreamError);
    why += " (" + layer + ")";
  }
  spdlog::info("[{}] '{}' ({}) disconnected: {} (rx {} pkts, tx {} pkts, drops: {})", p.name,
               session->user, transport::ipv4_to_string(session->tunnel_ip), why,
               session->counters.get(tunnel::SessionCounter::kRxPackets),
               session->counters.get(tunnel::SessionCounter::kTxPackets),
               tunnel::describe_drops(session->counters));
  events_.ended(*session, why);
}

}  // namespace qeli::server
