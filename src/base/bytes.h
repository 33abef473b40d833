// Byte vocabulary types and hex helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qeli {

using Bytes = std::vector<std::uint8_t>;
using ByteSpan = std::span<const std::uint8_t>;
using MutableByteSpan = std::span<std::uint8_t>;

/// The value of one hex digit (either case), or -1 for any other character.
int hex_digit(char c);

/// Lower-case hex of `data` (2 characters per byte).
std::string to_hex(ByteSpan data);

/// Parses hex (either case, even length, no separators). Returns nullopt on any other input.
std::optional<Bytes> from_hex(std::string_view hex);

/// Parses hex into exactly `out.size()` bytes; false if the length or a digit is wrong.
bool from_hex_into(std::string_view hex, MutableByteSpan out);

/// A view of the bytes of a string (no copy).
inline ByteSpan as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// Appends `src` to `dst`.
inline void append(Bytes& dst, ByteSpan src) { dst.insert(dst.end(), src.begin(), src.end()); }

}  // namespace qeli
