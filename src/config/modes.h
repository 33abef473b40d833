// Names shared by server profiles, client configs and links: carrier transport, the
// server's obf.mode and the client's mode (reference §3.1, §5.5, §5.7, §6.2).
#pragma once

#include <optional>
#include <string_view>

namespace qeli::config {

enum class Transport { kTcp, kUdp };

/// Server `obf.mode`. padding / fragmentation / the REALITY proxy are switches of a
/// profile, not modes of their own.
enum class ObfMode { kFakeTls, kObfs, kPlain, kRealityTls };

/// Client `mode` and link `mode=`: what the client speaks. `reality` is fake-tls whose
/// session_id carries the REALITY token; `reality-tls` wraps the flight in real TLS 1.3.
enum class ClientMode { kFakeTls, kObfs, kPlain, kReality, kRealityTls };

/// obfs WebSocket fronting (`obf.obfs_fronting`, client `front`, link `front=`).
enum class Fronting { kWebsocket, kNone };

std::string_view to_string(Transport t);
std::string_view to_string(ObfMode m);
std::string_view to_string(ClientMode m);
std::string_view to_string(Fronting f);

std::optional<Transport> parse_transport(std::string_view s);
std::optional<ClientMode> parse_client_mode(std::string_view s);  // no aliases
std::optional<Fronting> parse_fronting(std::string_view s);

/// The aliases `udp-quic` (= udp + fake-tls + quic) and `udp-obfs` (= udp + obfs).
struct ModeAlias {
  Transport transport;
  ClientMode mode;
  bool quic;
};
std::optional<ModeAlias> parse_mode_alias(std::string_view s);

/// Why a transport/mode pair is impossible (null if it is allowed): plain and
/// reality-tls are TCP-only, and so is the REALITY proxy.
const char* transport_mode_conflict(Transport t, ClientMode m);

/// True for a REALITY short id (config/short_id.h parse_short_id: 1..16 hex digits with
/// optional ':' '-' ' ' separators, not decoding to all zero; reference §4.1, §5.8).
bool is_valid_short_id(std::string_view s);

}  // namespace qeli::config
