// ProfileRuntime's REALITY set-up (profile_runtime.h; docs/PROTOCOL.md "REALITY"): the
// replay cache, the decoy bridge to the cover site and the gate that decides between it
// and handle_connection, and the checks that keep the target from being this listener.
#include "server/profile_runtime.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "config/short_id.h"
#include "server/tcp_carrier.h"
#include "transport/endpoint.h"
#include "transport/tcp.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Status<std::string> ProfileRuntime::start_reality() {
  const auto& rp = profile_.obf.reality;
  if (auto st = refuse_self_target(); !st.ok()) return st;
  replay_ = std::make_unique<RealityReplayCache>();
  if (!replay_path_.empty()) {
    if (auto st = replay_->attach(replay_path_, unix_now()); !st.ok()) {
      spdlog::warn("[{}] REALITY replay cache kept in memory only: {}", profile_.name, st.error());
    } else {
      spdlog::info("[{}] REALITY replay cache {} ({} live tokens)", profile_.name, replay_path_,
                   replay_->size());
    }
  }
  transport::BridgeLimits bl;
  bl.max_bridges = rp.max_bridges != 0
                       ? rp.max_bridges
                       : std::max<std::size_t>(128, 4 * std::thread::hardware_concurrency());
  bl.connect_timeout = rp.bridge_connect_timeout;
  bl.idle = rp.bridge_idle_timeout;
  bl.lifetime = rp.bridge_lifetime;
  bridge_ = std::make_unique<transport::Bridge>(
      transport::HostPort{rp.target, rp.target_port}, bl, [this](transport::BridgeEnd e) {
        switch (e) {
          case transport::BridgeEnd::kEof: carrier_.add(CarrierCounter::kBridgeClosedEof); break;
          case transport::BridgeEnd::kIdle: carrier_.add(CarrierCounter::kBridgeClosedIdle); break;
          case transport::BridgeEnd::kLifetime:
            carrier_.add(CarrierCounter::kBridgeClosedLifetime);
            break;
          case transport::BridgeEnd::kConnectFailed:
            carrier_.add(CarrierCounter::kBridgeConnectFailed);
            warn_bridge_target_unreachable();
            break;
          case transport::BridgeEnd::kError:
          case transport::BridgeEnd::kStopped:
            carrier_.add(CarrierCounter::kBridgeClosedError);
            break;
        }
      });
  if (auto st = bridge_->start(); !st.ok()) return st;

  if (rp.real_tls) {
    // reality-tls: measure how the target answers before the first client arrives.
    TlsTarget::Options to;
    to.profile = profile_.name;
    to.host = rp.target;
    to.port = rp.target_port;
    to.sni = profile_.obf.tls_server_name;
    to.probe = rp.handrolled;
    tls_target_ = std::make_unique<TlsTarget>(std::move(to));
    tls_target_->start();
  }

  RealityPolicy policy;
  policy.identity = &identity_;
  for (const auto& s : rp.short_ids) {
    if (auto id = config::parse_short_id(s)) policy.shared_ids.push_back(*id);
  }
  policy.users = &users_;
  policy.replay = replay_.get();
  RealityGate::Options go;
  // 0.7.16: max(peek_timeout, 300 ms) plus 300 ms of grace, so a slow 0.7.16 hello that
  // 0.7.16 itself would admit is never bridged by ours.
  go.budget = std::max<Duration>(rp.peek_timeout, std::chrono::milliseconds(300)) +
              std::chrono::milliseconds(300);
  go.max_pending = static_cast<std::size_t>(preauth_limit());
  gate_ = std::make_unique<RealityGate>(
      go, std::move(policy), carrier_,
      [this](transport::UniqueFd fd, const transport::SockAddr& peer, Bytes hello,
             std::optional<std::string> owner) {
        if (preauth_.load() >= preauth_limit()) {
          counters_.over_capacity++;
          return;  // closed: unauthenticated peers must cost little
        }
        // The per-source new-session limit, as on the non-REALITY path: only a valid
        // token reaches it (strangers were bridged), so it bounds key agreements and
        // Argon2id, never what a prober of the port sees.
        if (!new_sessions_->admit(source_key(peer), Clock::now())) {
          counters_.new_session_rate_limited++;
          return;
        }
        auto c = std::make_shared<transport::UniqueFd>(std::move(fd));
        auto h = std::make_shared<Bytes>(std::move(hello));
        if (!spawn([this, c, peer, h, owner] {
              handle_connection(std::move(*c), peer, std::move(*h), owner);
            })) {
          counters_.over_capacity++;
        }
      },
      [this](transport::UniqueFd fd, Bytes seen, CarrierCounter) {
        if (bridge_->add(std::move(fd), std::move(seen))) {
          carrier_.add(CarrierCounter::kBridgeStarted);
        } else {
          carrier_.add(CarrierCounter::kBridgeRefusedFull);
        }
      });
  if (auto st = gate_->start(); !st.ok()) return st;
  spdlog::info("[{}] REALITY: strangers bridged to {}:{} (at most {} at once)", profile_.name,
               rp.target, rp.target_port, bl.max_bridges);
  if (!bridge_->target_endpoint()) {
    // Not fatal: at boot DNS may come up after us; the bridge retries every 10 s.
    spdlog::warn(
        "[{}] REALITY target {} does not resolve (yet): strangers are dropped, not "
        "bridged, until it does (retried every 10 s; counter bridge_connect_failed). "
        "Check obf.tls.reality_proxy.target",
        profile_.name, rp.target);
  }
  return {};
}

Status<std::string> ProfileRuntime::refuse_self_target() const {
  // A target that is this very listener would bridge every stranger (and the reality-tls
  // probe) back into ourselves until the pool and the file descriptors run out.
  const auto& rp = profile_.obf.reality;
  auto addrs = transport::resolve(transport::HostPort{rp.target, rp.target_port});
  if (!addrs) return {};  // not resolvable yet: start_reality warns about it
  for (const auto& local : listener_->local_addresses()) {
    for (const auto& a : *addrs) {
      if (a.family() != local.family() || a.port() != local.port()) continue;
      if ((local.is_unspecified() || local == a) && transport::is_local_address(a)) {
        return fail("obf.tls.reality_proxy.target " + rp.target + ":" +
                    std::to_string(rp.target_port) + " (" + a.to_string() +
                    ") is this profile's own listener: strangers would be bridged back into "
                    "it in a loop. Point it at the site the port should look like");
      }
    }
  }
  return {};
}

void ProfileRuntime::warn_bridge_target_unreachable() {
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
          .count();
  std::int64_t last = bridge_warned_ms_.load();
  if (last >= 0 && now_ms - last < 60'000) return;
  if (!bridge_warned_ms_.compare_exchange_strong(last, now_ms)) return;  // another thread did
  const auto& rp = profile_.obf.reality;
  spdlog::warn(
      "[{}] REALITY: a stranger could not be bridged: {}:{} is unreachable{} ({} "
      "connect failures so far; at most one such line a minute)",
      profile_.name, rp.target, rp.target_port,
      bridge_->target_endpoint() ? "" : " (its name does not resolve)",
      carrier_.get(CarrierCounter::kBridgeConnectFailed));
}

}  // namespace qeli::server
