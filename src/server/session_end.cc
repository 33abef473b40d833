#include "server/session_end.h"

#include <string_view>

#include "handshake/types.h"
#include "server/session_control.h"
#include "server/session_policy.h"
#include "wire/session_close.h"

namespace qeli::server {

void on_client_control(Session& s, const tunnel::PeerState& peer, const wire::ControlFrame& f,
                       std::uint32_t profile_mtu, std::string_view profile) {
  if (f.type == wire::kCtrlSessionClose) {
    // The client is going away (our extension, only from a client that took it): end the
    // session now instead of at the liveness deadline; the reason it gives is ignored
    // (only "stopping" exists in this direction) and nothing is sent back.
    if (peer.close_notify.load()) s.end(wire::CloseReason::kClientStopping);
    return;
  }
  // Capabilities were taken into s.peer_state by the session's tunnel::Receiver.
  if (f.type != wire::kCtrlCapabilities) apply_client_control(s, f, profile_mtu, profile);
}

tunnel::SessionParams stream_params(const config::ProfileConfig& p, Session& s,
                                    tunnel::PeerState& peer, std::uint32_t offered_caps) {
  tunnel::SessionParams sc;
  sc.apply(pushed_params(p.obf));
  sc.send.mtu = p.tun.mtu;
  sc.send.farewell = farewell_for(s);
  // Activity is read from the session's counters, which all its streams share: a stream
  // whose flows went quiet is not idle while the session is in use.
  sc.receive.idle_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(p.perf.idle_timeout);
  sc.receive.inbound_filter = s.inbound_filter;
  sc.receive.gso_receive = (offered_caps & handshake::caps::kGsoSuperPackets) != 0;
  sc.receive.offered_caps = offered_caps;
  sc.receive.on_control = [&s, &p, &peer](const wire::ControlFrame& f) {
    on_client_control(s, peer, f, p.tun.mtu, p.name);
  };
  return sc;
}

std::function<Bytes(tunnel::SessionEnd)> farewell_for(Session& s) {
  return [&s](tunnel::SessionEnd end) -> Bytes {
    if (end == tunnel::SessionEnd::kIdle) s.end(wire::CloseReason::kIdle);
    if (end == tunnel::SessionEnd::kQuotaExhausted) s.end(wire::CloseReason::kQuotaExhausted);
    if (!s.peer_state.close_notify.load()) return {};
    if (end != tunnel::SessionEnd::kStopped && end != tunnel::SessionEnd::kIdle &&
        end != tunnel::SessionEnd::kQuotaExhausted) {
      return {};
    }
    const auto why = s.close_reason();
    // No reason recorded, or the client itself said goodbye: nothing to tell it.
    if (!why || *why == wire::CloseReason::kClientStopping) return {};
    return wire::build_session_close(*why);
  };
}

std::string describe_end(const Session& s, tunnel::SessionEnd end) {
  const auto why = s.close_reason();
  // The client's goodbye names the end even when its TCP FIN was seen first.
  if (why == wire::CloseReason::kClientStopping) return wire::to_string(*why);
  if (why && (end == tunnel::SessionEnd::kStopped || end == tunnel::SessionEnd::kIdle ||
              end == tunnel::SessionEnd::kQuotaExhausted)) {
    return wire::to_string(*why);
  }
  return tunnel::to_string(end);
}

}  // namespace qeli::server
