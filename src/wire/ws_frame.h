// RFC 6455 §5.2 frames as the obfs WebSocket front uses them (docs/PROTOCOL.md "obfs
// WebSocket frames"): FIN binary frames (0x82) carrying obfs stream bytes, at most
// kWsMaxPayload each (0.7.16 sends no more and refuses more, in every length form);
// client→server frames masked with a fresh 4-byte key; Ping/Pong/Close (≤ 125 bytes,
// never fragmented) answered by the stream layer. Continuation frames deliver like
// binary ones (the stream is a byte stream, message boundaries carry no meaning); text
// frames are skipped (0.7.16 does the same).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"

namespace qeli::wire {

inline constexpr std::size_t kWsMaxPayload = 16384;
inline constexpr std::size_t kWsMaxControlPayload = 125;
/// 2 + 8 (64-bit length) + 4 (mask): the largest header of any form.
inline constexpr std::size_t kWsMaxHeader = 14;
/// The largest header of a frame of ≤ kWsMaxPayload bytes (16-bit length form).
inline constexpr std::size_t kWsDataHeader = 4;
inline constexpr std::size_t kWsMaskedDataHeader = 8;

enum class WsOpcode : std::uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

using WsMask = std::array<std::uint8_t, 4>;

/// Header bytes of a frame of `len` payload bytes (2, 4 or 10; + 4 when masked).
constexpr std::size_t ws_header_size(std::size_t len, bool masked) {
  return (len <= 125 ? 2 : len <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0);
}

/// Writes a FIN frame header of `op` for `len` payload bytes into `out` (which holds at
/// least ws_header_size(len, mask != nullptr) bytes). Returns the header size.
std::size_t write_ws_header(std::uint8_t* out, WsOpcode op, std::size_t len, const WsMask* mask);

/// XORs `data` with `mask`, starting at mask byte (`offset` mod 4) — the masked payload
/// of a frame, possibly processed in pieces (RFC 6455 §5.3).
void ws_apply_mask(MutableByteSpan data, const WsMask& mask, std::uint64_t offset = 0);
/// Copies `src` to `dst` (same size, or dst == src) XORing `mask` on the way (offset as
/// above), with the widest form of the loop this CPU has.
void ws_copy_masked(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, const WsMask& mask,
                    std::uint64_t offset);

/// The forms of the masking loop: 8-byte words only, 16-byte vectors (every target), 32-byte
/// vectors (x86-64 with AVX2). All give the same bytes; tests and benchmarks pick one.
enum class WsMaskForm : std::uint8_t { kWords8, kVec16, kVec32 };
bool ws_mask_form_available(WsMaskForm form);
/// ws_copy_masked() in `form` (which must be available).
void ws_copy_masked_as(WsMaskForm form, std::uint8_t* dst, const std::uint8_t* src, std::size_t n,
                       const WsMask& mask, std::uint64_t offset);

struct WsFrameHeader {
  WsOpcode opcode = WsOpcode::kBinary;
  bool fin = true;
  bool masked = false;
  WsMask mask{};
  std::uint64_t length = 0;     ///< payload bytes
  std::size_t header_size = 0;  ///< bytes before the payload
};

enum class WsFrameError : std::uint8_t {
  kReservedBits,       ///< RSV1..3 set (no extension was negotiated)
  kReservedOpcode,     ///< 0x3..0x7, 0xB..0xF
  kTooLong,            ///< payload > kWsMaxPayload (any length form, incl. 2^63)
  kControlTooLong,     ///< a control frame over 125 bytes
  kControlFragmented,  ///< a control frame without FIN
  kMaskExpected,       ///< an unmasked frame from a client (RFC 6455 §5.1)
  kMaskUnexpected,     ///< a masked frame from a server (§5.1)
};
const char* to_string(WsFrameError e);

/// Parses the header at the start of `buf`. nullopt: more bytes are needed (never more
/// than kWsMaxHeader in total). `from_client` selects which masking rule applies.
Result<std::optional<WsFrameHeader>, WsFrameError> parse_ws_header(ByteSpan buf, bool from_client);

}  // namespace qeli::wire
