// The UDP side of ProfileRuntime (profile_runtime.h; reference qeli-0.7.16.md §3.9).
//
// Per worker (one per TUN queue, each with its own SO_REUSEPORT socket, so the kernel's
// flow hash pins a client to one worker):
//   1. recvmmsg a batch straight into TUN-write slots (DatagramSource);
//   2. per datagram, by source address: a session's → its DatagramReceiver (open in
//      place) → inbound filter, or, for an MTU probe, a bounded ack (MtuProbeResponder);
//      an AUTH retransmit of a young session → the cached AUTH OK (UdpAuthOkResender);
//      anyone else → that source's half-open UdpServerHandshake
//      (at most kMaxHalfOpen per worker, the oldest evicted — first those without a
//      complete hello; a stranger whose first datagram is not a handshake datagram, or
//      whose hello is over the rate limits, leaves no state and gets nothing back; a new
//      hello's key agreement runs only within the worker's pre-auth crypto budget and
//      the profile's per-source-IP new-session limit);
//   3. the batch is coalesced (finish_batch) and written to the worker's TUN queue;
//   4. AUTH requests go to a thread of their own (lockout, tarpit, Argon2id, admission:
//      admit_client); the verdict comes back through the worker's queue + notifier;
//   5. a sweep (≥ every second) fires handshake timers and ends sessions whose liveness
//      or idle deadline passed or that were kicked / stopped.
#include <poll.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <unordered_map>

#include "engine/datagram_framer.h"
#include "engine/session_loop.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/mtu_probe_responder.h"
#include "handshake/udp_server_handshake.h"
#include "server/auth_context.h"
#include "server/auth_ok_builder.h"
#include "server/new_session_limiter.h"
#include "server/profile_runtime.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "server/token_bucket.h"
#include "sys/log_fields.h"
#include "transport/udp_socket.h"
#include "tunio/tun_device.h"
#include "wire/udp_obfs.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

/// Half-open handshakes per worker (0.7.16: 1024, oldest evicted).
constexpr std::size_t kMaxHalfOpen = 1024;
/// Datagrams per recvmmsg batch.
constexpr std::size_t kWorkerBatch = 64;
/// AUTH verifications (Argon2id threads) in flight per profile; more are rejected.
constexpr int kMaxAuthInFlight = 256;
/// How long after AUTH OK a session's datagrams are checked for AUTH retransmits.
constexpr auto kAuthResendWindow = std::chrono::seconds(10);
/// Pre-auth key agreements (X25519 + ML-KEM-768 for a new ClientHello, run inline on the
/// worker) per second per worker, after a burst of max(64, 4 × cores) (0.7.16 bounds
/// them at that many in flight). A whole fake-tls handshake costs ~0.7 ms of CPU for
/// both ends together (bench/handshake, release), the server's share about half: a
/// distributed flood costs a worker at most ~15 % of a core, and a thousand clients
/// reconnecting at once after a restart still get through within ~2 s (they retransmit
/// every second for 30 s).
constexpr std::uint32_t kPreauthCryptoPerSecond = 500;
std::uint32_t preauth_crypto_burst() {
  return std::max<std::uint32_t>(64, 4 * std::thread::hardware_concurrency());
}

transport::Ipv4Endpoint endpoint_of(const transport::UdpAddr& a) {
  if (a.family() != AF_INET) return {};
  return transport::Ipv4Endpoint::from_sockaddr(a.v4);
}

}  // namespace

/// One authenticated UDP session, owned by its worker.
struct UdpPeer {
  std::shared_ptr<Session> session;
  transport::UdpAddr addr;
  wire::UdpEnvelope hs_env;  ///< the handshake's envelope (worker's obfs): probe acks
  std::unique_ptr<engine::WireDatagramEnvelope> recv_env, send_env;
  /// The sender's framer (the worker receives for all its sessions itself).
  std::unique_ptr<engine::DatagramFramer> framer;
  /// Its receiver() is the worker thread's, its sender() the sender thread's.
  std::unique_ptr<tunnel::Session> tunnel;
  handshake::UdpAuthOkResender resender;
  handshake::MtuProbeResponder probes;
  Instant started;
  std::thread sender;
};

