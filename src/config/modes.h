// Names shared by server profiles, client configs and links: carrier transport, the
// server's obf.mode and the client's mode (reference §3.1, §5.5, §5.7, §6.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wire/modes.h"

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

/// The mode table's carrier for a transport (wire/modes.h).
wire::Carrier carrier_of(Transport t);
/// The mode table's row for what a client speaks / a profile serves (never null: every
/// name the parsers accept has a row on some carrier — null only for a pair that
/// transport_mode_conflict refuses).
const wire::ModeSpec* mode_spec(Transport t, ClientMode m);
const wire::ModeSpec* mode_spec(Transport t, ObfMode m);

/// Why a transport/mode pair is impossible (empty if the mode table has it): plain,
/// reality and reality-tls are TCP-only. Whether a mode is built is checked at start-up
/// (wire::refusal), not here.
std::string transport_mode_conflict(Transport t, ClientMode m);
std::string transport_mode_conflict(Transport t, ObfMode m);

/// True for a REALITY short id (config/short_id.h parse_short_id: 1..16 hex digits with
/// optional ':' '-' ' ' separators, not decoding to all zero; reference §4.1, §5.8).
bool is_valid_short_id(std::string_view s);

}  // namespace qeli::config
