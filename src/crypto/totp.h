// One-time passwords for the web panel's second factor: HOTP (RFC 4226) and TOTP
// (RFC 6238) with HMAC-SHA1, 6 digits and 30-second steps — the parameters every
// authenticator app assumes when an otpauth:// URI names none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"

namespace qeli::crypto {

inline constexpr std::int64_t kTotpStepSecs = 30;
inline constexpr int kTotpDigits = 6;
/// RFC 4226 §4 R6: at least 128 bits of secret; we make 160 (the HMAC-SHA1 block's
/// recommended size).
inline constexpr std::size_t kTotpMinSecretBytes = 16;
inline constexpr std::size_t kTotpSecretBytes = 20;

/// RFC 4226 §5.3: HMAC-SHA1(key, counter as 8 big-endian bytes), dynamic truncation,
/// modulo 10^digits (digits 1..9).
std::uint32_t hotp(ByteSpan key, std::uint64_t counter, int digits = kTotpDigits);

/// RFC 6238 §4: the time step of `unix_secs` (floor(unix_secs / 30); negative times are
/// step 0).
std::uint64_t totp_step(std::int64_t unix_secs);

/// The code of `step` as the user types it: `digits` decimal digits, leading zeros kept.
std::string totp_code(ByteSpan key, std::uint64_t step, int digits = kTotpDigits);

/// The step whose code `code` is, among now's step and `window` steps on either side
/// (RFC 6238 §5.2: clocks drift and people type slowly), compared in constant time per
/// candidate; nullopt if none (or `code` is not `digits` digits). The caller refuses a
/// step it has accepted before (§5.2: one use per code).
std::optional<std::uint64_t> totp_match(ByteSpan key, std::string_view code, std::int64_t unix_secs,
                                        int window = 1, int digits = kTotpDigits);

/// otpauth://totp/ISSUER:ACCOUNT?secret=BASE32&issuer=ISSUER&algorithm=SHA1&digits=6&period=30
/// (the Key URI format authenticator apps scan), label and issuer percent-encoded.
std::string otpauth_uri(std::string_view issuer, std::string_view account, ByteSpan key);

}  // namespace qeli::crypto
