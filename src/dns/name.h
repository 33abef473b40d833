// Domain names (RFC 1035 §3.1, §4.1.4): reading them out of a message, compression
// pointers included, and parsing them from configuration text.
//
// A name is held in canonical wire form: length-prefixed labels ending with the root's
// zero byte, ASCII letters lower-cased (names compare case-insensitively, RFC 4343), at
// most 255 bytes. `"\x03www\x07example\x03com\x00"` is www.example.com.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"

namespace qeli::dns {

/// Reads the name at `offset` of `msg` into `out` (canonical wire form) and advances
/// `offset` past it (past the first pointer, if the name is compressed). Refused, with
/// `offset` unchanged: a read past the end, a label above 63 bytes, a name above 255
/// bytes, the reserved label types 0x40/0x80, a pointer that does not point strictly
/// backwards (so chains cannot loop) or points into the 12-byte header, a name that
/// after a pointer reads bytes at or beyond that pointer, or more than kMaxPointerHops
/// pointers.
bool read_name(ByteSpan msg, std::size_t& offset, std::string& out);

/// A configured domain (`example.com`, `example.com.`, `*.example.com` — the same:
/// the name and everything under it) as a canonical wire name. nullopt for the root,
/// an empty label, a label above 63 bytes, a name above 253 characters, or a character
/// other than letters, digits, '-' and '_'.
std::optional<std::string> parse_domain(std::string_view text);

/// `www.example.com` for logs (non-printable bytes escaped as \DDD, RFC 1035 §5.1).
std::string to_text(std::string_view wire_name);

/// The wire name without its first label (`example.com` for `www.example.com`); the
/// root stays the root. Precondition: `wire_name` is canonical.
std::string_view parent(std::string_view wire_name);

}  // namespace qeli::dns
