// One authenticated client session of a profile: identity, tunnel address, its inbox
// (TUN readers → send thread), its stop signal and counters. Shared between the session
// table (routing, listing, kicking) and the connection thread that runs it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "config/ipv6_cidr.h"
#include "config/values.h"
#include "crypto/secret_bytes.h"
#include "engine/session_inbox.h"
#include "engine/stop_signal.h"
#include "engine/stream_bond.h"
#include "engine/traffic_account.h"
#include "transport/endpoint.h"
#include "tunnel/peer_state.h"
#include "tunnel/session_counters.h"
#include "wire/session_close.h"

namespace qeli::server {

struct Session {
  Session(std::uint64_t id_, std::string user_, std::string device_key_, std::uint32_t ip,
          transport::SockAddr peer_, engine::SessionInbox::Geometry g, std::size_t max_streams = 1)
      : id(id_),
        user(std::move(user_)),
        device_key(std::move(device_key_)),
        tunnel_ip(ip),
        peer(peer_),
        started(std::chrono::steady_clock::now()),
        inbox(g, counters),
        bond(max_streams, inbox, g, counters) {}

  const std::uint64_t id;
  const std::string user;
  const std::string device_key;  ///< "user:hex(device_id)" or "user"
  const std::uint32_t tunnel_ip;
  const transport::SockAddr peer;  ///< where the session started
  const Instant started;
  /// The user's `client_subnet`s this session holds (SessionTable::admit writes them before
  /// it returns the session; read-only after): the networks routed into it, and the only
  /// sources it may send from beside its own addresses.
  std::vector<config::Ipv4Cidr> subnets;
  std::vector<config::Ipv6Cidr> subnets6;
  /// UDP roaming (docs/PROTOCOL.md §20): times the client moved, and where it is now.
  /// Written by its worker at a roam, read by the control socket and the session events
  /// (both rare: a mutex, never taken per packet).
  std::atomic<std::uint32_t> roams{0};
  transport::SockAddr current_peer() const {
    std::lock_guard lock(roam_mu_);
    return roamed_to_.is_set() ? roamed_to_ : peer;
  }
  void note_roam(const transport::SockAddr& to) {
    {
      std::lock_guard lock(roam_mu_);
      roamed_to_ = to;
    }
    roams.fetch_add(1, std::memory_order_relaxed);
  }
  /// Self-reported (control frame 2), informational; written by the receive thread, read
  /// by the control socket — guarded by info_mu.
  std::mutex info_mu;
  std::string client_version;
  std::string client_platform;
  tunnel::SessionCounters counters;
  engine::SessionInbox inbox;
  /// The TCP streams carrying it (1 unless the profile bonds: engine/stream_bond.h);
  /// the TUN readers take a packet's inbox from bond.pick().
  engine::StreamBond bond;
  engine::StopSignal stop;
  /// Set once before a JOIN can find the session (SessionTable::publish_join): the
  /// uplink checks every stream of it applies (server/session_policy.h).
  std::function<bool(ByteSpan)> inbound_filter;
  /// The join secret of its AUTH connection: what a JOIN's proof is checked against.
  std::shared_ptr<const crypto::Key32> join_secret;
  /// Its JOIN token as the session table's key (empty: not bonding); guarded by the
  /// table's mutex.
  std::string join_key;
  /// Why its most recent stream ended (tunnel::SessionEnd): what a resumable session's
  /// holder looks at when the last stream goes.
  std::atomic<std::uint8_t> last_stream_end{0};
  /// Set when a newer session took this one's device key or address: the old session
  /// must not release the address it no longer owns.
  std::atomic<bool> superseded{false};
  /// What the session's receive side learned from the client's control frames: the
  /// extensions it took from our offer (GSO super-packets whole, close notify) and the
  /// tunnel MTU it reported. Read by its sender and the control socket.
  tunnel::PeerState peer_state;
  /// min(profile MTU, peer_state.mtu) when that is below the profile MTU, else 0: the TUN
  /// reader's one per-packet check (tunio/mtu_clamp.h does the rest only when set).
  std::atomic<std::uint32_t> downlink_mtu{0};
  /// The user's shared limits, quota and totals (set at admission; null = none).
  std::shared_ptr<engine::TrafficAccount> account;

  /// Ends the session on purpose: records why (the first reason wins) and stops it.
  void end(wire::CloseReason why) {
    std::uint8_t none = 0;
    close_reason_.compare_exchange_strong(none, static_cast<std::uint8_t>(why));
    stop.stop();
  }
  /// The device credential's id the session logged in with (empty: the user's password);
  /// a reload that revokes it ends the session (server/reload_verdict.h).
  void set_credential(std::string device_id) {
    std::lock_guard lock(info_mu);
    credential_ = std::move(device_id);
  }
  std::string credential() {
    std::lock_guard lock(info_mu);
    return credential_;
  }
  /// Why end() was called, if it was.
  std::optional<wire::CloseReason> close_reason() const {
    const std::uint8_t r = close_reason_.load();
    if (r == 0) return std::nullopt;
    return static_cast<wire::CloseReason>(r);
  }

 private:
  std::atomic<std::uint8_t> close_reason_{0};
  std::string credential_;  // guarded by info_mu
  mutable std::mutex roam_mu_;
  transport::SockAddr roamed_to_;  // guarded by roam_mu_; unset = still `peer`
};

}  // namespace qeli::server
