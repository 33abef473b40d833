// UdpWorker's handshakes, sessions and loop (the pipeline is drawn in udp_worker.h;
// roaming is in udp_worker_roaming.cc).
#include "server/udp_worker.h"

#include <poll.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <variant>

#include "config/modes.h"
#include "engine/session_loop.h"
#include "engine/udp_handshake_driver.h"
#include "server/session_end.h"
#include "server/session_policy.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

/// Half-open handshakes per worker (0.7.16: 1024, oldest evicted).
constexpr std::size_t kMaxHalfOpen = 1024;
/// Datagrams per recvmmsg batch.
constexpr std::size_t kWorkerBatch = 64;
/// recvmmsg batches per wake-up before timers and verdicts get their turn.
constexpr int kBatchesPerWake = 16;
/// How long after AUTH OK a session's datagrams are checked for AUTH retransmits.
constexpr auto kAuthResendWindow = std::chrono::seconds(10);
/// The least time between two sweeps of sessions' deadlines and handshakes' timers
/// while datagrams keep the loop busy (an idle loop sweeps on its poll timeout: 1 s, or
/// 100 ms while handshakes are half-open).
constexpr auto kSweepEvery = std::chrono::milliseconds(100);
/// Roaming candidates (a datagram from a new address naming a session's CID) a worker
/// opens per second, after a burst: each costs an AEAD open, and a user could resend its
/// own datagrams from many ports. A real roam needs one.
constexpr std::uint32_t kRoamOpensPerSecond = 2000;
constexpr std::uint32_t kRoamOpenBurst = 256;
/// Pre-auth key agreements (X25519 + ML-KEM-768 for a new ClientHello, run inline on the
/// worker) per second per worker, after a burst of max(64, 4 × cores) (0.7.16 bounds
/// them at that many in flight). A whole fake-tls handshake costs ~0.7 ms of CPU for
/// both ends together (bench/handshake, release), the server's share about half: a
/// distributed flood costs a worker at most ~15 % of a core, and a thousand clients
/// reconnecting at once after a restart still get through within ~2 s (they retransmit
/// every second for 30 s).
constexpr std::uint32_t kPreauthCryptoPerSecond = 500;
/// Cookie challenges (msg 7, ~30–60 bytes each) per second per worker, after a burst: a
/// flood of hellos with markers from spoofed sources gets this many answers at most (an
/// HMAC and a send each), far smaller than what it sends; a real client whose hello
/// found none retransmits within ~1.1 s and asks again.
constexpr std::uint32_t kCookieChallengesPerSecond = 1000;
constexpr std::uint32_t kCookieChallengeBurst = 128;
std::uint32_t preauth_crypto_burst() {
  return std::max<std::uint32_t>(64, 4 * std::thread::hardware_concurrency());
}

}  // namespace

UdpWorker::UdpWorker(UdpWorkerHost& host, transport::UdpSocket socket, UdpWorkerSetup setup)
    : host_(host),
      id_(setup.id),
      p_(*setup.profile),
      counters_(*setup.counters),
      stop_(*setup.stop),
      rng_(crypto::system_rng()),
      sock_(std::move(socket)),
      hc_(std::move(setup.handshake)),
      pushed_(pushed_params(p_.obf)),
      half_open_ttl_(p_.perf.handshake_timeout + std::chrono::seconds(1)),
      half_open_(kMaxHalfOpen),
      verify_budget_(setup.verify_budget),
      preauth_crypto_(TokenBucket::per_second(preauth_crypto_burst(), kPreauthCryptoPerSecond)),
      cookies_(verify_budget_ != nullptr && hc_.inner.extensions != 0),
      cookie_jar_(rng_, Clock::now()),
      challenges_(TokenBucket::per_second(kCookieChallengeBurst, kCookieChallengesPerSecond)),
      roam_(std::move(setup.roam)),
      roam_opens_(TokenBucket::per_second(kRoamOpenBurst, kRoamOpensPerSecond)),
      tun_dev_(std::move(setup.tun)),
      tun_{tun_dev_.get(), setup.tun_mu},
      source_(kWorkerBatch),
      batch_(engine::DatagramSource::make_batch(kWorkerBatch)),
      one_(engine::DatagramSource::make_batch(1)),
      gro_table_(kWorkerBatch) {
  if (wire::has_layer(*config::mode_spec(p_.transport, p_.obf.mode), wire::Layer::kObfsSeal)) {
    obfs_ = std::make_unique<wire::UdpObfs>(std::string_view(p_.obf.obfs_key));
    obfs_key_.emplace(wire::derive_obfs_key(p_.obf.obfs_key));
  }
  hc_.obfs = obfs_.get();
  if (!roam_) hc_.inner.extensions &= ~handshake::caps::kRoam;
  if (roam_) {
    roam_prp_ = std::make_unique<crypto::NoncePrp>(
        crypto::NoncePrp::FromPrpKey{}, wire::roam_prp_key(hc_.inner.identity->private_key).span());
  }
  gro_.udp = true;
}

