// The one JSON codec of the control API (control/api.h): requests, replies and errors
// to and from the wire form documented there. Decoding never throws: a malformed request
// or answer is a ControlError naming what is wrong. Every reply type also converts with
// nlohmann's `json j = value;` / `j.get<T>()` (the panel's JSON API reuses the shapes).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "control/api.h"

namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& o) {
    if (o) {
      j = *o;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<T>& o) {
    if (j.is_null()) {
      o.reset();
    } else {
      o = j.get<T>();
    }
  }
};
}  // namespace nlohmann

namespace qeli::control {

// Members missing from the JSON keep their defaults (forward and backward compatible).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CounterValue, name, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SessionInfo, id, profile, username, device,
                                                tunnel_ip, tunnel_ip6, peer, connected_secs,
                                                rx_packets, rx_bytes, tx_packets, tx_bytes,
                                                drop_bad_source, drop_policy, drop_ipv6,
                                                drop_not_ipv4, drop_queue_full, drop_replay,
                                                drop_tun_write, drop_bad_gso, drop_too_big, gso,
                                                close_notify, aead, client_version, client_platform,
                                                streams, roams, bandwidth_limit_mbps, counters)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SessionList, clients)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KickResult, kicked)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UserSwitchResult, was_disabled, kicked, warning)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockedAddress, ip, user, seconds_left, failures)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockedList, blocked, blocked_ips)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnblockResult, ip)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UdpSocketFigures, kernel_drops, buffer_grows,
                                                recv_buffer_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfileStats, profile, transport, mode, port,
                                                sessions, counters, traffic, tls_target, udp_socket)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StatsSnapshot, version, uptime_secs,
                                                started_unix_secs, users, users_disabled,
                                                blocked_ips, profiles, webhooks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Event, seq, unix_ms, type, profile, username,
                                                device, ip, reason, rx_bytes, tx_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EventList, boot, last_seq, events)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigFinding, severity, file, section, key, line,
                                                message, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigText, path, text, sha256)
// `ok` travels as "valid": a reply's fields sit beside the envelope's "ok"/"code"/"error"
// (encode_reply), and a refused config must not read as a refused request.
void to_json(nlohmann::json& j, const ValidationResult& v);
void from_json(const nlohmann::json& j, ValidationResult& v);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigSaved, sha256, history_id, reloaded, findings,
                                                reload_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigVersionInfo, id, unix_secs, actor, sha256,
                                                size)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ConfigHistory, versions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceInfo, id, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UserInfo, name, source_file, enabled, disabled_live,
                                                group, static_ip, max_sessions, profiles, routes,
                                                allowed_networks, client_subnets,
                                                bandwidth_limit_mbps, data_limit_gb, expire_at,
                                                metadata, sessions, devices)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GroupInfo, name, bandwidth_limit_mbps, max_sessions,
                                                allowed_networks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UserList, users, groups)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UserChanged, username, users_file, reloaded,
                                                sessions_ended)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceIssued, username, id, name, credential,
                                                profile, link, reloaded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WebhookDelivery, at_ms, id, type, result, status,
                                                detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WebhookLog, enabled, pending, deliveries)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LogLine, seq, unix_ms, level, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LogLines, last_seq, lines)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CallerInfo, uid, gid, pid, permissions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UserUsage, username, down_bytes, up_bytes,
                                                quota_bytes, limit_mbps, limit_live)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UsageList, users)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BandwidthSet, username, mbps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ClientTunnelStatus, server_address, dev,
                                                tunnel_address, server_tunnel_address,
                                                tunnel_address6, mtu, full_tunnel, extensions,
                                                connected_since, rx_bytes, tx_bytes, rx_packets,
                                                tx_packets, rx_bytes_per_sec, tx_bytes_per_sec)
// ClientTunnelStatus::udp is not in the list above: ClientStatusReport's codec writes it
// flat, as udp_* members, and only for a UDP session.
/// Flat (see ClientStatusReport): empty `detail`/`last_session_end`, a missing tunnel and
/// a TCP session's missing udp_* figures are left out.
void to_json(nlohmann::json& j, const ClientStatusReport& r);
void from_json(const nlohmann::json& j, ClientStatusReport& r);

nlohmann::json encode_request(const Request& r);
/// {"cmd": ..., fields} → Request; kUnknownCommand / kBadRequest otherwise.
Result<Request, ControlError> decode_request(const nlohmann::json& j);

/// {"ok":true, fields}.
nlohmann::json encode_reply(const Response& r);
/// {"ok":false,"code":...,"error":...}.
nlohmann::json encode_error(const ControlError& e);
/// The answer to `for_request`: its Reply type, or the error the server sent.
Result<Response, ControlError> decode_reply(const Request& for_request, const nlohmann::json& j);

}  // namespace qeli::control
