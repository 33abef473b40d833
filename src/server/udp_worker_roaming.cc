// UdpWorker's roaming (caps::kRoam; docs/PROTOCOL.md §20): a session found by the
// connection id in a datagram from an address it was not at, moved only on a datagram that
// passed its AEAD and replay window, and handed between the workers of one listener when
// the kernel hashes its new address to another worker's socket.
#include <spdlog/spdlog.h>

#include <cstring>

#include "server/udp_worker.h"
#include "transport/endpoint.h"

namespace qeli::server {
namespace {

/// Datagrams for another worker's sessions waiting in its hand-off queue (more: dropped;
/// only a roam's first datagrams travel so, until the session itself has moved).
constexpr std::size_t kMaxHandoffs = 256;
/// How often one datagram may be passed on between workers (its session moving meanwhile).
constexpr std::uint8_t kMaxHandoffHops = 2;

}  // namespace

bool UdpWorker::post_handoff(UdpRoamHandoff h) {
  {
    std::lock_guard lock(handoff_mu_);
    if (closed_ || handoffs_.size() >= kMaxHandoffs) return false;
    handoffs_.push_back(std::move(h));
  }
  handoff_wake_.notify();
  return true;
}

void UdpWorker::post_session(std::unique_ptr<UdpPeer>& peer) {
  {
    std::lock_guard lock(handoff_mu_);
    if (closed_) return;
    adopt_.push_back(std::move(peer));
  }
  handoff_wake_.notify();
}

// The connection id in a datagram from an unknown address (the datagram itself stays
// as it came, for a handshake or the session's own envelope).
std::optional<wire::RoamId> UdpWorker::roam_id_of(ByteSpan datagram) const {
  return wire::roam_id_in_datagram(datagram, obfs_.get(), *roam_prp_);
}

// Files a session under its address; one that was there ends (two sessions cannot share
// an address, and the newer one just proved itself).
void UdpWorker::place(std::unique_ptr<UdpPeer> peer) {
  const transport::SockAddr at = peer->addr;
  if (auto old = peers_.find(at); old != peers_.end()) end_peer(old);
  half_open_.erase(at);
  owned_.insert(peer.get());
  peers_.emplace(at, std::move(peer));
}

// Re-files this worker's session from `was` to its new address (its addr already says
// where).
void UdpWorker::rekey(const transport::SockAddr& was) {
  auto node = peers_.extract(was);
  if (!node.empty()) place(std::move(node.mapped()));
}

// This worker's sessions that roamed onto flows the kernel hashes to it.
void UdpWorker::adopt_pending() {
  std::vector<std::unique_ptr<UdpPeer>> adopted;
  {
    std::lock_guard lock(handoff_mu_);
    adopted.swap(adopt_);
  }
  for (auto& up : adopted) {
    up->owner_wake = &wake_;
    up->hs_env.obfs = obfs_.get();  // probe acks: this thread's seal, not the creator's
    place(std::move(up));
  }
}

// Points the session at its new address (under its framer's lock: the sender reads it
// there) and moves its CID window on when the client started a new epoch.
void UdpWorker::move_to(UdpPeer& pr, const transport::SockAddr& to, std::uint32_t epoch,
                        std::size_t owner) {
  const transport::SockAddr was = pr.addr;
  {
    std::lock_guard lock(*pr.send_mu);
    pr.addr = to;
  }
  if (epoch > pr.roam_epoch) pr.roam_epoch = epoch;
  const auto hi = static_cast<std::uint32_t>(pr.tunnel->receiver().highest_counter() >> 32);
  pr.roam_path = epoch >= hi ? epoch - hi : 0;
  roam_->publish(&pr, owner, *pr.roam_secret, pr.roam_epoch);
  counters_.udp_roams++;
  pr.session->note_roam(to);
  spdlog::info("[{}] '{}' ({}) roamed {} → {} (epoch {}{}, no new handshake)", p_.name,
               pr.session->user, transport::ipv4_to_string(pr.session->tunnel_ip), was.to_string(),
               to.to_string(), pr.roam_epoch,
               owner == id_ ? "" : fmt::format(", worker {} → {}", id_, owner));
}

// Opens a roaming candidate's datagram (slot i of `b`) with the session's own envelope
// and receiver: true if it was authentic and fresh (AEAD and replay window passed) and
// the newest the session has had (QUIC's rule, RFC 9000 §9.3: a late, reordered
// datagram from an address the client left is delivered but moves nothing).
bool UdpWorker::roam_open(UdpPeer& pr, tunio::PacketBatch& b, std::size_t i, Instant now,
                          bool& packet) {
  tunnel::Receiver& rx = pr.tunnel->receiver();
  const std::uint64_t top = rx.highest_counter();
  const auto outcome = engine::DatagramFramer::open(rx, *pr.recv_env, b, i, now);
  packet = outcome == engine::DatagramOutcome::kPacket;
  // The window's top rose only for an authentic, fresh record, whatever became of its
  // content (an inbound filter may still drop it: the client moved all the same).
  if (rx.highest_counter() > top) return true;
  if (outcome == engine::DatagramOutcome::kDropped || outcome == engine::DatagramOutcome::kProbe) {
    counters_.udp_roams_refused++;  // forged, replayed, late or not a record: nothing moves
  }
  return false;
}

void UdpWorker::handoff_to(std::size_t worker, UdpRoamHandoff h) {
  if (h.hops++ >= kMaxHandoffHops) return;
  if (UdpWorker* o = host_.worker(worker)) (void)o->post_handoff(std::move(h));
}

// A datagram from an address no session or handshake of this worker has: true if it
// was a roaming session's (taken here or handed to its owner), false for a stranger's
// (it goes on to the handshake path).
bool UdpWorker::roam_datagram(const transport::SockAddr& from, tunio::PacketBatch& b, std::size_t i,
                              Instant now) {
  if (!roam_ || half_open_.contains(from)) return false;
  const auto id = roam_id_of(b.packet(i));
  if (!id) return false;
  const auto hit = roam_->find(id->cid);
  if (!hit) return false;
  if (!roam_opens_.take(now)) {
    counters_.udp_roams_refused++;  // over this worker's budget: dropped unopened
    return true;
  }
  if (hit->worker != id_) {
    const ByteSpan d = b.packet(i);
    handoff_to(hit->worker, UdpRoamHandoff{from, id_, Bytes(d.begin(), d.end())});
    return true;
  }
  auto* pp = static_cast<UdpPeer*>(hit->peer);
  if (!owned_.contains(pp)) {
    adopt_pending();  // handed to us a moment ago?
    if (!owned_.contains(pp)) return true;
  }
  bool packet = false;
  if (pp->addr == from) {
    // Handed over just now, already at this address: an ordinary datagram of it.
    packet = engine::DatagramFramer::open(pp->tunnel->receiver(), *pp->recv_env, b, i, now) ==
             engine::DatagramOutcome::kPacket;
    keep_[i] = packet;
    return true;
  }
  if (!roam_open(*pp, b, i, now, packet)) {
    keep_[i] = packet;
    return true;
  }
  const transport::SockAddr was = pp->addr;
  move_to(*pp, from, hit->epoch, id_);
  rekey(was);
  keep_[i] = packet;
  return true;
}

// Datagrams other workers received for this worker's sessions, and sessions they hand
// over. A checked datagram moves its session: to the worker it arrived at.
void UdpWorker::on_handoffs(Instant now) {
  std::vector<UdpRoamHandoff> got;
  {
    std::lock_guard lock(handoff_mu_);
    got.swap(handoffs_);
  }
  adopt_pending();
  for (auto& h : got) {
    const auto id = roam_id_of(h.datagram);
    const auto hit = id ? roam_->find(id->cid) : std::nullopt;
    if (!hit) continue;  // its session ended meanwhile
    if (hit->worker != id_) {
      handoff_to(hit->worker, std::move(h));  // it moved on: to its owner now
      continue;
    }
    if (!owned_.contains(static_cast<UdpPeer*>(hit->peer))) {
      adopt_pending();  // on its way to us?
      if (!owned_.contains(static_cast<UdpPeer*>(hit->peer))) continue;
    }
    UdpPeer& pr = *static_cast<UdpPeer*>(hit->peer);
    one_.clear();
    const MutableByteSpan slot = one_.next_slot();
    if (slot.size() < h.datagram.size()) continue;
    std::memcpy(slot.data(), h.datagram.data(), h.datagram.size());
    one_.commit(h.datagram.size());
    bool packet = false;
    const bool newest = roam_open(pr, one_, 0, now, packet);
    const transport::SockAddr was = pr.addr;
    if (!newest || was == h.from) {
      // A late one, or it moved there with an earlier datagram: nothing to move.
    } else if (h.arrived_at == id_) {
      move_to(pr, h.from, hit->epoch, id_);
      rekey(was);
    } else if (UdpWorker* to = host_.worker(h.arrived_at)) {
      // The kernel hashes the new address to that worker: the session goes there
      // (its sender keeps this worker's socket and lock; every worker's socket has
      // the same address and port).
      auto node = peers_.extract(was);
      if (node.empty()) continue;
      std::unique_ptr<UdpPeer> up = std::move(node.mapped());
      owned_.erase(up.get());
      move_to(pr, h.from, hit->epoch, h.arrived_at);
      to->post_session(up);
      if (up) {  // that worker is stopping: keep it here
        roam_->move(&pr, id_);
        place(std::move(up));
      }
    }
    if (packet) {
      const std::vector<bool> keep_one{true};
      engine::finish_batch(one_, keep_one, gro_, gro_table_);
      engine::flush_tun(tun_, one_, stop_, tun_counters_);
    }
  }
}

}  // namespace qeli::server