UdpWorker::~UdpWorker() = default;

void UdpWorker::run() {
  Instant last_sweep = Clock::now();
  while (!stop_.stopped()) {
    pollfd pf[4] = {{sock_.fd(), POLLIN, 0},
                    {stop_.fd(), POLLIN, 0},
                    {wake_.fd(), POLLIN, 0},
                    {handoff_wake_.fd(), POLLIN, 0}};
    if (::poll(pf, 4, half_open_.empty() ? 1000 : 100) < 0 && errno != EINTR) break;
    if (pf[1].revents != 0) break;
    if (pf[2].revents != 0) {
      wake_.drain();
      on_verdicts();
    }
    if (pf[3].revents != 0) {
      handoff_wake_.drain();
      on_handoffs(Clock::now());
    }
    if (pf[0].revents != 0) receive_batch(Clock::now());
    const Instant now = Clock::now();
    if (now - last_sweep >= kSweepEvery || pf[2].revents != 0) {
      sweep(now);
      last_sweep = now;
    }
  }
  shut_down();
}

// Up to kBatchesPerWake recvmmsg batches: each datagram to its session, handshake or
// roaming check; what opened to packets goes to the TUN queue.
void UdpWorker::receive_batch(Instant now) {
  for (int round = 0; round < kBatchesPerWake; ++round) {
    batch_.clear();
    auto r = source_.receive(sock_, batch_);
    if (!r.ok()) {
      if (r.error() != transport::UdpError::kWouldBlock) {
        spdlog::error("[{}] UDP receive failed: {}", p_.name, transport::to_string(r.error()));
      }
      return;
    }
    if (round > 0) now = Clock::now();
    keep_.assign(batch_.size(), false);
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const transport::SockAddr& from = source_.from(i);
      auto it = peers_.find(from);
      if (it == peers_.end()) {
        if (!roam_datagram(from, batch_, i, now)) handshake_datagram(from, batch_.packet(i), now);
        continue;
      }
      UdpPeer& pr = *it->second;
      if (auth_resend(pr, batch_.packet(i), now)) continue;
      // The inbound filter runs inside the session's Receiver.
      const auto outcome =
          engine::DatagramFramer::open(pr.tunnel->receiver(), *pr.recv_env, batch_, i, now);
      if (outcome == engine::DatagramOutcome::kPacket) {
        keep_[i] = true;
      } else if (outcome == engine::DatagramOutcome::kProbe) {
        answer_probe(pr, batch_.packet(i), now);
      }
    }
    engine::finish_batch(batch_, keep_, gro_, gro_table_);
    if (!batch_.empty()) engine::flush_tun(tun_, batch_, stop_, tun_counters_);
  }
}

void UdpWorker::send_to(const std::vector<Bytes>& datagrams, const transport::SockAddr& to) {
  if (datagrams.empty()) return;
  std::lock_guard lock(send_mu_);
  engine::send_handshake_datagrams(sock_, datagrams, to);
}

