// SHA-1 (FIPS 180-4), for RFC 6455's Sec-WebSocket-Accept only (a fixed transform of
// the client's key, not a security function here). Over OpenSSL libcrypto.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace qeli::crypto {

using Digest20 = std::array<std::uint8_t, 20>;
Digest20 sha1(std::span<const std::uint8_t> data);

}  // namespace qeli::crypto
