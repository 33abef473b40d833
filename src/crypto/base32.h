// Base32 (RFC 4648 §6), the alphabet A–Z 2–7: how authenticator apps take a TOTP secret
// (typed by hand or inside an otpauth:// URI).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"

namespace qeli::crypto {

/// Upper case, without '=' padding (what otpauth:// URIs carry).
std::string base32_encode(ByteSpan data);
/// Accepts either case, ignores spaces (secrets are often shown in groups of four) and
/// trailing '=' padding. nullopt on any other character, or on a length no encoder
/// produces (leftover bits that are not zero).
std::optional<Bytes> base32_decode(std::string_view text);

}  // namespace qeli::crypto
