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
//      or idle deadline passed or that were kicked / stopped;
//   6. roaming (caps::kRoam, docs/PROTOCOL.md §20): a record from an unknown address whose
//      nonce carries a session's connection id (RoamIndex) is opened by that session; only
//      if it passes the AEAD and the replay window does the session move to the address
//      (no handshake). When the kernel hashed the new address to another worker, the
//      owner checks the datagram it was handed and then hands the session itself over.
#include <poll.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/datagram_framer.h"
#include "engine/session_loop.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/mtu_probe_responder.h"
#include "handshake/udp_server_handshake.h"
#include "server/auth_context.h"
#include "server/auth_ok_builder.h"
#include "server/listen_addresses.h"
#include "server/new_session_limiter.h"
#include "server/profile_runtime.h"
#include "server/roam_index.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "server/token_bucket.h"
#include "sys/log_fields.h"
#include "transport/udp_socket.h"
#include "tunio/tun_device.h"
#include "wire/roam_nonce.h"
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
/// Datagrams for another worker's sessions waiting in its hand-off queue (more: dropped;
/// only a roam's first datagrams travel so, until the session itself has moved).
constexpr std::size_t kMaxHandoffs = 256;
/// Roaming candidates (a datagram from a new address naming a session's CID) a worker
/// opens per second, after a burst: each costs an AEAD open, and a user could resend its
/// own datagrams from many ports. A real roam needs one.
constexpr std::uint32_t kRoamOpensPerSecond = 2000;
constexpr std::uint32_t kRoamOpenBurst = 256;
/// How often one datagram may be passed on between workers (its session moving meanwhile).
constexpr std::uint8_t kMaxHandoffHops = 2;
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

}  // namespace

/// One authenticated UDP session, owned by its worker.
struct UdpPeer {
  std::shared_ptr<Session> session;
  transport::SockAddr addr;
  wire::UdpEnvelope hs_env;  ///< the handshake's envelope (worker's obfs): probe acks
  std::unique_ptr<engine::WireDatagramEnvelope> recv_env, send_env;
  /// The sender's framer (the worker receives for all its sessions itself).
  std::unique_ptr<engine::DatagramFramer> framer;
  /// Its receiver() is the worker thread's, its sender() the sender thread's.
  std::unique_ptr<tunnel::Session> tunnel;
  handshake::UdpAuthOkResender resender;
  handshake::MtuProbeResponder probes;
  Instant started;
  /// The mutex its framer holds around the socket (the creating worker's): `addr` is
  /// written under it, since the sender thread reads it there.
  std::mutex* send_mu = nullptr;
  /// The worker that owns it now (the sender wakes it when it ends).
  std::atomic<engine::Notifier*> owner_wake{nullptr};
  /// Roaming: the session secret its connection ids come from, and the epoch last seen.
  std::shared_ptr<const crypto::Key32> roam_secret;
  std::uint32_t roam_epoch = 0;  ///< the CID epoch its index window starts at
  /// The client's path number as of its last roam: its epoch is path + counter / 2^32.
  std::uint32_t roam_path = 0;
  std::thread sender;
};

/// A datagram that arrived at one worker for a session another one owns.
struct RoamHandoff {
  transport::SockAddr from;
  std::size_t arrived_at = 0;  ///< the worker whose socket the new address hashes to
  Bytes datagram;
  std::uint8_t hops = 0;
};

struct HalfOpen {
  std::unique_ptr<handshake::UdpServerHandshake> hs;
  std::uint64_t serial = 0;
  Instant created;
};

struct AuthVerdict {
  transport::SockAddr addr;
  std::uint64_t serial = 0;
  AuthContext ctx;
  std::optional<handshake::AuthOk> ok;
};

