// The stream carriers (plain, fake-tls, obfs, reality, reality-tls over TCP): a connect to
// each address in turn, the outer layers' set-up (obfs: WebSocket upgrade, junk and
// nonces; reality-tls: a real TLS 1.3 handshake), the handshake, the stream data phase.
#include <chrono>

#include "client/core/connect_plan.h"
#include "client/core/connector.h"
#include "client/core/failure_hint.h"
#include "config/short_id.h"
#include "crypto/random.h"
#include "engine/flight_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "transport/obfs_setup.h"
#include "transport/obfs_stream.h"
#include "transport/reality_tls_hello.h"
#include "transport/tcp.h"
#include "transport/tcp_stream.h"
#include "transport/tls_setup.h"
#include "transport/tls_stream.h"
#include "wire/modes.h"
#include "wire/tcp_junk.h"
#include "wire/udp_obfs.h"

namespace qeli::client {
Duration Connector::connect_stream() {
  const engine::StopSignal& stop = core_.stop_;
  transport::UniqueFd sock;
  std::string last_error;
  const SteadyClock clock;
  const auto got = try_in_turn(
      servers_.size(), std::chrono::duration_cast<Duration>(cfg_.timeout), clock,
      [&](std::size_t i, Duration share) {
        // Cancelled by stop(): an unreachable server would otherwise hold the stop for
        // the whole connect timeout.
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(share);
        auto c = core_.env_.dial_tcp
                     ? core_.env_.dial_tcp(servers_[i], ms, stop.fd())
                     : transport::tcp_connect(servers_[i], ms, stop.fd(), core_.env_.protect);
        if (c.ok()) {
          sock = std::move(*c);
          return AttemptResult::kConnected;
        }
        last_error = c.error();
        return stop.stopped() ? AttemptResult::kStop : AttemptResult::kNoAnswer;
      });
  if (stop.stopped()) return Duration::zero();
  if (!got) {
    log_.warn("connect failed: {}", last_error);
    return Duration::zero();
  }
  server_ = servers_[*got];
  handshake::ClientConfig hc =
      handshake_config(handshake::our_extensions(handshake::Carrier::kStream));
  auto opened = open_stream(std::move(sock), hc, stop);
  if (!opened) return Duration::zero();
  if (!handshake_succeeded(opened->failure)) return Duration::zero();
  auto& session = *opened->session;
  if (!remember_server_key(session)) return Duration::zero();
  // Our own server (it negotiated our extensions) takes KeyUpdates before the key's
  // record limit; toward 0.7.16 the connection is renewed instead (RFC 8446 §5.5).
  if (opened->tls && session.negotiated_caps != 0) opened->tls->set_peer_is_ours(true);
  if (opened->obfs && (session.negotiated_caps & handshake::caps::kObfsHeaderXor) != 0) {
    // Both ours: record bodies (AEAD ciphertext) skip the obfs keystream from our next
    // record; the server follows (docs/PROTOCOL.md §17).
    opened->obfs->begin_header_only();
    log_.info("obfs: {} is ours; record bodies skip the second keystream", endpoint_name_);
  }
  if (session.tls_bound) {
    log_.info("reality-tls: {} proved our TLS session; records go without the inner AEAD",
              endpoint_name_);
  }
  // With the GSO extension, the kernel's super-packets cross the tunnel whole.
  const bool gso = (session.negotiated_caps & handshake::caps::kGsoSuperPackets) != 0;
  const bool close_notify = (session.negotiated_caps & handshake::caps::kCloseNotify) != 0;
  // Both ends have AES-GCM instructions: records go AES-256-GCM (docs/PROTOCOL.md §18).
  attempt_.aes_gcm = (session.negotiated_caps & handshake::caps::kAesGcm) != 0;
  attempt_.ipv6 = (session.negotiated_caps & handshake::caps::kIpv6Inside) != 0;
  attempt_.caps = session.negotiated_caps;
  const handshake::AuthOk ok = *session.auth_ok;
  return run_tunnel(
      ok, configured_mtu(ok), gso ? tunio::ReadMode::keep_whole : tunio::ReadMode::split, gso,
      nullptr, [&](tunio::TunDevice& tun, std::size_t mtu, tunnel::SessionCounters& counters) {
        tunnel::SessionParams sc = session_params(ok, mtu, close_notify);
        sc.receive.gso_receive = gso;
        sc.receive.accept_tls_bound = session.tls_bound;
        engine::StreamFramer framer(*opened->stream, session.recv.framing(), session.leftover);
        // A move to another network ends the connection at once (the stream outlives it).
        const auto path = watch_path(framer.fd());
        crypto::Rng& rng = crypto::system_rng();
        tunnel::Session ts(std::move(sc), std::move(session.send), std::move(session.recv),
                           framer.room(), rng, counters, nullptr, std::chrono::steady_clock::now());
        ts.peer().gso = gso;
        ts.peer().close_notify = close_notify;
        // Both ends proved one TLS session: the inner AEAD goes (docs/PROTOCOL.md §16).
        ts.peer().tls_bound = session.tls_bound;
        ts.peer().aes_gcm = attempt_.aes_gcm;
        ts.peer().ipv6 = attempt_.ipv6;
        // Bonded streams, or a session our server lets us resume (PROTOCOL §19, §22).
        const bool resume = (session.negotiated_caps & handshake::caps::kResume) != 0;
        if ((ok.max_streams > 1 || resume) && ok.session_token) {
          // The server bonds streams (0.7.16 §3.8): more connections join this session.
          return run_bonded(ok,
                            attempt_.ipv6 ? session.negotiated_caps
                                          : session.negotiated_caps & ~handshake::caps::kIpv6Inside,
                            std::make_shared<const crypto::Key32>(std::move(session.join_secret)),
                            ts, framer, tun, mtu, counters, path.get());
        }
        engine::TunQueueSource source(tun, counters, attempt_.ipv6);
        return engine::run_session(ts, framer, source, engine::TunWriter{&tun, nullptr}, stop,
                                   clock);
      });
}

std::optional<Connector::OpenedStream> Connector::open_stream(transport::UniqueFd sock,
                                                              handshake::ClientConfig& hc,
                                                              const engine::StopSignal& stop) {
  transport::StreamOptions so;
  so.nodelay = cfg_.tcp_nodelay;
  so.keepalive_secs = static_cast<int>(cfg_.keepalive.count());
  so.send_buffer = static_cast<int>(cfg_.send_buffer_size);
  so.recv_buffer = static_cast<int>(cfg_.recv_buffer_size.value_or(0));
  transport::apply_stream_options(sock.get(), so);
  OpenedStream out;
  out.stream = std::make_unique<transport::TcpStream>(std::move(sock));
  crypto::Rng& rng = crypto::system_rng();
  if (cfg_.mode == config::ClientMode::kObfs) {
    // obfs: WebSocket upgrade, junk and the nonce exchange, then the flight inside.
    transport::ObfsParams op;
    op.key = wire::derive_obfs_key(cfg_.obfs_key);
    op.websocket = cfg_.front == config::Fronting::kWebsocket;
    op.junk = wire::JunkPlan::from_config(cfg_.awg, cfg_.jc, cfg_.jmin, cfg_.jmax);
    op.host = hc.sni.kind == wire::Sni::Kind::kHost ? hc.sni.host : std::string();
    op.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
    op.header_xor = (hc.extensions & handshake::caps::kObfsHeaderXor) != 0;
    transport::ObfsSetup setup(transport::ObfsSetup::Side::kClient, std::move(op), rng);
    setup.start(std::chrono::steady_clock::now());
    if (engine::drive_stream_setup(setup, *out.stream, stop) != transport::SetupState::kDone) {
      if (!stop.stopped()) {
        log_.warn("obfs set-up with {} failed: {}. {}", endpoint_name_, setup.failure(),
                  mode_advice());
      }
      return std::nullopt;
    }
    out.stream = setup.into_stream(std::move(out.stream));
    out.obfs = static_cast<transport::ObfsXorStream*>(out.stream.get());  // the top layer
  }
  if (cfg_.mode == config::ClientMode::kRealityTls) {
    // reality-tls: a real TLS 1.3 handshake (Chromium's hello, the token in its session
    // id), then the fake-TLS flight and records inside its application data.
    auto tls = start_reality_tls(hc, out.stream, stop);
    if (!tls) return std::nullopt;
    out.tls = static_cast<transport::TlsStream*>(tls.get());  // TlsClientSetup builds one
    out.stream = std::move(tls);
  }
  handshake::ClientHandshake hs(hc, rng);
  hs.start(std::chrono::steady_clock::now());
  out.failure = engine::drive_client_handshake(hs, *out.stream, stop);
  if (out.failure == handshake::Failure::kNone) out.session = hs.take_session();
  return out;
}

std::unique_ptr<transport::Stream> Connector::start_reality_tls(
    handshake::ClientConfig& hc, std::unique_ptr<transport::Stream>& tcp,
    const engine::StopSignal& stop) {
  transport::RealityTlsHelloParams hp;
  // Config validation guarantees the pinned key and the short id, and a name form of sni.
  if (hc.sni.kind != wire::Sni::Kind::kHost || hc.sni.host.empty()) {
    stop_for_good("reality-tls needs a server name: set `sni` to the REALITY target's host name");
    return nullptr;
  }
  const auto sid = config::parse_short_id(cfg_.reality_sid);
  if (!pinned_ || !sid) {
    stop_for_good("reality-tls needs the server key and a short id (set `key` and `sid`)");
    return nullptr;
  }
  hp.server_name = hc.sni.host;
  hp.server_key = *pinned_;
  hp.short_id = *sid;
  hp.unix_secs = unix_seconds();
  crypto::Rng& rng = crypto::system_rng();
  auto hello = transport::build_reality_tls_hello(hp, rng);
  if (!hello) {
    stop_for_good("the pinned server key is not a usable X25519 key (check `key`)");
    return nullptr;
  }
  tls::ClientHandshakeConfig tc;
  tc.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
  transport::TlsClientSetup setup(std::move(*hello), tc);
  setup.start(std::chrono::steady_clock::now());
  if (engine::drive_stream_setup(setup, *tcp, stop) != transport::SetupState::kDone) {
    if (!stop.stopped()) {
      log_.warn("TLS handshake with {} failed: {}. {}", endpoint_name_, setup.failure(),
                mode_advice());
    }
    return nullptr;
  }
  log_.debug("TLS 1.3 with {}: {}, group {:#06x}{}", endpoint_name_, tls::to_string(*setup.suite()),
             setup.group(),
             setup.server_reused_x25519_key() ? " (a 0.7.16 server's hybrid key choice)" : "");
  handshake::TlsExporter exporter{};
  if (hc.extensions != 0 &&
      setup.export_keying_material(handshake::kTlsBindingExporterLabel, {}, exporter)) {
    hc.tls_exporter = exporter;
    hc.extensions |= handshake::caps::kTlsBinding;
  }
  return setup.into_stream(std::move(tcp));
}

}  // namespace qeli::client
