#include "crypto/totp.h"

#include <array>
#include <cstdio>

#include "crypto/base32.h"
#include "crypto/ct.h"
#include "crypto/sha1.h"

namespace qeli::crypto {
namespace {

constexpr std::array<std::uint32_t, 10> kPow10{1,      10,      100,      1000,      10000,
                                               100000, 1000000, 10000000, 100000000, 1000000000};

std::string uri_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

}  // namespace

std::uint32_t hotp(ByteSpan key, std::uint64_t counter, int digits) {
  std::array<std::uint8_t, 8> msg{};
  for (int i = 7; i >= 0; --i) {
    msg[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(counter & 0xFF);
    counter >>= 8;
  }
  const Digest20 h = hmac_sha1(key, msg);
  const std::size_t off = h[19] & 0x0F;
  const std::uint32_t bin = (static_cast<std::uint32_t>(h[off] & 0x7F) << 24) |
                            (static_cast<std::uint32_t>(h[off + 1]) << 16) |
                            (static_cast<std::uint32_t>(h[off + 2]) << 8) | h[off + 3];
  const int d = digits < 1 ? 1 : (digits > 9 ? 9 : digits);
  return bin % kPow10[static_cast<std::size_t>(d)];
}

std::uint64_t totp_step(std::int64_t unix_secs) {
  return unix_secs <= 0 ? 0 : static_cast<std::uint64_t>(unix_secs / kTotpStepSecs);
}

std::string totp_code(ByteSpan key, std::uint64_t step, int digits) {
  const int d = digits < 1 ? 1 : (digits > 9 ? 9 : digits);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*u", d, hotp(key, step, d));
  return buf;
}

std::optional<std::uint64_t> totp_match(ByteSpan key, std::string_view code, std::int64_t unix_secs,
                                        int window, int digits) {
  if (digits < 1 || digits > 9 || code.size() != static_cast<std::size_t>(digits)) {
    return std::nullopt;
  }
  for (const char c : code) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  const std::uint64_t now = totp_step(unix_secs);
  std::optional<std::uint64_t> found;
  // Every candidate is computed and compared (no early exit on the match).
  for (int delta = -window; delta <= window; ++delta) {
    if (delta < 0 && now < static_cast<std::uint64_t>(-delta)) continue;
    const std::uint64_t step = now + static_cast<std::uint64_t>(static_cast<std::int64_t>(delta));
    const std::string want = totp_code(key, step, digits);
    if (ct_equal(as_bytes(want), as_bytes(code)) && !found) found = step;
  }
  return found;
}

std::string otpauth_uri(std::string_view issuer, std::string_view account, ByteSpan key) {
  return "otpauth://totp/" + uri_escape(issuer) + ":" + uri_escape(account) +
         "?secret=" + base32_encode(key) + "&issuer=" + uri_escape(issuer) +
         "&algorithm=SHA1&digits=" + std::to_string(kTotpDigits) +
         "&period=" + std::to_string(kTotpStepSecs);
}

}  // namespace qeli::crypto