// The gate in front of a new ClientHello's key agreement: the server's login slots (a
// login storm, server/verify_budget.h) — all of them for a source that proved with a
// cookie that it receives, the unverified share for any other —, the worker's crypto
// budget (a distributed flood), then the profile's per-source-IP new-session limit (one
// host); a refusal is silent and counted. A budget token is spent, and a slot taken,
// only for an admitted hello. An unverified hello that finds its share full is answered
// with a challenge instead of silence when its client can take one (`challengeable`: it
// sent a marker) and the worker's challenge budget allows.
handshake::HelloVerdict UdpWorker::admit_hello(const transport::SockAddr& addr, Instant now,
                                               bool challengeable) {
  using handshake::HelloVerdict;
  UdpHalfOpen* h = half_open_.find(addr);
  std::optional<VerifySlot> slot;  // given back on any refusal below
  if (verify_budget_ != nullptr && (h == nullptr || !h->slot.held())) {
    const SlotShare share =
        !cookies_ || verified_.contains(addr, now) ? SlotShare::kAll : SlotShare::kUnverified;
    if (!verify_budget_->available(share)) half_open_.release_stale_slots(now, kAuthGrace);
    slot = VerifySlot::take(*verify_budget_, share);
    if (!slot) {
      if (share == SlotShare::kAll) {
        counters_.over_capacity++;
        return HelloVerdict::refuse();
      }
      counters_.udp_unverified_refused++;
      if (!challengeable || !challenges_.take(now)) return HelloVerdict::refuse();
      counters_.udp_cookie_challenges++;
      return HelloVerdict::challenge(cookie_jar_.make(addr, now));
    }
  }
  if (!preauth_crypto_.available(now)) {
    counters_.preauth_crypto_shed++;
    return HelloVerdict::refuse();
  }
  if (!host_.admit_new_session(source_key(addr), now)) {
    counters_.new_session_rate_limited++;
    return HelloVerdict::refuse();
  }
  if (!preauth_crypto_.take(now)) return HelloVerdict::refuse();
  if (h != nullptr && slot) {
    h->slot = std::move(*slot);
    h->slot_since = now;
  }
  return HelloVerdict::admit();
}

// A cookie echo (msg 8): a valid one marks the source verified (counted once per
// verification: a verified client echoes before each hello retransmit, which only renews
// it); nothing else is kept.
void UdpWorker::on_cookie(const transport::SockAddr& addr, std::optional<wire::Cookie> cookie,
                          Instant now) {
  if (cookie && cookie_jar_.check(addr, *cookie, now)) {
    if (verified_.add(addr, now)) counters_.udp_cookies_accepted++;
  } else {
    counters_.udp_cookies_refused++;  // malformed, another address's, or expired
  }
}

void UdpWorker::handshake_datagram(const transport::SockAddr& addr, MutableByteSpan d,
                                   Instant now) {
  UdpHalfOpen* h = half_open_.find(addr);
  const bool fresh = h == nullptr;
  if (fresh) {
    handshake::UdpServerConfig c = hc_;
    c.admit_hello = [this, addr](Instant t, bool challengeable) {
      return admit_hello(addr, t, challengeable);
    };
    if (cookies_) {
      c.on_cookie = [this, addr](std::optional<wire::Cookie> k, Instant t) {
        on_cookie(addr, k, t);
      };
    }
    bool evicted = false;
    h = &half_open_.insert(addr, std::make_unique<handshake::UdpServerHandshake>(c, rng_), now,
                           evicted);
    if (evicted) counters_.udp_half_open_evicted++;
  }
  handshake::UdpServerHandshake& hs = *h->hs;
  hs.on_datagram(d, now);
  // Not a handshake datagram, a cookie echo, or a hello over the limits (refused, or
  // answered with a challenge): a stranger leaves no state (and cannot push a real
  // client's half-open handshake out of the table).
  if (hs.state() != handshake::State::kFailed && hs.idle()) {
    send_to(hs.take_datagrams(), addr);  // a challenge, if any
    half_open_.erase(addr);
    return;
  }
  service(addr);
}

