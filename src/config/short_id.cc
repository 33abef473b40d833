#include "config/short_id.h"

#include <string>

#include "base/bytes.h"

namespace qeli::config {
ShortId short_id_from_hex(std::string_view s) {
  ShortId out{};
  std::string hex;
  for (char c : s) {
    if (hex_digit(c) >= 0) hex.push_back(c);
  }
  for (std::size_t i = 0; i / 2 < kShortIdSize && i + 1 < hex.size(); i += 2) {
    out[i / 2] = static_cast<std::uint8_t>((hex_digit(hex[i]) << 4) | hex_digit(hex[i + 1]));
  }
  return out;
}

std::optional<ShortId> parse_short_id(std::string_view s) {
  std::size_t digits = 0;
  for (char c : s) {
    if (c == ':' || c == '-' || c == ' ') continue;
    if (hex_digit(c) < 0) return std::nullopt;
    ++digits;
  }
  if (digits == 0 || digits > 2 * kShortIdSize) return std::nullopt;
  const ShortId id = short_id_from_hex(s);
  for (std::uint8_t b : id) {
    if (b != 0) return id;
  }
  return std::nullopt;  // the all-zero wildcard
}

std::string short_id_digits(std::string_view s) {
  std::string out;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d >= 0) out.push_back("0123456789abcdef"[d]);
  }
  return out;
}

std::string short_id_hex(const ShortId& id) { return to_hex(id); }

}  // namespace qeli::config
