// REALITY short ids (reference §4.1): 8 bytes, written as up to 16 hex digits, right-
// padded with zero bytes. One parser for the server's allow-list, per-user ids, the
// client's `reality_sid` and links, so every side maps a string to the same bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::config {

inline constexpr std::size_t kShortIdSize = 8;
using ShortId = std::array<std::uint8_t, kShortIdSize>;

/// 0.7.16's lenient decoding, kept byte-identical for compatibility: non-hex characters
/// are skipped, digits are taken in pairs (an odd last digit is dropped), at most 8 bytes,
/// zero-padded on the right. Never fails; use parse_short_id on untrusted input.
ShortId short_id_from_hex(std::string_view s);

/// 0.7.16's strict parse: after removing ':', '-' and ' ' separators, 1..16 hex digits;
/// the value (as short_id_from_hex decodes it) must not be all zero (so "0", "00" and a
/// single digit like "f" are refused: they decode to the all-zero wildcard).
std::optional<ShortId> parse_short_id(std::string_view s);

/// The canonical spelling of a short id for links and configs: its hex digits in lower
/// case with the separators removed ("AB:cd 01" -> "abcd01"). Decodes to the same bytes
/// as `s` through short_id_from_hex; a link that carries it survives trimming and
/// re-emission unchanged.
std::string short_id_digits(std::string_view s);

/// Lower-case hex of all 8 bytes (for logs and counters).
std::string short_id_hex(const ShortId& id);

}  // namespace qeli::config