// Sends what a handshake emitted, starts its AUTH check, drops or promotes it.
void UdpWorker::service(const transport::SockAddr& addr) {
  UdpHalfOpen* h = half_open_.find(addr);
  if (h == nullptr) return;
  send_to(h->hs->take_datagrams(), addr);
  if (auto ev = h->hs->take_event()) {
    if (auto* auth = std::get_if<handshake::AuthRequest>(&*ev)) {
      AuthContext ctx;
      ctx.req = std::move(*auth);
      ctx.peer = addr;
      const bool started = host_.verify_auth(
          std::move(ctx), [this, addr, serial = h->serial](AuthContext&& done,
                                                           std::optional<handshake::AuthOk> ok) {
            std::lock_guard lock(verdict_mu_);
            verdicts_.push_back({addr, serial, std::move(done), std::move(ok)});
            wake_.notify();
          });
      if (started) {
        h->verifying = true;  // its slot stays until the verdict
      } else {
        counters_.over_capacity++;  // verification is the expensive part: shed, silently
        h->hs->reject();
      }
    } else {
      h->hs->reject();  // stream bonding (JOIN) is TCP-only
    }
  }
  if (h->hs->state() == handshake::State::kFailed) {
    counters_.handshake_failed++;
    half_open_.erase(addr);
  }
}

void UdpWorker::on_verdicts() {
  std::vector<AuthVerdict> done;
  {
    std::lock_guard lock(verdict_mu_);
    done.swap(verdicts_);
  }
  for (auto& v : done) {
    UdpHalfOpen* h = half_open_.find(v.addr);
    if (h == nullptr || h->serial != v.serial) {
      if (v.ctx.session) host_.release_session(v.ctx.session);  // evicted meanwhile
      continue;
    }
    if (!v.ok) {
      counters_.auth_failed++;
      spdlog::warn("[{}] {} rejected: {} (user '{}')", p_.name, v.addr.to_string(), v.ctx.reason,
                   v.ctx.req.user.substr(0, 64));
      h->hs->reject();
      send_to(h->hs->take_datagrams(), v.addr);
      half_open_.erase(v.addr);
      continue;
    }
    h->hs->accept(std::move(*v.ok));
    send_to(h->hs->take_datagrams(), v.addr);
    if (h->hs->state() == handshake::State::kDone) {
      promote(v.addr, *h, v.ctx);
    } else {
      host_.release_session(v.ctx.session);
      counters_.handshake_failed++;
    }
    half_open_.erase(v.addr);
  }
}

// AUTH OK was sent: the handshake becomes a session with its own sender thread.
void UdpWorker::promote(const transport::SockAddr& addr, UdpHalfOpen& h, AuthContext& ctx) {
  auto udp = h.hs->take_session();
  auto peer = std::make_unique<UdpPeer>();
  UdpPeer& pr = *peer;
  pr.session = ctx.session;
  pr.addr = addr;
  pr.hs_env = udp.envelope;
  pr.hs_env.obfs = obfs_.get();
  pr.started = Clock::now();
  Session& s = *pr.session;
  const crypto::Key32* session_key = obfs_key_ ? &*obfs_key_ : nullptr;
  pr.send_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, session_key,
                                                               udp.next_packet_number, rng_);
  pr.recv_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, session_key, 0, rng_);
  pr.resender = std::move(udp.resender);
  pr.send_mu = &send_mu_;
  pr.owner_wake = &wake_;
  tunnel::SessionParams sc;
  sc.apply(pushed_);
  sc.send.mtu = p_.tun.mtu;
  sc.send.farewell = farewell_for(s);
  sc.receive.idle_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(p_.perf.idle_timeout);
  sc.receive.inbound_filter = inbound_filter(&s, p_, ctx);
  if (engine::TrafficAccount* acct = s.account.get()) {
    // The worker serves every session of its socket and must not sleep: over the
    // user's upload rate, packets are dropped (the inner TCP adapts).
    sc.receive.inbound_filter = [f = std::move(sc.receive.inbound_filter), acct](ByteSpan pkt) {
      return f(pkt) && acct->admit_receive(pkt.size(), Clock::now());
    };
  }
  sc.receive.offered_caps = hc_.inner.extensions;
  sc.receive.on_control = [sp = &s, &p = p_](const wire::ControlFrame& f) {
    on_client_control(*sp, sp->peer_state, f, p.tun.mtu, p.name);
  };
  pr.framer = std::make_unique<engine::DatagramFramer>(sock_, pr.addr, *pr.send_env, *pr.recv_env,
                                                       &send_mu_, kWorkerBatch);
  pr.tunnel = std::make_unique<tunnel::Session>(std::move(sc), std::move(udp.session.send),
                                                std::move(udp.session.recv), pr.framer->room(),
                                                rng_, s.counters, &s.peer_state, pr.started);
  pr.sender = std::thread([&pr] {
    const SteadyClock clock;
    const auto e = engine::run_sender(*pr.tunnel, *pr.framer, pr.session->inbox, pr.session->stop,
                                      clock, 64, pr.session->account.get());
    if (e != tunnel::SessionEnd::kStopped) pr.tunnel->end().set(e);
    pr.session->stop.stop();
    pr.owner_wake.load()->notify();
  });
  if (roam_ && ctx.req.join_secret) {
    pr.roam_secret = ctx.req.join_secret;
    roam_->publish(&pr, id_, *pr.roam_secret, 0);
  }
  host_.session_started(s, addr, udp.envelope.quic);
  owned_.insert(peer.get());
  peers_[addr] = std::move(peer);
}

