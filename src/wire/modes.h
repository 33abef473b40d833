// The transport modes: ONE table (docs/PROTOCOL.md "Transport modes"; reference
// qeli-0.7.16.md §3.1, §3.9) that config validation, links, the availability checks at
// start-up, the client and the server all read, instead of each mapping names, carriers
// and flights by hand.
//
// A mode is what the client's `mode` / a link's `mode=` / the server's `obf.mode` name on
// one carrier: which flight the qeli handshake runs, how data records are framed, and
// which outer layers wrap them (outer → inner). Padding, handshake fragmentation, the
// QUIC shape (`quic=1`) and AmneziaWG junk are switches of a mode, not modes; a switch
// that adds a layer is listed in `optional_layers`.
//
// A new outer layer is one transport::Stream (or DatagramEnvelope) and one row here:
// see tests/unit/engine/in_memory_session_test.cc, which adds a test-only XOR layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "wire/packet_codec.h"

namespace qeli::wire {

enum class Carrier : std::uint8_t { kStream, kDatagram };
std::string_view to_string(Carrier c);  ///< "tcp" / "udp"

/// Which qeli handshake flight runs (handshake::Mode is this type).
enum class Flight : std::uint8_t {
  kPlain,    ///< raw 32-byte X25519 keys, Raw framing, classic/bound KDF
  kFakeTls,  ///< fake-TLS flight, hybrid X25519 + ML-KEM-768, Tls framing
};

/// The record framing that goes with a flight, in the handshake and after it: Raw for
/// plain, Tls for fake-tls (every row of the modes table pairs them so).
constexpr Framing framing_of(Flight f) {
  return f == Flight::kPlain ? Framing::kRaw : Framing::kTls;
}

/// A layer outside the qeli records.
enum class Layer : std::uint8_t {
  kQuicShape,     ///< datagram: QUIC-shaped header (long in the handshake, 9-byte short after)
  kObfsSeal,      ///< datagram: the per-datagram obfs seal (13 bytes)
  kObfsXor,       ///< stream: ChaCha20 keystream over the bytes (TCP obfs)
  kWebSocket,     ///< stream: WebSocket frames after an HTTP upgrade (obfs front)
  kRealityProxy,  ///< stream: REALITY ClientHello peek, strangers bridged to the target
  kTls13,         ///< stream: a real TLS 1.3 session (reality-tls)
  kExternal,      ///< a layer supplied by an embedder or a test (no row of its own here)
  kCount
};

struct LayerInfo {
  std::string_view name;
  std::size_t head;  ///< bytes before each record / chunk (nominal for stream layers:
  std::size_t tail;  ///< the Stream's overhead() is what counts at run time)
  bool built;        ///< implemented in this build
};
const LayerInfo& layer_info(Layer l);

struct ModeSpec {
  std::string_view name;  ///< client `mode`, link `mode=`, server `obf.mode`
  Carrier carrier;
  Framing framing;
  Flight flight;
  std::span<const Layer> layers;           ///< always there, outer → inner
  std::span<const Layer> optional_layers;  ///< added by a switch (quic=1, a front)
  std::string_view summary;                ///< one line for docs and errors
};

/// Every mode, built or not.
std::span<const ModeSpec> all_modes();
/// The mode `name` on `carrier`, or null if there is none.
const ModeSpec* find_mode(Carrier carrier, std::string_view name);
/// True when every layer of `m` (optional ones included) is implemented in this build.
bool is_built(const ModeSpec& m);
bool has_layer(const ModeSpec& m, Layer l);
/// Why `name` cannot be used on `carrier` ("plain is TCP-only", "obfs over tcp is not
/// available in this build yet"), or empty if it can.
std::string refusal(Carrier carrier, std::string_view name);
/// "fake-tls|obfs|plain|…" — the names known on any carrier (for error messages).
std::string mode_names();

/// Room the mode's layers need around each record (with its optional layers when
/// `with_optional`): what batches reserve so every layer frames in place.
struct ModeRoom {
  std::size_t head = 0;
  std::size_t tail = 0;
};
ModeRoom room(const ModeSpec& m, bool with_optional = true);
/// The largest room of any built mode of `carrier`: what a server reserves when the
/// client picks the envelope (the QUIC shape is detected per client on UDP).
ModeRoom max_room(Carrier carrier);

}  // namespace qeli::wire
