// Base64 (RFC 4648 §4) and base64url without padding (§5), over OpenSSL's codec. Used by
// the WebSocket front (Sec-WebSocket-Key/-Accept, the derived secret path).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"

namespace qeli::crypto {

/// Standard alphabet with '=' padding.
std::string base64_encode(ByteSpan data);
/// Strict: standard alphabet, length a multiple of 4, padding only at the end. nullopt
/// on anything else.
std::optional<Bytes> base64_decode(std::string_view text);
/// URL-safe alphabet ('-', '_'), no padding.
std::string base64url_encode(ByteSpan data);

}  // namespace qeli::crypto
