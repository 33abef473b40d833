// Why TCP carrier layers refused or ended connections before the qeli handshake (obfs
// set-up, REALITY gate, decoy bridge): one enum, one table of names, so `qeli stats`,
// the log and tests read the same counters (follows engine::DatagramDrops).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace qeli::server {

enum class CarrierCounter : std::uint8_t {
  // obfs set-up (transport::ObfsFailure)
  kObfsTimeout,
  kObfsPeerClosed,
  kObfsHeadTooLarge,
  kObfsAnswered404,  // answered with nginx's 404
  kObfsJunkTooLong,
  kObfsBadFrame,
  kObfsBudget,
  kObfsWebSocketClose,
  kObfsStreamError,  // a layer error after the set-up (bad frame, keystream limit)
  // REALITY gate: the token verdicts
  kRealityAccepted,
  kRealityNotTls,       // first bytes are not a TLS handshake record with a ClientHello
  kRealityPeekTimeout,  // the hello did not arrive within the budget (dribbled, stalled)
  kRealityBadHello,     // not parseable or no X25519 share
  kRealityBadToken,     // the session_id does not open
  kRealityExpired,      // opened, but outside ±120 s
  kRealityUnknownShortId,
  kRealityRevoked,  // a per-user short id of a disabled or removed user
  kRealityReplay,
  kRealityGateFull,   // more peeking connections than the pre-auth limit
  kRealityTlsFailed,  // reality-tls: a valid token, but the TLS 1.3 handshake failed
  // decoy bridge
  kBridgeStarted,
  kBridgeRefusedFull,
  kBridgeConnectFailed,
  kBridgeClosedEof,
  kBridgeClosedIdle,
  kBridgeClosedLifetime,
  kBridgeClosedError,
  kCount
};

std::string_view name(CarrierCounter c);

class CarrierCounters {
 public:
  void add(CarrierCounter c, std::uint64_t n = 1) {
    v_[static_cast<std::size_t>(c)].fetch_add(n, std::memory_order_relaxed);
  }
  std::uint64_t get(CarrierCounter c) const {
    return v_[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(CarrierCounter::kCount)> v_{};
};

}  // namespace qeli::server
