#include "server/carrier_counters.h"

namespace qeli::server {

std::string_view name(CarrierCounter c) {
  switch (c) {
    case CarrierCounter::kObfsTimeout: return "obfs_setup_timeout";
    case CarrierCounter::kObfsPeerClosed: return "obfs_setup_peer_closed";
    case CarrierCounter::kObfsHeadTooLarge: return "obfs_ws_head_too_large";
    case CarrierCounter::kObfsAnswered404: return "obfs_ws_answered_404";
    case CarrierCounter::kObfsJunkTooLong: return "obfs_junk_too_long";
    case CarrierCounter::kObfsBadFrame: return "obfs_ws_bad_frame";
    case CarrierCounter::kObfsBudget: return "obfs_setup_over_budget";
    case CarrierCounter::kObfsWebSocketClose: return "obfs_ws_close_in_setup";
    case CarrierCounter::kObfsStreamError: return "obfs_stream_error";
    case CarrierCounter::kRealityAccepted: return "reality_accepted";
    case CarrierCounter::kRealityNotTls: return "reality_bridged_not_tls";
    case CarrierCounter::kRealityPeekTimeout: return "reality_bridged_peek_timeout";
    case CarrierCounter::kRealityBadHello: return "reality_bridged_bad_hello";
    case CarrierCounter::kRealityBadToken: return "reality_bridged_bad_token";
    case CarrierCounter::kRealityExpired: return "reality_bridged_expired";
    case CarrierCounter::kRealityUnknownShortId: return "reality_bridged_unknown_short_id";
    case CarrierCounter::kRealityRevoked: return "reality_bridged_revoked_short_id";
    case CarrierCounter::kRealityReplay: return "reality_bridged_replay";
    case CarrierCounter::kRealityGateFull: return "reality_gate_full";
    case CarrierCounter::kRealityTlsFailed: return "reality_tls_handshake_failed";
    case CarrierCounter::kBridgeStarted: return "bridge_started";
    case CarrierCounter::kBridgeRefusedFull: return "bridge_refused_full";
    case CarrierCounter::kBridgeConnectFailed: return "bridge_connect_failed";
    case CarrierCounter::kBridgeClosedEof: return "bridge_closed_eof";
    case CarrierCounter::kBridgeClosedIdle: return "bridge_closed_idle";
    case CarrierCounter::kBridgeClosedLifetime: return "bridge_closed_lifetime";
    case CarrierCounter::kBridgeClosedError: return "bridge_closed_error";
    case CarrierCounter::kCount: break;
  }
  return "?";
}

}  // namespace qeli::server
