// Stream bonding on the server (qeli 0.7.16 §3.8, docs/PROTOCOL.md "Stream bonding"): a
// connection that finished its own handshake and sent JOIN instead of AUTH becomes one
// more stream of a live session. No second Argon2id: the JOIN token (16 random bytes in
// that session's AUTH OK) is the credential, valid while the session lives. The stream
// sends what the TUN readers pin to its slot and delivers what it receives through the
// session's own checks (source address, ACL, rate, quota); losing it only degrades.
#include <spdlog/spdlog.h>

#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "handshake/types.h"
#include "server/auth_context.h"
#include "server/join_check.h"
#include "server/profile_runtime.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "tunio/tun_device.h"

namespace qeli::server {

bool ProfileRuntime::claim_join_slot(const handshake::JoinRequest& join, AuthContext& ctx,
                                     JoinedStream& out) {
  auto session = sessions_->find_join(join.token);
  if (!session) {
    ctx.reason = "JOIN with an unknown or ended session token";
    return false;
  }
  ctx.req.user = session->user;  // for the log line of a refusal
  // Our extension (PROTOCOL §19): the JOIN proves the session's keys.
  if (std::string why = join_proof_refusal(*session, join); !why.empty()) {
    ctx.reason = std::move(why);
    return false;
  }
  // A resume (PROTOCOL §22): our client that took caps::kResume, with the key proof. It
  // may supersede a stream the server still holds (its old path went silent).
  const bool resumable =
      join.proof && (session->peer_state.caps.load() & handshake::caps::kResume) != 0;
  const bool full = session->bond.live() >= session->bond.max_streams();
  const bool orphaned = session->bond.live() == 0;
  const auto slot = session->bond.attach(resumable);
  if (!slot) {
    ctx.reason = session->bond.live() == 0 ? "JOIN to a session whose last stream just ended"
                                           : "JOIN over obf.multipath.max_streams (" +
                                                 std::to_string(session->bond.max_streams()) + ")";
    return false;
  }
  out.proved = join.proof.has_value();
  out.resume = resumable && (full || orphaned);
  out.session = std::move(session);
  out.slot = *slot;
  return true;
}

void ProfileRuntime::serve_joined_stream(std::unique_ptr<transport::Stream> stream,
                                         handshake::ServerSession hs, const JoinedStream& joined) {
  const auto& p = profile_;
  Session* sp = joined.session.get();
  engine::SessionInbox& inbox = sp->bond.inbox(joined.slot);
  inbox.set_account(sp->account.get());
  sp->bond.set_socket(joined.slot, stream->fd());
  if (joined.resume) {
    counters_.tcp_resumes++;
    sp->note_roam(joined.peer);
    spdlog::info("[{}] {} resumed '{}' ({}): a new connection, fresh keys, no new AUTH", p.name,
                 joined.peer.to_string(), sp->user, transport::ipv4_to_string(sp->tunnel_ip));
  } else {
    counters_.streams_joined++;
    spdlog::info("[{}] {} joined '{}' ({}) as stream {} ({} of {} live; {})", p.name,
                 joined.peer.to_string(), sp->user, transport::ipv4_to_string(sp->tunnel_ip),
                 joined.slot, sp->bond.live(), sp->bond.max_streams(),
                 joined.proved ? "key proof" : "token only");
  }

  // What this connection learned from its own control frames: our client takes its
  // session's extensions with a capability frame after JOINOK (PROTOCOL §19); a 0.7.16
  // one sends none and speaks the 0.7.16 data plane.
  tunnel::PeerState peer;
  tunnel::SessionParams sc = stream_params(p, *sp, peer, hs.advertised_caps);
  crypto::Rng& rng = crypto::system_rng();
  engine::StreamFramer framer(*stream, hs.recv.framing(), hs.leftover);
  tunnel::Session ts(std::move(sc), std::move(hs.send), std::move(hs.recv), framer.room(), rng,
                     sp->counters, &peer, std::chrono::steady_clock::now());
  // Its own TUN queue where there are several: the streams' writes go in parallel.
  const std::size_t q = (sp->id + joined.slot) % tun_->queue_count();
  tunio::TunQueue dev(*tun_, q);
  const SteadyClock clock;
  const auto end =
      engine::run_session(ts, framer, inbox, engine::TunWriter{&dev, tun_write_mu_[q].get()},
                          sp->stop, clock, 64, sp->account.get());
  sp->last_stream_end = static_cast<std::uint8_t>(end);
  // A resumable session's last stream that broke leaves it waiting for the next resume
  // (hold_for_resume, in the session's first thread).
  const std::size_t left = sp->bond.detach(joined.slot, may_resume(*sp, end));
  std::string why = tunnel::to_string(end);
  if (const std::string layer = stream->failure(); !layer.empty()) why += " (" + layer + ")";
  spdlog::info("[{}] {} stream {} of '{}' ended: {} ({} live)", p.name, joined.peer.to_string(),
               joined.slot, sp->user, why, left);
}

}  // namespace qeli::server
