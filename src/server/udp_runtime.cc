// The UDP side of ProfileRuntime (profile_runtime.h; reference qeli-0.7.16.md §3.9): one
// UdpWorker (server/udp_worker.h) per TUN queue and listener address, and what the workers
// ask of their profile (UdpWorkerHost: admission, AUTH verification, session events).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "crypto/random.h"
#include "server/auth_context.h"
#include "server/auth_ok_builder.h"
#include "server/listen_addresses.h"
#include "server/profile_runtime.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "sys/log_fields.h"
#include "transport/endpoint.h"
#include "wire/roam_nonce.h"

namespace qeli::server {
namespace {

/// AUTH verifications (Argon2id threads) in flight per profile; more are rejected.
constexpr int kMaxAuthInFlight = 256;

}  // namespace

Status<std::string> ProfileRuntime::start_udp(const std::vector<transport::SockAddr>& addrs) {
  const auto& p = profile_;
  handshake::UdpServerConfig hc;
  hc.inner.mode = handshake::Mode::kFakeTls;
  hc.inner.identity = &identity_;
  hc.inner.bind_static = auth_.bind_static_to_session;
  hc.inner.require_client_key_proof = auth_.require_client_key_proof;
  hc.inner.timeout = p.perf.handshake_timeout;
  hc.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
  if (!p.pool.ipv6) hc.inner.extensions &= ~handshake::caps::kIpv6Inside;
  // One SO_REUSEPORT socket and worker per TUN queue on every listener address. A session
  // stays on its listener's sockets (its replies must come from the address and port the
  // client dialed), so each listener has its own roaming index: a client roams between
  // the workers of one listener.
  for (std::size_t l = 0; l < addrs.size(); ++l) {
    std::shared_ptr<RoamIndex> roam = p.roaming ? std::make_shared<RoamIndex>() : nullptr;
    for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
      const std::size_t id = udp_workers_.size();
      transport::UdpOptions uo;
      // The first socket of the main listener may take an ephemeral port (tests); its
      // siblings join the port it got.
      uo.bind = l == 0 && q != 0 ? addrs[0].with_port(bound_port_) : addrs[l];
      uo.reuse_port = true;
      // On a wildcard address, answer each client from the address it contacted.
      uo.pktinfo = addrs[l].is_unspecified();
      uo.recv_buffer = p.perf.udp_recv_buffer_size;
      uo.send_buffer = p.perf.udp_send_buffer_size;
      uo.log = [name = p.name, first = id == 0](std::string_view line) {
        if (first) spdlog::info("[{}] {}", name, line);
      };
      auto sock = transport::UdpSocket::open(uo);
      if (!sock.ok()) {
        return fail("profile " + p.name + ": UDP " +
                    std::string(transport::to_string(sock.error().code)) + " " +
                    sock.error().detail);
      }
      if (id == 0) bound_port_ = sock->local_address().port();
      UdpWorkerSetup setup;
      setup.id = id;
      setup.profile = &profile_;
      setup.handshake = hc;
      setup.tun = std::make_unique<tunio::TunQueue>(*tun_, q);
      setup.tun_mu = tun_write_mu_[q].get();
      setup.roam = roam;
      setup.stop = &stop_;
      setup.counters = &counters_;
      setup.verify_budget = &guard_.verify_budget();
      udp_workers_.push_back(std::make_unique<UdpWorker>(static_cast<UdpWorkerHost&>(*this),
                                                         std::move(*sock), std::move(setup)));
    }
  }
  started_ = true;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_threads_.emplace_back([this, q] { tun_reader(q); });
  }
  for (auto& w : udp_workers_) {
    udp_threads_.emplace_back([wp = w.get()] { wp->run(); });
  }
  spdlog::info("[{}] listening on udp {} ({} mode), TUN {} mtu {} ({} workers)", p.name,
               describe_listeners(addrs, bound_port_), config::to_string(p.link_mode()),
               tun_->name(), p.tun.mtu, udp_workers_.size());
  return {};
}

