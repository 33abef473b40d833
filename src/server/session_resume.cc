// TCP session resume on the server (docs/PROTOCOL.md §22). When the connection of a
// session whose client took caps::kResume breaks, the session is not torn down: its
// address, counters, limits and queued downlink stay while the client dials again and
// JOINs with the proof of the session's keys (a fresh handshake: fresh keys and nonces,
// no Argon2id). The JOIN machinery is stream bonding's (server/joined_stream.cc); what
// differs is that the bond stays open with no live stream for roaming.grace_secs, and
// that a resume may supersede a stream the server still believes in (the client's old
// path went silent, so the server's socket has not failed yet).
#include <spdlog/spdlog.h>

#include "handshake/types.h"
#include "server/profile_runtime.h"
#include "transport/endpoint.h"

namespace qeli::server {
namespace {

// The connection failed under the session (as opposed to an end someone chose).
bool carrier_lost(tunnel::SessionEnd end) {
  switch (end) {
    case tunnel::SessionEnd::kPeerClosed:
    case tunnel::SessionEnd::kSocketError:
    case tunnel::SessionEnd::kLiveness:
    case tunnel::SessionEnd::kBadRecord:
    case tunnel::SessionEnd::kRecordFraming: return true;
    default: return false;
  }
}

}  // namespace

bool ProfileRuntime::may_resume(const Session& s, tunnel::SessionEnd end) const {
  return profile_.roaming && profile_.roaming_max_orphaned > 0 && !s.stop.stopped() &&
         (s.peer_state.caps.load() & handshake::caps::kResume) != 0 && carrier_lost(end);
}

tunnel::SessionEnd ProfileRuntime::hold_for_resume(Session& s, tunnel::SessionEnd end) {
  const auto& p = profile_;
  const auto grace = std::chrono::duration_cast<std::chrono::milliseconds>(p.roaming_grace);
  const std::string who = "'" + s.user + "' (" + transport::ipv4_to_string(s.tunnel_ip) + ")";
  bool orphan = false;  // counted in orphans_
  for (;;) {
    if (s.bond.live() == 0) {
      if (!orphan) {
        if (orphans_.fetch_add(1) >= p.roaming_max_orphaned) {
          orphans_--;
          if (s.bond.close_if_empty()) {
            counters_.tcp_resume_expired++;
            spdlog::warn(
                "[{}] {}: connection lost ({}); not held for a resume: "
                "roaming.max_orphaned ({}) sessions wait already",
                p.name, who, tunnel::to_string(end), p.roaming_max_orphaned);
            break;
          }
          continue;  // a resume got in first
        }
        orphan = true;
        spdlog::info("[{}] {}: connection lost ({}); held {} s for a resume", p.name, who,
                     tunnel::to_string(end), p.roaming_grace.count());
      }
      if (!s.bond.wait_for_stream(s.stop, grace)) {
        if (s.stop.stopped()) {
          end = tunnel::SessionEnd::kStopped;
          break;
        }
        if (s.bond.close_if_empty()) {
          counters_.tcp_resume_expired++;
          spdlog::info("[{}] {}: not resumed within {} s", p.name, who, p.roaming_grace.count());
          break;
        }
        continue;  // a resume attached just now
      }
      orphans_--;
      orphan = false;
    }
    // Streams carry it (a resume, or bonded ones): until the last of them goes.
    s.bond.wait_until_empty(s.stop);
    if (s.stop.stopped()) {
      end = tunnel::SessionEnd::kStopped;
      break;
    }
    end = static_cast<tunnel::SessionEnd>(s.last_stream_end.load());
    // That stream's own end decided (serve_joined_stream): a chosen end closed the bond.
    if (!may_resume(s, end) && s.bond.close_if_empty()) break;
  }
  if (orphan) orphans_--;
  return end;
}

}  // namespace qeli::server