// True if `d` is a byte-identical AUTH retransmit of a young session (answered here).
// The client re-sends the very AUTH datagram it sent (seal nonce and all), so a data
// datagram costs one size compare here: nothing is copied or opened.
bool UdpWorker::auth_resend(UdpPeer& pr, ByteSpan d, Instant now) {
  if (pr.resender.reemits_left() <= 0 || now - pr.started > kAuthResendWindow) return false;
  auto reply = pr.resender.on_datagram(d);
  if (reply.empty()) return false;
  send_to(reply, pr.addr);
  return true;
}

// An MTU probe from an authenticated session (strangers' probes go to a handshake,
// which drops them): the ack, bounded per session, in the handshake's envelope.
void UdpWorker::answer_probe(UdpPeer& pr, ByteSpan inner, Instant now) {
  const Bytes ack = pr.probes.on_probe(inner, now);
  if (!ack.empty()) send_to({pr.hs_env.wrap(ack, true, 0, rng_)}, pr.addr);
}

UdpWorker::PeerMap::iterator UdpWorker::end_peer(PeerMap::iterator it) {
  UdpPeer& pr = *it->second;
  if (roam_) roam_->remove(&pr);
  owned_.erase(&pr);
  pr.session->stop.stop();
  if (pr.sender.joinable()) pr.sender.join();
  host_.session_ended(pr.session, pr.tunnel->end().get());
  return peers_.erase(it);
}

void UdpWorker::sweep(Instant now) {
  half_open_.sweep(
      now, half_open_ttl_,
      [this](const transport::SockAddr& to, const std::vector<Bytes>& d) { send_to(d, to); });
  if (verify_budget_ != nullptr) half_open_.release_stale_slots(now, kAuthGrace);
  for (auto it = peers_.begin(); it != peers_.end();) {
    UdpPeer& pr = *it->second;
    if (pr.roam_secret) {
      // Every 2^32 records the client's CID epoch moves on by itself: so does the window.
      const auto epoch =
          pr.roam_path + static_cast<std::uint32_t>(pr.tunnel->receiver().highest_counter() >> 32);
      if (epoch > pr.roam_epoch) {
        pr.roam_epoch = epoch;
        roam_->publish(&pr, id_, *pr.roam_secret, epoch);
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
}

void UdpWorker::shut_down() {
  {
    // No session is handed to this worker from now on; those already on their way stay.
    std::vector<std::unique_ptr<UdpPeer>> adopted;
    {
      std::lock_guard lock(handoff_mu_);
      closed_ = true;
      adopted.swap(adopt_);
      handoffs_.clear();
    }
    for (auto& up : adopted) place(std::move(up));
  }
  for (auto it = peers_.begin(); it != peers_.end();) it = end_peer(it);
  half_open_.clear();
}

}  // namespace qeli::server
