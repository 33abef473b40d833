#include "wire/modes.h"

#include <algorithm>
#include <array>

#include "wire/limits.h"

namespace qeli::wire {
namespace {

constexpr std::array<LayerInfo, static_cast<std::size_t>(Layer::kCount)> kLayers{{
    {"quic", kQuicShortHeaderSize, 0, true},
    {"obfs-seal", kObfsSealSize, 0, true},
    {"obfs-xor", 0, 0, true},
    {"websocket", 14, 0, true},  // a masked client frame header with a 64-bit length
    {"reality-proxy", 0, 0, true},
    {"tls13", 5, 17, true},  // record header; content type + AEAD tag
    {"external", 0, 0, true},
}};

constexpr Layer kQuic[] = {Layer::kQuicShape};
constexpr Layer kSeal[] = {Layer::kObfsSeal};
constexpr Layer kXor[] = {Layer::kObfsXor};
constexpr Layer kWs[] = {Layer::kWebSocket};
constexpr Layer kReality[] = {Layer::kRealityProxy};
constexpr Layer kRealityTls[] = {Layer::kRealityProxy, Layer::kTls13};
constexpr std::span<const Layer> kEmpty{};

constexpr ModeSpec kModes[] = {
    {"plain", Carrier::kStream, Framing::kRaw, Flight::kPlain, kEmpty, kEmpty,
     "raw X25519 flight, 2-byte record headers: the least overhead, no disguise"},
    {"fake-tls", Carrier::kStream, Framing::kTls, Flight::kFakeTls, kEmpty, kEmpty,
     "a TLS 1.3-shaped flight and records (hybrid X25519 + ML-KEM-768)"},
    {"obfs", Carrier::kStream, Framing::kTls, Flight::kFakeTls, kXor, kWs,
     "fake-tls under a ChaCha20 keystream, optionally behind a WebSocket front"},
    {"reality", Carrier::kStream, Framing::kTls, Flight::kFakeTls, kReality, kEmpty,
     "fake-tls whose session_id carries the REALITY token; strangers reach the target"},
    {"reality-tls", Carrier::kStream, Framing::kTls, Flight::kFakeTls, kRealityTls, kEmpty,
     "fake-tls inside a real TLS 1.3 session behind the REALITY gate; strangers reach the target"},
    {"fake-tls", Carrier::kDatagram, Framing::kTls, Flight::kFakeTls, kEmpty, kQuic,
     "one record per datagram; optionally QUIC-shaped (quic=1)"},
    {"obfs", Carrier::kDatagram, Framing::kTls, Flight::kFakeTls, kSeal, kQuic,
     "fake-tls datagrams under the per-datagram obfs seal"},
};

}  // namespace

std::string_view to_string(Carrier c) { return c == Carrier::kStream ? "tcp" : "udp"; }

const LayerInfo& layer_info(Layer l) { return kLayers[static_cast<std::size_t>(l)]; }

std::span<const ModeSpec> all_modes() { return kModes; }

const ModeSpec* find_mode(Carrier carrier, std::string_view name) {
  for (const ModeSpec& m : kModes) {
    if (m.carrier == carrier && m.name == name) return &m;
  }
  return nullptr;
}

bool has_layer(const ModeSpec& m, Layer l) {
  return std::find(m.layers.begin(), m.layers.end(), l) != m.layers.end() ||
         std::find(m.optional_layers.begin(), m.optional_layers.end(), l) !=
             m.optional_layers.end();
}

bool is_built(const ModeSpec& m) {
  const auto built = [](Layer l) { return layer_info(l).built; };
  return std::all_of(m.layers.begin(), m.layers.end(), built) &&
         std::all_of(m.optional_layers.begin(), m.optional_layers.end(), built);
}

std::string refusal(Carrier carrier, std::string_view name) {
  const ModeSpec* m = find_mode(carrier, name);
  if (m == nullptr) {
    const Carrier other = carrier == Carrier::kStream ? Carrier::kDatagram : Carrier::kStream;
    if (find_mode(other, name) != nullptr) {
      return std::string(name) + (other == Carrier::kStream ? " is TCP-only" : " is UDP-only");
    }
    return "unknown mode " + std::string(name) + " (one of " + mode_names() + ")";
  }
  if (!is_built(*m)) {
    return std::string(name) + " over " + std::string(to_string(carrier)) +
           " is not available in this build yet";
  }
  return {};
}

std::string mode_names() {
  std::string out;
  for (std::size_t i = 0; i < std::size(kModes); ++i) {
    const ModeSpec& m = kModes[i];
    const auto earlier = [&](const ModeSpec& e) { return e.name == m.name; };
    if (std::any_of(kModes, kModes + i, earlier)) continue;
    if (!out.empty()) out += '|';
    out += m.name;
  }
  return out;
}

ModeRoom room(const ModeSpec& m, bool with_optional) {
  ModeRoom r;
  auto add = [&](Layer l) {
    r.head += layer_info(l).head;
    r.tail += layer_info(l).tail;
  };
  for (Layer l : m.layers) add(l);
  if (with_optional) {
    for (Layer l : m.optional_layers) add(l);
  }
  return r;
}

ModeRoom max_room(Carrier carrier) {
  ModeRoom out;
  for (const ModeSpec& m : kModes) {
    if (m.carrier != carrier || !is_built(m)) continue;
    const ModeRoom r = room(m);
    out.head = std::max(out.head, r.head);
    out.tail = std::max(out.tail, r.tail);
  }
  return out;
}

}  // namespace qeli::wire