struct HalfOpen {
  std::unique_ptr<handshake::UdpServerHandshake> hs;
  std::uint64_t serial = 0;
  Instant created;
};

struct AuthVerdict {
  transport::UdpAddr addr;
  std::uint64_t serial = 0;
  AuthContext ctx;
  std::optional<handshake::AuthOk> ok;
};

struct UdpWorker {
  std::size_t queue = 0;
  std::optional<transport::UdpSocket> sock;
  std::mutex send_mu;                   ///< held by session senders around sock->send
  std::unique_ptr<wire::UdpObfs> obfs;  ///< the worker thread's seal (handshakes)
  std::unordered_map<transport::UdpAddr, std::unique_ptr<UdpPeer>, transport::UdpAddrHash> peers;
  std::unordered_map<transport::UdpAddr, HalfOpen, transport::UdpAddrHash> half_open;
  std::uint64_t next_serial = 1;
  engine::Notifier wake;  ///< an AUTH verdict arrived or a sender ended
  std::mutex verdict_mu;
  std::vector<AuthVerdict> verdicts;
  tunnel::SessionCounters tun_counters;  ///< TUN write drops of this worker's queue
  /// Pre-auth key agreements this worker may still run (worker thread only).
  TokenBucket preauth_crypto{preauth_crypto_burst(),
                             std::chrono::seconds(1) / kPreauthCryptoPerSecond};
};

void UdpWorkerDeleter::operator()(UdpWorker* w) const { delete w; }

Status<std::string> ProfileRuntime::start_udp(std::uint32_t bind_ip) {
  const auto& p = profile_;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    std::unique_ptr<UdpWorker, UdpWorkerDeleter> w(new UdpWorker);
    w->queue = q;
    transport::UdpOptions uo;
    uo.bind = transport::UdpAddr::from({bind_ip, q == 0 ? p.bind_port : bound_port_});
    uo.reuse_port = true;
    // On the wildcard address, answer each client from the address it contacted.
    uo.pktinfo = bind_ip == 0;
    uo.recv_buffer = p.perf.udp_recv_buffer_size;
    uo.send_buffer = p.perf.udp_send_buffer_size;
    uo.log = [name = p.name, q](std::string_view line) {
      if (q == 0) spdlog::info("[{}] {}", name, line);
    };
    auto sock = transport::UdpSocket::open(uo);
    if (!sock.ok()) {
      return fail("profile " + p.name + ": UDP " +
                  std::string(transport::to_string(sock.error().code)) + " " + sock.error().detail);
    }
    if (q == 0) bound_port_ = sock->local_address().port();
    w->sock.emplace(std::move(*sock));
    if (wire::has_layer(*config::mode_spec(p.transport, p.obf.mode), wire::Layer::kObfsSeal)) {
      w->obfs = std::make_unique<wire::UdpObfs>(std::string_view(p.obf.obfs_key));
    }
    udp_workers_.push_back(std::move(w));
  }
  started_ = true;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_threads_.emplace_back([this, q] { tun_reader(q); });
  }
  for (auto& w : udp_workers_) {
    udp_threads_.emplace_back([this, wp = w.get()] { udp_worker(*wp); });
  }
  spdlog::info("[{}] listening on udp {}:{} ({} mode), TUN {} mtu {} ({} workers)", p.name,
               p.bind_address, bound_port_, config::to_string(p.link_mode()), tun_->name(),
               p.tun.mtu, udp_workers_.size());
  return {};
}

void ProfileRuntime::stop_udp() {
  for (auto& t : udp_threads_) t.join();
  udp_threads_.clear();
}

