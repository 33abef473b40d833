// SHA-1 (FIPS 180-4) and HMAC-SHA1 (RFC 2104), over OpenSSL libcrypto. Used for RFC
// 6455's Sec-WebSocket-Accept (a fixed transform of the client's key) and for TOTP
// (RFC 6238 with RFC 4226's HMAC-SHA1, the algorithm every authenticator app speaks;
// HMAC-SHA1 is not affected by SHA-1's collision attacks).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace qeli::crypto {

using Digest20 = std::array<std::uint8_t, 20>;
Digest20 sha1(std::span<const std::uint8_t> data);
/// HMAC-SHA1(key, data); any key length.
Digest20 hmac_sha1(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data);

}  // namespace qeli::crypto
