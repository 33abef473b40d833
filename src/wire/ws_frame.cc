#include "wire/ws_frame.h"

#include <cstring>

namespace qeli::wire {

std::size_t write_ws_header(std::uint8_t* out, WsOpcode op, std::size_t len, const WsMask* mask) {
  std::size_t n = 0;
  out[n++] = static_cast<std::uint8_t>(0x80 | static_cast<std::uint8_t>(op));
  const std::uint8_t mbit = mask != nullptr ? 0x80 : 0x00;
  if (len <= 125) {
    out[n++] = static_cast<std::uint8_t>(mbit | len);
  } else if (len <= 0xFFFF) {
    out[n++] = static_cast<std::uint8_t>(mbit | 126);
    out[n++] = static_cast<std::uint8_t>(len >> 8);
    out[n++] = static_cast<std::uint8_t>(len);
  } else {
    out[n++] = static_cast<std::uint8_t>(mbit | 127);
    for (int i = 7; i >= 0; --i)
      out[n++] = static_cast<std::uint8_t>(std::uint64_t{len} >> (8 * i));
  }
  if (mask != nullptr) {
    std::memcpy(out + n, mask->data(), 4);
    n += 4;
  }
  return n;
}

namespace {

// 16 bytes as one value: SSE2 on every x86-64, NEON on AArch64 (a GCC/Clang vector type;
// a target without either gets it lowered to words). Loads and stores go through memcpy:
// payloads sit at any address.
using Vec16 = std::uint8_t __attribute__((vector_size(16)));
constexpr std::size_t kVec = sizeof(Vec16);

Vec16 load16(const std::uint8_t* p) {
  Vec16 v;
  std::memcpy(&v, p, kVec);
  return v;
}
void store16(std::uint8_t* p, Vec16 v) { std::memcpy(p, &v, kVec); }

}  // namespace

void ws_copy_masked(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, const WsMask& mask,
                    std::uint64_t offset) {
  // The key rotated to `offset` and repeated over 16 bytes; every step is a multiple of 4
  // bytes, so the phase holds from one step to the next. Four vectors per step, all loaded
  // before any is stored (dst may be src): ≈ 3× the 8-byte loop on this box, L1 to L3.
  std::uint8_t rot[kVec];
  for (std::size_t i = 0; i < kVec; ++i) rot[i] = mask[(offset + i) % 4];
  const Vec16 m = load16(rot);
  std::size_t i = 0;
  for (; i + 4 * kVec <= n; i += 4 * kVec) {
    const Vec16 a = load16(src + i) ^ m;
    const Vec16 b = load16(src + i + kVec) ^ m;
    const Vec16 c = load16(src + i + 2 * kVec) ^ m;
    const Vec16 d = load16(src + i + 3 * kVec) ^ m;
    store16(dst + i, a);
    store16(dst + i + kVec, b);
    store16(dst + i + 2 * kVec, c);
    store16(dst + i + 3 * kVec, d);
  }
  for (; i + kVec <= n; i += kVec) store16(dst + i, load16(src + i) ^ m);
  if (i + 8 <= n) {
    std::uint64_t w = 0, m64 = 0;
    std::memcpy(&w, src + i, 8);
    std::memcpy(&m64, rot, 8);
    w ^= m64;
    std::memcpy(dst + i, &w, 8);
    i += 8;
  }
  for (; i < n; ++i) dst[i] = static_cast<std::uint8_t>(src[i] ^ rot[i % kVec]);
}

void ws_apply_mask(MutableByteSpan data, const WsMask& mask, std::uint64_t offset) {
  ws_copy_masked(data.data(), data.data(), data.size(), mask, offset);
}

const char* to_string(WsFrameError e) {
  switch (e) {
    case WsFrameError::kReservedBits: return "WebSocket frame with reserved bits set";
    case WsFrameError::kReservedOpcode: return "WebSocket frame with a reserved opcode";
    case WsFrameError::kTooLong: return "WebSocket frame longer than 16384 bytes";
    case WsFrameError::kControlTooLong: return "WebSocket control frame longer than 125 bytes";
    case WsFrameError::kControlFragmented: return "fragmented WebSocket control frame";
    case WsFrameError::kMaskExpected: return "unmasked WebSocket frame from the client";
    case WsFrameError::kMaskUnexpected: return "masked WebSocket frame from the server";
  }
  return "?";
}

Result<std::optional<WsFrameHeader>, WsFrameError> parse_ws_header(ByteSpan buf, bool from_client) {
  if (buf.size() < 2) return std::optional<WsFrameHeader>{};
  WsFrameHeader h;
  const std::uint8_t b0 = buf[0];
  const std::uint8_t b1 = buf[1];
  if ((b0 & 0x70) != 0) return fail(WsFrameError::kReservedBits);
  const std::uint8_t op = b0 & 0x0F;
  if ((op >= 0x3 && op <= 0x7) || op >= 0xB) return fail(WsFrameError::kReservedOpcode);
  h.opcode = static_cast<WsOpcode>(op);
  h.fin = (b0 & 0x80) != 0;
  h.masked = (b1 & 0x80) != 0;
  if (from_client && !h.masked) return fail(WsFrameError::kMaskExpected);
  if (!from_client && h.masked) return fail(WsFrameError::kMaskUnexpected);
  const std::uint8_t len7 = b1 & 0x7F;
  std::size_t n = 2;
  if (len7 == 126) {
    if (buf.size() < 4) return std::optional<WsFrameHeader>{};
    h.length = (std::uint64_t{buf[2]} << 8) | buf[3];
    n = 4;
  } else if (len7 == 127) {
    if (buf.size() < 10) return std::optional<WsFrameHeader>{};
    for (std::size_t i = 0; i < 8; ++i) h.length = (h.length << 8) | buf[2 + i];
    n = 10;
  } else {
    h.length = len7;
  }
  const bool control = op >= 0x8;
  if (control && h.length > kWsMaxControlPayload) return fail(WsFrameError::kControlTooLong);
  if (control && !h.fin) return fail(WsFrameError::kControlFragmented);
  if (h.length > kWsMaxPayload) return fail(WsFrameError::kTooLong);
  if (h.masked) {
    if (buf.size() < n + 4) return std::optional<WsFrameHeader>{};
    std::memcpy(h.mask.data(), buf.data() + n, 4);
    n += 4;
  }
  h.header_size = n;
  return std::optional<WsFrameHeader>{h};
}

}  // namespace qeli::wire
