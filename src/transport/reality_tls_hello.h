// The ClientHello a reality-tls client opens with (docs/PROTOCOL.md "reality-tls"):
// Chromium's (tls/client_hello_builder.h) for the REALITY target's name, with the
// 0.7.16 REALITY token (wire/reality_token.h) in legacy_session_id. The token is sealed
// over the finished hello because its key comes from the hello's own stand-alone X25519
// share (0x001D): shared = X25519(that share's private key, the server's identity key).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "tls/client_hello_builder.h"
#include "wire/reality_token.h"

namespace qeli::transport {

struct RealityTlsHelloParams {
  std::string_view server_name;     ///< the target's host name (1..255 bytes)
  crypto::X25519Public server_key;  ///< the profile's pinned identity key
  wire::RealityShortId short_id{};
  std::uint64_t unix_secs = 0;  ///< now, wall clock (the server's ±120 s window)
  tls::HelloProfile profile = tls::HelloProfile::kChromium156;
};

/// The hello with its token; nullopt when the server key is a low-order point (no
/// shared secret: a corrupt `key`).
std::optional<tls::BuiltClientHello> build_reality_tls_hello(const RealityTlsHelloParams& p,
                                                             crypto::Rng& rng);

}  // namespace qeli::transport
