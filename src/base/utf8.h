// UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing past U+10FFFF.
// Pure functions over bytes; used where text crosses a trust boundary (credentials, an
// app's refusal reason).
#pragma once

#include <cstddef>
#include <string_view>

namespace qeli {

/// True when `s` is valid UTF-8 (NUL is a character like any other).
bool is_utf8(std::string_view s);

/// The first `max_chars` characters (code points) of `s`, which is valid UTF-8: never
/// cuts a character in two.
std::string_view utf8_prefix(std::string_view s, std::size_t max_chars);

}  // namespace qeli