struct UdpWorker {
  std::size_t queue = 0;  ///< the TUN queue it writes to
  std::size_t id = 0;     ///< its index in udp_workers_ (roaming hand-overs name it)
  std::optional<transport::UdpSocket> sock;
  std::mutex send_mu;                   ///< held by session senders around sock->send
  std::unique_ptr<wire::UdpObfs> obfs;  ///< the worker thread's seal (handshakes)
  std::unordered_map<transport::SockAddr, std::unique_ptr<UdpPeer>, transport::SockAddrHash> peers;
  std::unordered_map<transport::SockAddr, HalfOpen, transport::SockAddrHash> half_open;
  /// Roaming (null when the profile has it off): the profile's CID index, and the
  /// permutation that hides a CID in a nonce (keyed by the profile's static key).
  std::shared_ptr<RoamIndex> roam;
  std::unique_ptr<crypto::NoncePrp> roam_prp;
  std::mutex handoff_mu;
  bool closed = false;                ///< its loop ended: no more hand-offs
  std::vector<RoamHandoff> handoffs;  ///< datagrams for its sessions
  /// Hand-offs arrived (apart from `wake`, whose verdicts and session ends also sweep).
  engine::Notifier handoff_wake;
  TokenBucket roam_opens = TokenBucket::per_second(kRoamOpenBurst, kRoamOpensPerSecond);
  std::vector<std::unique_ptr<UdpPeer>> adopt;  ///< sessions that roamed onto its flows
  /// The sessions in `peers` (worker thread only): a RoamIndex hit is dereferenced only
  /// when it is one of them (a session being handed over is no one's for a moment).
  std::unordered_set<const UdpPeer*> owned;
  std::uint64_t next_serial = 1;
  engine::Notifier wake;  ///< an AUTH verdict arrived or a sender ended
  std::mutex verdict_mu;
  std::vector<AuthVerdict> verdicts;
  tunnel::SessionCounters tun_counters;  ///< TUN write drops of this worker's queue
  /// Pre-auth key agreements this worker may still run (worker thread only).
  TokenBucket preauth_crypto =
      TokenBucket::per_second(preauth_crypto_burst(), kPreauthCryptoPerSecond);
};

void UdpWorkerDeleter::operator()(UdpWorker* w) const { delete w; }

