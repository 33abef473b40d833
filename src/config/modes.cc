#include "config/modes.h"

#include "config/short_id.h"

namespace qeli::config {

std::string_view to_string(Transport t) { return t == Transport::kTcp ? "tcp" : "udp"; }

std::string_view to_string(ObfMode m) {
  switch (m) {
    case ObfMode::kFakeTls: return "fake-tls";
    case ObfMode::kObfs: return "obfs";
    case ObfMode::kPlain: return "plain";
    case ObfMode::kRealityTls: return "reality-tls";
  }
  return "fake-tls";
}

std::string_view to_string(ClientMode m) {
  switch (m) {
    case ClientMode::kFakeTls: return "fake-tls";
    case ClientMode::kObfs: return "obfs";
    case ClientMode::kPlain: return "plain";
    case ClientMode::kReality: return "reality";
    case ClientMode::kRealityTls: return "reality-tls";
  }
  return "fake-tls";
}

std::string_view to_string(Fronting f) { return f == Fronting::kWebsocket ? "websocket" : "none"; }

std::optional<Transport> parse_transport(std::string_view s) {
  if (s == "tcp") return Transport::kTcp;
  if (s == "udp") return Transport::kUdp;
  return std::nullopt;
}

std::optional<ClientMode> parse_client_mode(std::string_view s) {
  if (s == "fake-tls") return ClientMode::kFakeTls;
  if (s == "obfs") return ClientMode::kObfs;
  if (s == "plain") return ClientMode::kPlain;
  if (s == "reality") return ClientMode::kReality;
  if (s == "reality-tls") return ClientMode::kRealityTls;
  return std::nullopt;
}

std::optional<Fronting> parse_fronting(std::string_view s) {
  if (s == "websocket") return Fronting::kWebsocket;
  if (s == "none") return Fronting::kNone;
  return std::nullopt;
}

std::optional<ModeAlias> parse_mode_alias(std::string_view s) {
  if (s == "udp-quic") return ModeAlias{Transport::kUdp, ClientMode::kFakeTls, true};
  if (s == "udp-obfs") return ModeAlias{Transport::kUdp, ClientMode::kObfs, false};
  return std::nullopt;
}

wire::Carrier carrier_of(Transport t) {
  return t == Transport::kTcp ? wire::Carrier::kStream : wire::Carrier::kDatagram;
}

const wire::ModeSpec* mode_spec(Transport t, ClientMode m) {
  return wire::find_mode(carrier_of(t), to_string(m));
}

const wire::ModeSpec* mode_spec(Transport t, ObfMode m) {
  return wire::find_mode(carrier_of(t), to_string(m));
}

namespace {

std::string conflict(Transport t, std::string_view name) {
  if (wire::find_mode(carrier_of(t), name) != nullptr) return {};
  return wire::refusal(carrier_of(t), name);
}

}  // namespace

std::string transport_mode_conflict(Transport t, ClientMode m) { return conflict(t, to_string(m)); }

std::string transport_mode_conflict(Transport t, ObfMode m) { return conflict(t, to_string(m)); }

bool is_valid_short_id(std::string_view s) { return parse_short_id(s).has_value(); }

}  // namespace qeli::config
