// The reality-tls channel binding (capability bit caps::kTlsBinding; docs/PROTOCOL.md
// §16). Our reality-tls client does not verify the outer certificate — the inner qeli
// proof authenticates the server — so a man in the middle could terminate TLS on both
// sides and relay the inner bytes: harmless while the inner AEAD is on, fatal once it is
// dropped. Each end therefore proves, inside the inner (authenticated, encrypted) channel,
// which TLS session it sees:
//
//   exporter = TLS-Exporter("EXPORTER-qeli-tls-binding", "", 32)     (RFC 8446 §7.5)
//   proof    = HMAC-SHA256(exporter, "qeli tls binding " ‖ side)     side: client|server
//
// The server's proof rides in AUTH OK (`x_tls_bind`, hex), the client's in control frame
// 0x42 right after its capability frame. Equal exporters mean one TLS session end to end
// (RFC 9266's idea); a mismatch between two of ours means TLS was terminated in between,
// and the client refuses the session (Failure::kTlsBindingMismatch).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "crypto/sha256.h"

namespace qeli::handshake {

inline constexpr std::string_view kTlsBindingExporterLabel = "EXPORTER-qeli-tls-binding";
using TlsExporter = std::array<std::uint8_t, 32>;

enum class BindingSide : std::uint8_t { kClient, kServer };

/// The 32-byte proof `side` sends for `exporter`.
crypto::Digest32 tls_binding_proof(const TlsExporter& exporter, BindingSide side);

}  // namespace qeli::handshake