Status<std::string> ProfileRuntime::start_udp(const std::vector<transport::SockAddr>& addrs) {
  const auto& p = profile_;
  // One SO_REUSEPORT socket and worker per TUN queue on every listener address. A session
  // stays on its listener's sockets (its replies must come from the address and port the
  // client dialed), so each listener has its own roaming index: a client roams between
  // the workers of one listener.
  for (std::size_t l = 0; l < addrs.size(); ++l) {
    std::shared_ptr<RoamIndex> roam = p.roaming ? std::make_shared<RoamIndex>() : nullptr;
    for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
      std::unique_ptr<UdpWorker, UdpWorkerDeleter> w(new UdpWorker);
      w->queue = q;
      w->id = udp_workers_.size();
      transport::UdpOptions uo;
      // The first socket of the main listener may take an ephemeral port (tests); its
      // siblings join the port it got.
      uo.bind = l == 0 && q != 0 ? addrs[0].with_port(bound_port_) : addrs[l];
      uo.reuse_port = true;
      // On a wildcard address, answer each client from the address it contacted.
      uo.pktinfo = addrs[l].is_unspecified();
      uo.recv_buffer = p.perf.udp_recv_buffer_size;
      uo.send_buffer = p.perf.udp_send_buffer_size;
      uo.log = [name = p.name, first = w->id == 0](std::string_view line) {
        if (first) spdlog::info("[{}] {}", name, line);
      };
      auto sock = transport::UdpSocket::open(uo);
      if (!sock.ok()) {
        return fail("profile " + p.name + ": UDP " +
                    std::string(transport::to_string(sock.error().code)) + " " +
                    sock.error().detail);
      }
      if (w->id == 0) bound_port_ = sock->local_address().port();
      w->sock.emplace(std::move(*sock));
      if (wire::has_layer(*config::mode_spec(p.transport, p.obf.mode), wire::Layer::kObfsSeal)) {
        w->obfs = std::make_unique<wire::UdpObfs>(std::string_view(p.obf.obfs_key));
      }
      if (roam) {
        w->roam = roam;
        w->roam_prp = std::make_unique<crypto::NoncePrp>(
            crypto::NoncePrp::FromPrpKey{}, wire::roam_prp_key(identity_.private_key).span());
      }
      udp_workers_.push_back(std::move(w));
    }
  }
  started_ = true;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_threads_.emplace_back([this, q] { tun_reader(q); });
  }
  for (auto& w : udp_workers_) {
    udp_threads_.emplace_back([this, wp = w.get()] { udp_worker(*wp); });
  }
  spdlog::info("[{}] listening on udp {} ({} mode), TUN {} mtu {} ({} workers)", p.name,
               describe_listeners(addrs, bound_port_), config::to_string(p.link_mode()),
               tun_->name(), p.tun.mtu, udp_workers_.size());
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
  if (!w.roam) hc.inner.extensions &= ~handshake::caps::kRoam;
  if (!p.pool.ipv6) hc.inner.extensions &= ~handshake::caps::kIpv6Inside;
  hc.obfs = w.obfs.get();
  const crypto::Key32 obfs_key = wire::derive_obfs_key(p.obf.obfs_key);
  // Roaming: the nonce key every authenticated client of the profile gets in AUTH OK.
  const std::string roam_key_hex =
      w.roam ? to_hex(wire::roam_prp_key(identity_.private_key).span()) : std::string();
  const crypto::Key32* session_key = w.obfs ? &obfs_key : nullptr;
  const tunnel::PushedParams pushed = pushed_params(p.obf);
  const Duration half_open_ttl = p.perf.handshake_timeout + std::chrono::seconds(1);

  auto send_to = [&](const std::vector<Bytes>& d, const transport::SockAddr& to) {
    if (d.empty()) return;
    std::lock_guard lock(w.send_mu);
    engine::send_handshake_datagrams(sock, d, to);
  };

  // AUTH OK was sent: the handshake becomes a session with its own sender thread.
  auto promote = [&](const transport::SockAddr& addr, HalfOpen& h, AuthContext& ctx) {
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
    pr.send_mu = &w.send_mu;
    pr.owner_wake = &w.wake;
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
    pr.sender = std::thread([&pr] {
      const SteadyClock clock;
      const auto e = engine::run_sender(*pr.tunnel, *pr.framer, pr.session->inbox, pr.session->stop,
                                        clock, 64, pr.session->account.get());
      if (e != tunnel::SessionEnd::kStopped) pr.tunnel->end().set(e);
      pr.session->stop.stop();
      pr.owner_wake.load()->notify();
    });
    if (w.roam && ctx.req.join_secret) {
      pr.roam_secret = ctx.req.join_secret;
      w.roam->publish(&pr, w.id, *pr.roam_secret, 0);
    }
    counters_.sessions_started++;
    const sys::LogFields fields{{"QELI_PROFILE", p.name},
                                {"QELI_USER", s.user},
                                {"QELI_TUNNEL_IP", transport::ipv4_to_string(s.tunnel_ip)},
                                {"QELI_PEER", addr.to_string()}};
    spdlog::info("[{}] {} connected as '{}' → {} (udp{})", p.name, addr.to_string(), s.user,
                 transport::ipv4_to_string(s.tunnel_ip), udp.envelope.quic ? ", QUIC shape" : "");
    note_connected(s);
    w.owned.insert(peer.get());
    w.peers[addr] = std::move(peer);
  };

  // Sends what a handshake emitted, starts its AUTH check, drops or promotes it.
  auto service = [&](const transport::SockAddr& addr) {
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
        v->ctx.peer = addr;
        spawn([this, &w, v, roam_key_hex] {
          if (admit_client(v->ctx)) {
            handshake::JoinToken token{};
            crypto::system_rng().fill(token);
            v->ok = build_auth_ok(profile_, v->ctx.user, v->ctx.session->tunnel_ip, token,
                                  destination_acl(v->ctx).allows_some_ipv6());
            if (w.roam) v->ok->x_roam_key = roam_key_hex;
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
  auto admit_hello = [this, &w](SourceKey ip, Instant now) {
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

  auto handshake_datagram = [&](const transport::SockAddr& addr, MutableByteSpan d, Instant now) {
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
      c.admit_hello = [&admit_hello, ip = source_key(addr)](Instant t) {
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

  auto end_peer = [&](std::unordered_map<transport::SockAddr, std::unique_ptr<UdpPeer>,
                                         transport::SockAddrHash>::iterator it) {
    UdpPeer& pr = *it->second;
    if (w.roam) w.roam->remove(&pr);
    w.owned.erase(&pr);
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
      if (pr.roam_secret) {
        // Every 2^32 records the client's CID epoch moves on by itself: so does the window.
        const auto epoch = pr.roam_path + static_cast<std::uint32_t>(
                                              pr.tunnel->receiver().highest_counter() >> 32);
        if (epoch > pr.roam_epoch) {
          pr.roam_epoch = epoch;
          w.roam->publish(&pr, w.id, *pr.roam_secret, epoch);
        }
      }
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

  // ---- Roaming (docs/PROTOCOL.md §20) ----
  tunio::PacketBatch one = engine::DatagramSource::make_batch(1);

  // The connection id in a datagram from an unknown address (the datagram itself stays
  // as it came, for a handshake or the session's own envelope).
  auto roam_id_of = [&](ByteSpan d) {
    return wire::roam_id_in_datagram(d, w.obfs.get(), *w.roam_prp);
  };

  // Files a session under `at` (its address); one that was there ends (two sessions
  // cannot share an address, and the newer one just proved itself).
  auto place = [&](std::unique_ptr<UdpPeer> up) {
    const transport::SockAddr at = up->addr;
    if (auto old = w.peers.find(at); old != w.peers.end()) end_peer(old);
    w.half_open.erase(at);
    w.owned.insert(up.get());
    w.peers.emplace(at, std::move(up));
  };
  // Re-files this worker's session from `was` to its new address.
  // (its addr already says where).
  auto rekey = [&](const transport::SockAddr& was) {
    auto node = w.peers.extract(was);
    if (!node.empty()) place(std::move(node.mapped()));
  };
  // This worker's sessions that roamed onto flows the kernel hashes to it.
  auto adopt_pending = [&] {
    std::vector<std::unique_ptr<UdpPeer>> adopted;
    {
      std::lock_guard lock(w.handoff_mu);
      adopted.swap(w.adopt);
    }
    for (auto& up : adopted) {
      up->owner_wake = &w.wake;
      up->hs_env.obfs = w.obfs.get();  // probe acks: this thread's seal, not the creator's
      place(std::move(up));
    }
  };

  // Points the session at its new address (under its framer's lock: the sender reads it
  // there) and moves its CID window on when the client started a new epoch.
  auto move_to = [&](UdpPeer& pr, const transport::SockAddr& to, std::uint32_t epoch,
                     std::size_t owner) {
    const transport::SockAddr was = pr.addr;
    {
      std::lock_guard lock(*pr.send_mu);
      pr.addr = to;
    }
    if (epoch > pr.roam_epoch) pr.roam_epoch = epoch;
    const auto hi = static_cast<std::uint32_t>(pr.tunnel->receiver().highest_counter() >> 32);
    pr.roam_path = epoch >= hi ? epoch - hi : 0;
    w.roam->publish(&pr, owner, *pr.roam_secret, pr.roam_epoch);
    counters_.udp_roams++;
    pr.session->note_roam(to);
    spdlog::info("[{}] '{}' ({}) roamed {} → {} (epoch {}{}, no new handshake)", p.name,
                 pr.session->user, transport::ipv4_to_string(pr.session->tunnel_ip),
                 was.to_string(), to.to_string(), pr.roam_epoch,
                 owner == w.id ? "" : fmt::format(", worker {} → {}", w.id, owner));
  };

  // Opens a roaming candidate's datagram (slot i of `b`) with the session's own envelope
  // and receiver: true if it was authentic and fresh (AEAD and replay window passed) and
  // the newest the session has had (QUIC's rule, RFC 9000 §9.3: a late, reordered
  // datagram from an address the client left is delivered but moves nothing).
  auto roam_open = [&](UdpPeer& pr, tunio::PacketBatch& b, std::size_t i, Instant now,
                       bool& packet) {
    tunnel::Receiver& rx = pr.tunnel->receiver();
    const std::uint64_t top = rx.highest_counter();
    const auto outcome = engine::DatagramFramer::open(rx, *pr.recv_env, b, i, now);
    packet = outcome == engine::DatagramOutcome::kPacket;
    // The window's top rose only for an authentic, fresh record, whatever became of its
    // content (an inbound filter may still drop it: the client moved all the same).
    if (rx.highest_counter() > top) return true;
    if (outcome == engine::DatagramOutcome::kDropped ||
        outcome == engine::DatagramOutcome::kProbe) {
      counters_.udp_roams_refused++;  // forged, replayed, late or not a record: nothing moves
    }
    return false;
  };

  auto handoff_to = [&](std::size_t worker, RoamHandoff h) {
    if (h.hops++ >= kMaxHandoffHops) return;
    UdpWorker& o = *udp_workers_[worker];
    {
      std::lock_guard lock(o.handoff_mu);
      if (o.closed || o.handoffs.size() >= kMaxHandoffs) return;
      o.handoffs.push_back(std::move(h));
    }
    o.handoff_wake.notify();
  };

  // A datagram from an address no session or handshake of this worker has: true if it
  // was a roaming session's (taken here or handed to its owner), false for a stranger's
  // (it goes on to the handshake path).
  auto roam_datagram = [&](const transport::SockAddr& from, tunio::PacketBatch& b, std::size_t i,
                           Instant now) {
    if (!w.roam || w.half_open.contains(from)) return false;
    const auto id = roam_id_of(b.packet(i));
    if (!id) return false;
    const auto hit = w.roam->find(id->cid);
    if (!hit) return false;
    if (!w.roam_opens.take(now)) {
      counters_.udp_roams_refused++;  // over this worker's budget: dropped unopened
      return true;
    }
    if (hit->worker != w.id) {
      const ByteSpan d = b.packet(i);
      handoff_to(hit->worker, RoamHandoff{from, w.id, Bytes(d.begin(), d.end())});
      return true;
    }
    auto* pp = static_cast<UdpPeer*>(hit->peer);
    if (!w.owned.contains(pp)) {
      adopt_pending();  // handed to us a moment ago?
      if (!w.owned.contains(pp)) return true;
    }
    bool packet = false;
    if (pp->addr == from) {
      // Handed over just now, already at this address: an ordinary datagram of it.
      packet = engine::DatagramFramer::open(pp->tunnel->receiver(), *pp->recv_env, b, i, now) ==
               engine::DatagramOutcome::kPacket;
      keep[i] = packet;
      return true;
    }
    if (!roam_open(*pp, b, i, now, packet)) {
      keep[i] = packet;
      return true;
    }
    const transport::SockAddr was = pp->addr;
    move_to(*pp, from, hit->epoch, w.id);
    rekey(was);
    keep[i] = packet;
    return true;
  };

  // Datagrams other workers received for this worker's sessions, and sessions they hand
  // over. A checked datagram moves its session: to the worker it arrived at.
  auto on_handoffs = [&](Instant now) {
    std::vector<RoamHandoff> got;
    {
      std::lock_guard lock(w.handoff_mu);
      got.swap(w.handoffs);
    }
    adopt_pending();
    for (auto& h : got) {
      const auto id = roam_id_of(h.datagram);
      const auto hit = id ? w.roam->find(id->cid) : std::nullopt;
      if (!hit) continue;  // its session ended meanwhile
      if (hit->worker != w.id) {
        handoff_to(hit->worker, std::move(h));  // it moved on: to its owner now
        continue;
      }
      if (!w.owned.contains(static_cast<UdpPeer*>(hit->peer))) {
        adopt_pending();  // on its way to us?
        if (!w.owned.contains(static_cast<UdpPeer*>(hit->peer))) continue;
      }
      UdpPeer& pr = *static_cast<UdpPeer*>(hit->peer);
      one.clear();
      const MutableByteSpan slot = one.next_slot();
      if (slot.size() < h.datagram.size()) continue;
      std::memcpy(slot.data(), h.datagram.data(), h.datagram.size());
      one.commit(h.datagram.size());
      bool packet = false;
      const bool newest = roam_open(pr, one, 0, now, packet);
      const transport::SockAddr was = pr.addr;
      if (!newest || was == h.from) {
        // A late one, or it moved there with an earlier datagram: nothing to move.
      } else if (h.arrived_at == w.id) {
        move_to(pr, h.from, hit->epoch, w.id);
        rekey(was);
      } else {
        // The kernel hashes the new address to that worker: the session goes there
        // (its sender keeps this worker's socket and lock; every worker's socket has
        // the same address and port).
        UdpWorker& to = *udp_workers_[h.arrived_at];
        auto node = w.peers.extract(was);
        if (node.empty()) continue;
        std::unique_ptr<UdpPeer> up = std::move(node.mapped());
        w.owned.erase(up.get());
        move_to(pr, h.from, hit->epoch, h.arrived_at);
        {
          std::lock_guard lock(to.handoff_mu);
          if (!to.closed) to.adopt.push_back(std::move(up));
        }
        if (!up) {
          to.handoff_wake.notify();
        } else {  // that worker is stopping: keep it here
          w.roam->move(&pr, w.id);
          place(std::move(up));
        }
      }
      if (packet) {
        const std::vector<bool> keep_one{true};
        engine::finish_batch(one, keep_one, gro, gro_table);
        engine::flush_tun(tun, one, stop_, w.tun_counters);
      }
    }
  };

  Instant last_sweep = Clock::now();
  while (!stop_.stopped()) {
    pollfd pf[4] = {{sock.fd(), POLLIN, 0},
                    {stop_.fd(), POLLIN, 0},
                    {w.wake.fd(), POLLIN, 0},
                    {w.handoff_wake.fd(), POLLIN, 0}};
    if (::poll(pf, 4, w.half_open.empty() ? 1000 : 100) < 0 && errno != EINTR) break;
    if (pf[1].revents != 0) break;
    if (pf[2].revents != 0) {
      w.wake.drain();
      on_verdicts();
    }
    if (pf[3].revents != 0) {
      w.handoff_wake.drain();
      on_handoffs(Clock::now());
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
        const transport::SockAddr& from = source.from(i);
        auto it = w.peers.find(from);
        if (it == w.peers.end()) {
          if (!roam_datagram(from, batch, i, now)) handshake_datagram(from, batch.packet(i), now);
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
  {
    // No session is handed to this worker from now on; those already on their way stay.
    std::vector<std::unique_ptr<UdpPeer>> adopted;
    {
      std::lock_guard lock(w.handoff_mu);
      w.closed = true;
      adopted.swap(w.adopt);
      w.handoffs.clear();
    }
    for (auto& up : adopted) place(std::move(up));
  }
  for (auto it = w.peers.begin(); it != w.peers.end();) it = end_peer(it);
  w.half_open.clear();
}

}  // namespace qeli::server
