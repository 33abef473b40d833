// The ClientHellos our reality-tls client sends (and the target prober uses):
//
//  * kChromium156 — byte-faithful to Chromium 156.0.8078 as captured in
//    shared/fixtures/chrome-clienthello/ (reality-tls.md Part B): record version 0x0301,
//    GREASE + 15 suites, 19 extensions (GREASE₁, a uniform shuffle of the 17, GREASE₂),
//    GREASE in suites/groups+key_share (one value)/sigalgs/versions, ML-DSA sigalgs,
//    X25519MLKEM768 + X25519 shares with two independent X25519 keys, ALPS 0x44cd,
//    trust_anchors 0xca34, ECH GREASE (payload 144/176/208/240), no padding.
//  * kQeli0716 — the realtls hello of qeli 0.7.16 (qeli-0.7.16.md §4.3): the same suites,
//    15 shuffled extensions, ALPS 0x4469, no ECH GREASE, no trust_anchors, 8 sigalgs,
//    ONE X25519 key in both shares, empty GREASE₂ and an always-present (zero-length)
//    padding extension. A 0.7.16 realtls server that answers with X25519MLKEM768 needs
//    it: it reuses the 0x001D key for the hybrid's X25519 half (docs/PROTOCOL.md).
//
// legacy_session_id is the caller's (the REALITY token). A token sealed over the finished
// hello is patched in afterwards with set_session_id() (tls/hello_writer.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "crypto/random.h"
#include "tls/constants.h"
#include "tls/key_exchange.h"

namespace qeli::tls {

enum class HelloProfile : std::uint8_t { kChromium156, kQeli0716 };
const char* to_string(HelloProfile p);

/// The ALPN a Chrome connection offers: h2+http/1.1 (with ALPS) or http/1.1 only (no ALPS,
/// e.g. WebSocket; reality-tls.md B.6).
enum class HelloAlpn : std::uint8_t { kH2AndHttp11, kHttp11Only };

/// The longest server_name our hellos carry (RFC 6066 §3 would allow more; a DNS host
/// name has at most 253 characters, and config checks hold names to that).
inline constexpr std::size_t kMaxServerNameSize = 255;

struct ClientHelloParams {
  HelloProfile profile = HelloProfile::kChromium156;
  std::string_view server_name;  ///< non-empty host name (1..kMaxServerNameSize bytes)
  std::array<std::uint8_t, kLegacySessionIdSize> session_id{};
  HelloAlpn alpn = HelloAlpn::kH2AndHttp11;
  /// ECH GREASE AEAD: AES-128-GCM where the CPU has AES instructions, else ChaCha20
  /// (BoringSSL's rule; reality-tls.md B.5). Defaults to what this CPU has.
  bool aes_hardware = true;
  /// 0x0301 for a first hello, 0x0303 for the second hello after an HRR (B.1).
  std::uint16_t record_version = kRecordVersionTls10;
};

struct BuiltClientHello {
  Bytes record;          ///< the whole record, one write
  ClientKeyShares keys;  ///< private halves of the shares it carries
  std::array<std::uint8_t, kRandomSize> random{};
};

/// Builds the hello; every per-connection value (random, GREASE, order, keys, ECH) comes
/// from `rng`. `server_name` must be 1..255 bytes (a longer one aborts: a bug upstream).
BuiltClientHello build_client_hello(const ClientHelloParams& p, crypto::Rng& rng);

/// True if this CPU has AES instructions (x86 AES-NI / ARMv8 AES), for `aes_hardware`.
bool cpu_has_aes();

/// The 15 suites after the GREASE one, in Chrome's (fixed) order.
inline constexpr std::array<std::uint16_t, 15> kChromeCipherSuites = {
    0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9,
    0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035};

}  // namespace qeli::tls
