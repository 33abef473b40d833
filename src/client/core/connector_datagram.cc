// UDP (0.7.16 §3.9): one socket connected to nothing (the server is the only peer we
// accept datagrams from), the sans-I/O UdpClientHandshake driven by poll() with its
// deadline, then the datagram data phase. Super-packets are TCP-only for now: the TUN
// is read split into MTU-sized packets.
#include <chrono>

#include "client/core/connect_plan.h"
#include "client/core/connector.h"
#include "client/core/failure_hint.h"
#include "crypto/random.h"
#include "engine/datagram_framer.h"
#include "engine/mtu_probe_driver.h"
#include "engine/session_loop.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/client_roam.h"
#include "handshake/udp_client_handshake.h"
#include "transport/udp_socket.h"
#include "wire/modes.h"
#include "wire/roam_nonce.h"
#include "wire/udp_obfs.h"

namespace qeli::client {
Result<transport::UdpSocket, std::string> Connector::open_udp_socket(int family) {
  transport::UdpOptions uo;
  uo.bind = family == AF_INET6 ? *transport::SockAddr::parse_ip("::", cfg_.lport)
                               : transport::SockAddr::ipv4(0, cfg_.lport);
  uo.recv_buffer = cfg_.recv_buffer_size.value_or(0);
  uo.send_buffer = cfg_.send_buffer_size;
  uo.log = [this](std::string_view line) { log_.info("{}", line); };
  uo.protect = core_.env_.protect;
  auto sock = transport::UdpSocket::open(uo);
  if (!sock.ok()) {
    return fail("UDP socket: " + std::string(transport::to_string(sock.error().code)) + " " +
                sock.error().detail);
  }
  return std::move(*sock);
}

handshake::UdpClientConfig Connector::udp_config(wire::UdpObfs* obfs) const {
  handshake::UdpClientConfig uc;
  uc.inner = handshake_config(handshake::our_extensions(handshake::Carrier::kDatagram));
  uc.inner.mode = handshake::Mode::kFakeTls;
  uc.quic = cfg_.quic;
  uc.obfs = obfs;
  uc.junk.count = cfg_.awg ? cfg_.jc : 0;  // `awg` switches the junk on (link `awg=1`)
  uc.junk.min_len = cfg_.jmin;
  uc.junk.max_len = cfg_.jmax;
  return uc;
}

Result<std::chrono::milliseconds, std::string> Connector::probe_datagram(
    std::chrono::milliseconds timeout, int attempts) {
  if (cfg_.proto != config::Transport::kUdp) return fail(std::string("not a UDP profile"));
  if (servers_.empty()) return fail(std::string("no server address"));
  crypto::Rng& rng = crypto::system_rng();
  std::optional<wire::UdpObfs> obfs;
  if (wire::has_layer(*config::mode_spec(cfg_.proto, cfg_.mode), wire::Layer::kObfsSeal)) {
    obfs.emplace(wire::derive_obfs_key(cfg_.obfs_key));
  }
  handshake::UdpClientConfig uc = udp_config(obfs ? &*obfs : nullptr);
  // The probe stops at the server's first datagram, long before the server proves its
  // key: a profile without a pinned key (bind_static's default) probes as well.
  uc.inner.bind_static = false;
  // Every address at once, each on a socket of its own (as 0.7.16: the first to answer
  // wins, the whole probe takes `attempts` × `timeout` at most).
  const std::size_t count = std::min(servers_.size(), kMaxProbeAddresses);
  std::vector<transport::UdpSocket> socks;
  std::vector<transport::SockAddr> peers;
  std::string why;
  for (std::size_t i = 0; i < count; ++i) {
    auto sock = open_udp_socket(servers_[i].family());
    if (!sock.ok()) {
      why = sock.error();  // another family may still work
      continue;
    }
    socks.push_back(std::move(*sock));
    peers.push_back(servers_[i]);
  }
  if (socks.empty()) return fail(why);
  for (int round = 0; round < attempts; ++round) {
    std::vector<std::unique_ptr<handshake::UdpClientHandshake>> hs;
    std::vector<engine::ReplyProbe> probes;
    for (std::size_t i = 0; i < socks.size(); ++i) {
      hs.push_back(std::make_unique<handshake::UdpClientHandshake>(uc, rng));
      probes.push_back({hs.back().get(), &socks[i], peers[i]});
    }
    if (auto t = engine::first_reply_time(probes, timeout, core_.stop_)) return *t;
    if (core_.stop_.stopped()) return fail(std::string("stopped"));
  }
  return fail("no reply from " + endpoint_name_ + " within " + std::to_string(attempts) +
              " attempts of " + std::to_string(timeout.count()) + " ms");
}

Duration Connector::connect_datagram() {
  const engine::StopSignal& stop = core_.stop_;
  if (servers_.empty()) return Duration::zero();
  // Opened for each address's family as the attempts reach it (a failure for one family
  // leaves the addresses of the other).
  std::optional<transport::UdpSocket> sock;
  crypto::Rng& rng = crypto::system_rng();
  // mode=obfs on UDP: the fake-tls flight inside the per-datagram obfs seal.
  std::optional<crypto::Key32> obfs_key;
  if (wire::has_layer(*config::mode_spec(cfg_.proto, cfg_.mode), wire::Layer::kObfsSeal)) {
    obfs_key = wire::derive_obfs_key(cfg_.obfs_key);
  }
  std::optional<wire::UdpObfs> hs_obfs;
  if (obfs_key) hs_obfs.emplace(*obfs_key);

  handshake::UdpClientConfig uc = udp_config(hs_obfs ? &*hs_obfs : nullptr);
  // UDP has no connect that could fail: each address gets a whole handshake within its
  // share of the timeout; only silence moves on to the next address.
  std::unique_ptr<handshake::UdpClientHandshake> done;
  transport::SockAddr peer;
  bool succeeded = false;
  const SteadyClock clock;
  (void)try_in_turn(servers_.size(), uc.inner.timeout, clock, [&](std::size_t i, Duration share) {
    uc.inner.timeout = share;
    // A sent AUTH always gets this long (past the share if need be), so a timeout after
    // AUTH is a silence of at least this: a refusal, counted — never a late admission cut
    // short, which would go uncounted while the server counts it toward a lockout.
    const Duration refusal = std::min<Duration>(kUdpAuthSilenceMeansRefusal, share / 2);
    uc.auth_patience = refusal;
    peer = servers_[i];
    if (!sock || sock->local_address().family() != peer.family()) {
      auto opened = open_udp_socket(peer.family());
      if (!opened.ok()) {
        log_.warn("{}", opened.error());
        return AttemptResult::kNoAnswer;
      }
      sock.emplace(std::move(*opened));
    }
    auto hs = std::make_unique<handshake::UdpClientHandshake>(uc, rng);
    const auto failure = engine::drive_udp_client_handshake(*hs, *sock, peer, stop);
    if (stop.stopped()) return AttemptResult::kStop;
    if (failure == handshake::Failure::kTimeout && !hs->auth_sent() && i + 1 < servers_.size()) {
      log_.warn("no answer from {} within {} ms; trying the next address", peer.to_string(),
                std::chrono::duration_cast<std::chrono::milliseconds>(share).count());
      return AttemptResult::kNoAnswer;
    }
    // Silence after AUTH is how a UDP server refuses (0.7.16).
    succeeded = handshake_succeeded(failure, hs->auth_unanswered_for(clock.now()) >= refusal);
    if (!succeeded) return AttemptResult::kStop;
    server_ = servers_[i];
    done = std::move(hs);
    return AttemptResult::kConnected;
  });
  if (stop.stopped() || !succeeded) return Duration::zero();
  handshake::UdpClientHandshake& hs = *done;
  auto udp = hs.take_session();
  if (!remember_server_key(udp.session)) return Duration::zero();
  const bool close_notify = (udp.session.negotiated_caps & handshake::caps::kCloseNotify) != 0;
  attempt_.aes_gcm = (udp.session.negotiated_caps & handshake::caps::kAesGcm) != 0;
  attempt_.ipv6 = (udp.session.negotiated_caps & handshake::caps::kIpv6Inside) != 0;
  attempt_.caps = udp.session.negotiated_caps;
  // The server follows us to a new address (a NAT rebinding, another network): our
  // nonces carry the session's connection ids from now on (wire/roam_nonce.h).
  if (auto roam = handshake::client_roam_nonces(udp.session)) {
    udp.session.send.set_send_roam(std::move(roam));
  }
  const handshake::AuthOk& ok = *udp.session.auth_ok;
  std::size_t tunnel_mtu = configured_mtu(ok);
  if (cfg_.mtu == 0 && cfg_.mtu_probe) {
    // 0.7.16 §3.9: probe the path (DF set) before the TUN takes an MTU.
    wire::UdpEnvelope env = udp.envelope;
    env.obfs = hs_obfs ? &*hs_obfs : nullptr;
    handshake::MtuProberConfig pc;
    pc.ceiling = tunnel_mtu;
    const auto r = engine::probe_path_mtu(*sock, peer, env, udp.next_packet_number, pc, stop, rng);
    if (stop.stopped()) return Duration::zero();
    log_.info(
        "path MTU probe to {}: tunnel MTU {} ({}; {} probes, {} sizes refused by the "
        "kernel, {} ms; ceiling {})",
        endpoint_name_, r.mtu, handshake::to_string(r.outcome), r.probes, r.refused,
        std::chrono::duration_cast<std::chrono::milliseconds>(r.took).count(), tunnel_mtu);
    if (r.outcome == handshake::MtuProbeOutcome::kFallback && !r.stopped) {
      log_.warn(
          "path MTU probe to {}: no probe was acknowledged; using MTU {}, which fits a "
          "1280-byte path. The path may drop large datagrams or the server may not answer "
          "probes: if traffic stalls, set `mtu` (or &mtu= in the link) to what the path carries",
          endpoint_name_, r.mtu);
    }
    tunnel_mtu = r.mtu;
  }
  return run_tunnel(
      ok, tunnel_mtu, tunio::ReadMode::split, false, &sock->rx_stats(),
      [&](tunio::TunDevice& tun, std::size_t mtu, tunnel::SessionCounters& counters) {
        const crypto::Key32* key = obfs_key ? &*obfs_key : nullptr;
        engine::WireDatagramEnvelope send_env(udp.envelope, key, udp.next_packet_number, rng);
        engine::WireDatagramEnvelope recv_env(udp.envelope, key, 0, rng);
        engine::DatagramFramer framer(*sock, peer, send_env, recv_env);
        tunnel::SessionParams sc = session_params(ok, mtu, close_notify);
        sc.send.max_packet = mtu;  // the TUN is read split: MTU-sized slots
        tunnel::Session ts(std::move(sc), std::move(udp.session.send), std::move(udp.session.recv),
                           framer.room(), rng, counters, nullptr, std::chrono::steady_clock::now());
        ts.peer().close_notify = close_notify;
        ts.peer().aes_gcm = attempt_.aes_gcm;
        ts.peer().ipv6 = attempt_.ipv6;
        engine::TunQueueSource source(tun, counters, attempt_.ipv6);
        return engine::run_session(ts, framer, source, engine::TunWriter{&tun, nullptr}, stop,
                                   clock);
      });
}

}  // namespace qeli::client