std::optional<transport::UdpRxFigures> ProfileRuntime::udp_socket_figures() const {
  if (udp_workers_.empty()) return std::nullopt;
  transport::UdpRxFigures sum;
  for (const auto& w : udp_workers_) {
    const transport::UdpRxFigures f = w->socket().rx_stats().read();
    sum.kernel_drops += f.kernel_drops;
    sum.buffer_grows += f.buffer_grows;
    // Sizes do not add up to anything the operator sets: the largest says how far the
    // automatic buffer went (and a cap by net.core.rmem_max shows in every one).
    sum.recv_buffer_bytes = std::max(sum.recv_buffer_bytes, f.recv_buffer_bytes);
  }
  return sum;
}

void ProfileRuntime::stop_udp() {
  for (auto& t : udp_threads_) t.join();
  udp_threads_.clear();
}

bool ProfileRuntime::admit_new_session(SourceKey ip, Instant now) {
  return new_sessions_->admit(ip, now);
}

bool ProfileRuntime::verify_auth(AuthContext ctx, AuthDone done) {
  if (preauth_.load() >= kMaxAuthInFlight) return false;
  preauth_++;
  auto c = std::make_shared<AuthContext>(std::move(ctx));
  const bool started = spawn([this, c, done = std::move(done)] {
    std::optional<handshake::AuthOk> ok;
    if (admission_->admit(*c)) {
      handshake::JoinToken token{};
      crypto::system_rng().fill(token);
      ok = build_auth_ok(profile_, c->user, c->session->tunnel_ip, token,
                         destination_acl(*c).allows_some_ipv6());
      // Roaming: the nonce key every authenticated client of the profile gets.
      if (profile_.roaming)
        ok->x_roam_key = to_hex(wire::roam_prp_key(identity_.private_key).span());
    }
    preauth_--;
    done(std::move(*c), std::move(ok));
  });
  if (!started) preauth_--;  // shed like a request over capacity
  return started;
}

void ProfileRuntime::session_started(Session& s, const transport::SockAddr& from, bool quic) {
  counters_.sessions_started++;
  const sys::LogFields fields{{"QELI_PROFILE", profile_.name},
                              {"QELI_USER", s.user},
                              {"QELI_TUNNEL_IP", transport::ipv4_to_string(s.tunnel_ip)},
                              {"QELI_PEER", from.to_string()}};
  spdlog::info("[{}] {} connected as '{}' → {} (udp{})", profile_.name, from.to_string(), s.user,
               transport::ipv4_to_string(s.tunnel_ip), quic ? ", QUIC shape" : "");
  events_.connected(s);
}

void ProfileRuntime::session_ended(const std::shared_ptr<Session>& s, tunnel::SessionEnd end) {
  sessions_->remove(s);
  const auto& c = s->counters;
  const std::string why = describe_end(*s, end);
  const sys::LogFields fields{{"QELI_PROFILE", profile_.name},
                              {"QELI_USER", s->user},
                              {"QELI_TUNNEL_IP", transport::ipv4_to_string(s->tunnel_ip)}};
  spdlog::info("[{}] '{}' ({}) disconnected: {} (rx {} pkts, tx {} pkts, drops: {})", profile_.name,
               s->user, transport::ipv4_to_string(s->tunnel_ip), why,
               c.get(tunnel::SessionCounter::kRxPackets), c.get(tunnel::SessionCounter::kTxPackets),
               tunnel::describe_drops(c));
  events_.ended(*s, why);
}

void ProfileRuntime::release_session(const std::shared_ptr<Session>& s) { sessions_->remove(s); }

UdpWorker* ProfileRuntime::worker(std::size_t id) {
  return id < udp_workers_.size() ? udp_workers_[id].get() : nullptr;
}

}  // namespace qeli::server
