#include "wire/ws_frame.h"

#include <cstring>

#include "crypto/cpu_features.h"

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

// The key rotated to the first byte's offset, repeated: 32 bytes (the widest step below;
// every step is a multiple of 4 bytes, so the phase holds from one step to the next).
using Rotated = std::array<std::uint8_t, 32>;

// GCC/Clang vector types: SSE2 or AVX2 on x86-64, NEON on AArch64, words elsewhere.
using Vec16 = std::uint8_t __attribute__((vector_size(16)));
using Vec32 = std::uint8_t __attribute__((vector_size(32)));

// XORs the bulk of `src` with the rotated key into `dst`, one Vec (W bytes) at a time,
// four a step, all loaded before any is stored (dst may be src). Returns the bytes done (a
// multiple of W); the rest, < W, is the caller's. Loads and stores go through memcpy:
// payloads sit at any address. Always inlined, so each caller's target (AVX2 or not) is
// the one its body is compiled for.
template <typename Vec>
[[gnu::always_inline]] inline std::size_t mask_bulk(std::uint8_t* dst, const std::uint8_t* src,
                                                    std::size_t n, const Rotated& rot) {
  constexpr std::size_t W = sizeof(Vec);
  static_assert(W <= sizeof(Rotated) && W % 4 == 0);
  Vec m;
  std::memcpy(&m, rot.data(), W);
  std::size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    Vec a, b, c, d;
    std::memcpy(&a, src + i, W);
    std::memcpy(&b, src + i + W, W);
    std::memcpy(&c, src + i + 2 * W, W);
    std::memcpy(&d, src + i + 3 * W, W);
    a ^= m;
    b ^= m;
    c ^= m;
    d ^= m;
    std::memcpy(dst + i, &a, W);
    std::memcpy(dst + i + W, &b, W);
    std::memcpy(dst + i + 2 * W, &c, W);
    std::memcpy(dst + i + 3 * W, &d, W);
  }
  for (; i + W <= n; i += W) {
    Vec a;
    std::memcpy(&a, src + i, W);
    a ^= m;
    std::memcpy(dst + i, &a, W);
  }
  return i;
}

using BulkFn = std::size_t (*)(std::uint8_t*, const std::uint8_t*, std::size_t, const Rotated&);

std::size_t mask_bulk16(std::uint8_t* dst, const std::uint8_t* src, std::size_t n,
                        const Rotated& rot) {
  return mask_bulk<Vec16>(dst, src, n, rot);
}

#if defined(__x86_64__)
[[gnu::target("avx2")]] std::size_t mask_bulk32(std::uint8_t* dst, const std::uint8_t* src,
                                                std::size_t n, const Rotated& rot) {
  return mask_bulk<Vec32>(dst, src, n, rot);
}
#endif

BulkFn bulk_for(WsMaskForm form) {
  switch (form) {
    case WsMaskForm::kWords8: return nullptr;
    case WsMaskForm::kVec16: return mask_bulk16;
    case WsMaskForm::kVec32:
#if defined(__x86_64__)
      return mask_bulk32;
#else
      return mask_bulk16;  // not available: ws_mask_form_available() says so
#endif
  }
  return nullptr;
}

void copy_masked(BulkFn bulk, std::uint8_t* dst, const std::uint8_t* src, std::size_t n,
                 const WsMask& mask, std::uint64_t offset) {
  const std::array<std::uint8_t, 4> key = {mask[offset & 3], mask[(offset + 1) & 3],
                                           mask[(offset + 2) & 3], mask[(offset + 3) & 3]};
  Rotated rot;
  for (std::size_t i = 0; i < rot.size(); i += 4) std::memcpy(rot.data() + i, key.data(), 4);
  std::size_t i = bulk != nullptr && n >= 16 ? bulk(dst, src, n, rot) : 0;
  std::uint64_t m64 = 0;
  std::memcpy(&m64, rot.data(), 8);
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, src + i, 8);
    w ^= m64;
    std::memcpy(dst + i, &w, 8);
  }
  for (; i < n; ++i) dst[i] = static_cast<std::uint8_t>(src[i] ^ rot[i % 8]);
}

}  // namespace

bool ws_mask_form_available(WsMaskForm form) {
  return form != WsMaskForm::kVec32 || crypto::cpu_has_avx2();
}

void ws_copy_masked_as(WsMaskForm form, std::uint8_t* dst, const std::uint8_t* src, std::size_t n,
                       const WsMask& mask, std::uint64_t offset) {
  copy_masked(bulk_for(form), dst, src, n, mask, offset);
}

void ws_copy_masked(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, const WsMask& mask,
                    std::uint64_t offset) {
  // Chosen once. On this box (Zen 5), 16 KiB in L1 / from L2: ≈ 100 / 85 GB/s with AVX2,
  // ≈ 65 / 58 GB/s with 16-byte vectors, ≈ 22 GB/s with 8-byte words (wire_bench BM_WsMask).
  static const BulkFn bulk = bulk_for(
      ws_mask_form_available(WsMaskForm::kVec32) ? WsMaskForm::kVec32 : WsMaskForm::kVec16);
  copy_masked(bulk, dst, src, n, mask, offset);
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