void ProfileRuntime::udp_worker(UdpWorker& w) {
  const auto& p = profile_;
  crypto::Rng& rng = crypto::system_rng();
  transport::UdpSocket& sock = *w.sock;
  handshake::UdpServerConfig hc;
  hc.inner.mode = handshake::Mode::kFakeTls;
  hc.inner.identity = &identity_;
  hc.inner.bind_static = auth_.bind_static_to_session;
  hc.inner.require_client_key_proof = auth_.require_client_key_proof;
  hc.inner.timeout = p.perf.handshake_timeout;
  hc.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
  hc.obfs = w.obfs.get();
  const crypto::Key32 obfs_key = wire::derive_obfs_key(p.obf.obfs_key);
  const crypto::Key32* session_key = w.obfs ? &obfs_key : nullptr;
  const tunnel::PushedParams pushed = pushed_params(p.obf);
  const Duration half_open_ttl = p.perf.handshake_timeout + std::chrono::seconds(1);

  auto send_to = [&](const std::vector<Bytes>& d, const transport::UdpAddr& to) {
    if (d.empty()) return;
    std::lock_guard lock(w.send_mu);
    engine::send_handshake_datagrams(sock, d, to);
  };

  // AUTH OK was sent: the handshake becomes a session with its own sender thread.
  auto promote = [&](const transport::UdpAddr& addr, HalfOpen& h, AuthContext& ctx) {
    auto udp = h.hs->take_session();
    auto peer = std::make_unique<UdpPeer>();
    UdpPeer& pr = *peer;
    pr.session = ctx.session;
    pr.addr = addr;
    pr.hs_env = udp.envelope;
    pr.hs_env.obfs = w.obfs.get();
    pr.started = Clock::now();
    Session& s = *pr.session;
    pr.send_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, session_key,
                                                                 udp.next_packet_number, rng);
    pr.recv_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, session_key, 0, rng);
    pr.resender = std::move(udp.resender);
    tunnel::SessionParams sc;
    sc.apply(pushed);
    sc.send.mtu = p.tun.mtu;
    sc.send.farewell = farewell_for(s);
    sc.receive.idle_timeout =
        std::chrono::duration_cast<std::chrono::milliseconds>(p.perf.idle_timeout);
    sc.receive.inbound_filter = inbound_filter(&s, p, ctx);
    if (engine::TrafficAccount* acct = s.account.get()) {
      // The worker serves every session of its socket and must not sleep: over the
      // user's upload rate, packets are dropped (the inner TCP adapts).
      sc.receive.inbound_filter = [f = std::move(sc.receive.inbound_filter), acct](ByteSpan pkt) {
        return f(pkt) && acct->admit_receive(pkt.size(), Clock::now());
      };
    }
    sc.receive.offered_caps = hc.inner.extensions;
    sc.receive.on_control = [sp = &s, &p](const wire::ControlFrame& f) {
      on_client_control(*sp, sp->peer_state, f, p.tun.mtu, p.name);
    };
    pr.framer = std::make_unique<engine::DatagramFramer>(sock, pr.addr, *pr.send_env, *pr.recv_env,
                                                         &w.send_mu, kWorkerBatch);
    pr.tunnel = std::make_unique<tunnel::Session>(std::move(sc), std::move(udp.session.send),
                                                  std::move(udp.session.recv), pr.framer->room(),
                                                  rng, s.counters, &s.peer_state, pr.started);
    pr.sender = std::thread([this, &w, &pr] {
      const SteadyClock clock;
      const auto e = engine::run_sender(*pr.tunnel, *pr.framer, pr.session->inbox, pr.session->stop,
                                        clock, 64, pr.session->account.get());
      if (e != tunnel::SessionEnd::kStopped) pr.tunnel->end().set(e);
      pr.session->stop.stop();
      w.wake.notify();
    });
    counters_.sessions_started++;
    const sys::LogFields fields{{"QELI_PROFILE", p.name},
                                {"QELI_USER", s.user},
                                {"QELI_TUNNEL_IP", transport::ipv4_to_string(s.tunnel_ip)},
                                {"QELI_PEER", addr.to_string()}};
    spdlog::info("[{}] {} connected as '{}' → {} (udp{})", p.name, addr.to_string(), s.user,
                 transport::ipv4_to_string(s.tunnel_ip), udp.envelope.quic ? ", QUIC shape" : "");
    note_connected(s);
    w.peers[addr] = std::move(peer);
  };

  // Sends what a handshake emitted, starts its AUTH check, drops or promotes it.
  auto service = [&](const transport::UdpAddr& addr) {
    auto it = w.half_open.find(addr);
    if (it == w.half_open.end()) return;
    HalfOpen& h = it->second;
    send_to(h.hs->take_datagrams(), addr);
    if (auto ev = h.hs->take_event()) {
      auto* auth = std::get_if<handshake::AuthRequest>(&*ev);
      if (auth != nullptr && preauth_.load() >= kMaxAuthInFlight) {
        counters_.over_capacity++;  // verification is the expensive part: shed, silently
        h.hs->reject();
      } else if (auth != nullptr) {
        preauth_++;
        auto v = std::make_shared<AuthVerdict>();
        v->addr = addr;
        v->serial = h.serial;
        v->ctx.req = std::move(*auth);
        v->ctx.peer = endpoint_of(addr);
        spawn([this, &w, v] {
          if (admit_client(v->ctx)) {
            handshake::JoinToken token{};
            crypto::system_rng().fill(token);
            v->ok = build_auth_ok(profile_, v->ctx.user, v->ctx.session->tunnel_ip, token);
          }
          preauth_--;
          std::lock_guard lock(w.verdict_mu);
          w.verdicts.push_back(std::move(*v));
          w.wake.notify();
        });
      } else {
        h.hs->reject();  // stream bonding (JOIN) is TCP-only
      }
    }
    if (h.hs->state() == handshake::State::kFailed) {
      counters_.handshake_failed++;
      w.half_open.erase(it);
    }
  };

  auto on_verdicts = [&] {
    std::vector<AuthVerdict> done;
    {
      std::lock_guard lock(w.verdict_mu);
      done.swap(w.verdicts);
    }
    for (auto& v : done) {
      auto it = w.half_open.find(v.addr);
      if (it == w.half_open.end() || it->second.serial != v.serial) {
        if (v.ctx.session) sessions_->remove(v.ctx.session);  // evicted meanwhile
        continue;
      }
      HalfOpen& h = it->second;
      if (!v.ok) {
        counters_.auth_failed++;
        spdlog::warn("[{}] {} rejected: {} (user '{}')", p.name, v.addr.to_string(), v.ctx.reason,
                     v.ctx.req.user.substr(0, 64));
        h.hs->reject();
        send_to(h.hs->take_datagrams(), v.addr);
        w.half_open.erase(it);
        continue;
      }
      h.hs->accept(std::move(*v.ok));
      send_to(h.hs->take_datagrams(), v.addr);
      if (h.hs->state() == handshake::State::kDone) {
        promote(v.addr, h, v.ctx);
      } else {
        sessions_->remove(v.ctx.session);
        counters_.handshake_failed++;
      }
      w.half_open.erase(it);
    }
  };

  // The gate in front of a new ClientHello's key agreement: the worker's crypto budget
  // (a distributed flood), then the profile's per-source-IP new-session limit (one host);
  // a refusal is silent and counted. A budget token is spent only on an admitted hello.
  auto admit_hello = [this, &w](std::uint32_t ip, Instant now) {
    if (!w.preauth_crypto.available(now)) {
      counters_.preauth_crypto_shed++;
      return false;
    }
    if (!new_sessions_->admit(ip, now)) {
      counters_.new_session_rate_limited++;
      return false;
    }
    return w.preauth_crypto.take(now);
  };

  auto handshake_datagram = [&](const transport::UdpAddr& addr, MutableByteSpan d, Instant now) {
    auto it = w.half_open.find(addr);
    const bool fresh = it == w.half_open.end();
    if (fresh) {
      if (w.half_open.size() >= kMaxHalfOpen) {
        // The oldest one that has not got as far as a key agreement (a flood of partial
        // hellos then never pushes out a real client waiting for its AUTH verdict);
        // failing that, the oldest.
        auto oldest = w.half_open.begin(), oldest_idle = w.half_open.end();
        for (auto j = w.half_open.begin(); j != w.half_open.end(); ++j) {
          if (j->second.created < oldest->second.created) oldest = j;
          if (!j->second.hs->has_hello() && (oldest_idle == w.half_open.end() ||
                                             j->second.created < oldest_idle->second.created)) {
            oldest_idle = j;
          }
        }
        w.half_open.erase(oldest_idle != w.half_open.end() ? oldest_idle : oldest);
        counters_.udp_half_open_evicted++;
      }
      HalfOpen h;
      handshake::UdpServerConfig c = hc;
      c.admit_hello = [&admit_hello, ip = new_session_key(addr)](Instant t) {
        return admit_hello(ip, t);
      };
      h.hs = std::make_unique<handshake::UdpServerHandshake>(c, rng);
      h.serial = w.next_serial++;
      h.created = now;
      it = w.half_open.emplace(addr, std::move(h)).first;
    }
    handshake::UdpServerHandshake& hs = *it->second.hs;
    hs.on_datagram(d, now);
    // Not a handshake datagram, or a hello over the limits: a stranger leaves no state
    // (and cannot push a real client's half-open handshake out of the table).
    if ((fresh && hs.dropped() > 0) || (!hs.has_hello() && hs.refused() > 0)) {
      w.half_open.erase(it);
      return;
    }
    service(addr);
  };

  // True if `d` is a byte-identical AUTH retransmit of a young session (answered here).
  // The client re-sends the very AUTH datagram it sent (seal nonce and all), so a data
  // datagram costs one size compare here: nothing is copied or opened.
  auto auth_resend = [&](UdpPeer& pr, ByteSpan d, Instant now) {
    if (pr.resender.reemits_left() <= 0 || now - pr.started > kAuthResendWindow) return false;
    auto reply = pr.resender.on_datagram(d);
    if (reply.empty()) return false;
    send_to(reply, pr.addr);
    return true;
  };

  // An MTU probe from an authenticated session (strangers' probes go to a handshake,
  // which drops them): the ack, bounded per session, in the handshake's envelope.
  auto answer_probe = [&](UdpPeer& pr, ByteSpan inner, Instant now) {
    const Bytes ack = pr.probes.on_probe(inner, now);
    if (!ack.empty()) send_to({pr.hs_env.wrap(ack, true, 0, rng)}, pr.addr);
  };

  auto end_peer = [&](std::unordered_map<transport::UdpAddr, std::unique_ptr<UdpPeer>,
                                         transport::UdpAddrHash>::iterator it) {
    UdpPeer& pr = *it->second;
    pr.session->stop.stop();
    if (pr.sender.joinable()) pr.sender.join();
    sessions_->remove(pr.session);
    const auto& c = pr.session->counters;
    const std::string why = describe_end(*pr.session, pr.tunnel->end().get());
    const sys::LogFields fields{
        {"QELI_PROFILE", p.name},
        {"QELI_USER", pr.session->user},
        {"QELI_TUNNEL_IP", transport::ipv4_to_string(pr.session->tunnel_ip)}};
    spdlog::info("[{}] '{}' ({}) disconnected: {} (rx {} pkts, tx {} pkts, drops: {})", p.name,
                 pr.session->user, transport::ipv4_to_string(pr.session->tunnel_ip), why,
                 c.get(tunnel::SessionCounter::kRxPackets),
                 c.get(tunnel::SessionCounter::kTxPackets), tunnel::describe_drops(c));
    note_ended(*pr.session, why);
    return w.peers.erase(it);
  };

  auto sweep = [&](Instant now) {
    for (auto it = w.half_open.begin(); it != w.half_open.end();) {
      HalfOpen& h = it->second;
      if (auto d = h.hs->deadline(); d && now >= *d) {
        h.hs->on_timer(now);
        send_to(h.hs->take_datagrams(), it->first);
      }
      if (h.hs->state() == handshake::State::kFailed || now - h.created > half_open_ttl) {
        it = w.half_open.erase(it);
      } else {
        ++it;
      }
    }
    for (auto it = w.peers.begin(); it != w.peers.end();) {
      UdpPeer& pr = *it->second;
      const auto t = pr.tunnel->receiver().on_timer(now);
      if (t != tunnel::SessionEnd::kStopped) pr.tunnel->end().set(t);
      if (t == tunnel::SessionEnd::kIdle) pr.session->end(wire::CloseReason::kIdle);
      if (t != tunnel::SessionEnd::kStopped || pr.session->stop.stopped()) {
        it = end_peer(it);
      } else {
        ++it;
      }
    }
  };

  engine::DatagramSource source(kWorkerBatch);
  tunio::PacketBatch batch = engine::DatagramSource::make_batch(kWorkerBatch);
  std::vector<bool> keep;
  tunio::GroOptions gro;
  gro.udp = true;
  tunio::GroTable gro_table(kWorkerBatch);
  tunio::TunQueue dev(*tun_, w.queue);
  engine::TunWriter tun{&dev, tun_write_mu_[w.queue].get()};
  Instant last_sweep = Clock::now();
  while (!stop_.stopped()) {
    pollfd pf[3] = {{sock.fd(), POLLIN, 0}, {stop_.fd(), POLLIN, 0}, {w.wake.fd(), POLLIN, 0}};
    if (::poll(pf, 3, w.half_open.empty() ? 1000 : 100) < 0 && errno != EINTR) break;
    if (pf[1].revents != 0) break;
    if (pf[2].revents != 0) {
      w.wake.drain();
      on_verdicts();
    }
    for (int round = 0; pf[0].revents != 0 && round < 16; ++round) {
      batch.clear();
      auto r = source.receive(sock, batch);
      if (!r.ok()) {
        if (r.error() != transport::UdpError::kWouldBlock) {
          spdlog::error("[{}] UDP receive failed: {}", p.name, transport::to_string(r.error()));
        }
        break;
      }
      const Instant now = Clock::now();
      keep.assign(batch.size(), false);
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const transport::UdpAddr& from = source.from(i);
        auto it = w.peers.find(from);
        if (it == w.peers.end()) {
          handshake_datagram(from, batch.packet(i), now);
          continue;
        }
        UdpPeer& pr = *it->second;
        if (auth_resend(pr, batch.packet(i), now)) continue;
        // The inbound filter runs inside the session's Receiver.
        const auto outcome =
            engine::DatagramFramer::open(pr.tunnel->receiver(), *pr.recv_env, batch, i, now);
        if (outcome == engine::DatagramOutcome::kPacket) {
          keep[i] = true;
        } else if (outcome == engine::DatagramOutcome::kProbe) {
          answer_probe(pr, batch.packet(i), now);
        }
      }
      engine::finish_batch(batch, keep, gro, gro_table);
      if (!batch.empty()) {
        engine::flush_tun(tun, batch, stop_, w.tun_counters);
      }
    }
    const Instant now = Clock::now();
    if (now - last_sweep >= std::chrono::milliseconds(100) || pf[2].revents != 0) {
      sweep(now);
      last_sweep = now;
    }
  }
  for (auto it = w.peers.begin(); it != w.peers.end();) it = end_peer(it);
  w.half_open.clear();
}

}  // namespace qeli::server
