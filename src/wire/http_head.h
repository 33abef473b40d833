// Reading an HTTP/1.x head (RFC 9112 §2–§5) the way the obfs front needs it: the request
// line and header values. A head here is the bytes up to and including its CRLFCRLF.
// Pure functions on string_views into the caller's bytes.
#pragma once

#include <optional>
#include <string_view>

namespace qeli::wire {

/// `s` without spaces and tabs at either end (RFC 9110 §5.6.3 OWS).
std::string_view trim_ows(std::string_view s);
/// ASCII case-insensitive equality (header names, tokens).
bool iequals(std::string_view a, std::string_view b);
/// The head's first line (the request or status line), without its CRLF.
std::string_view first_line(std::string_view head);
/// The value of the first header field named `name` (case-insensitive), trimmed; every
/// CRLF-separated line after the first is split at its first ':' (0.7.16's header_value).
std::optional<std::string_view> header_value(std::string_view head, std::string_view name);
/// How many header lines are named `name`.
std::size_t header_count(std::string_view head, std::string_view name);
/// True when a comma-separated header value lists `token` (case-insensitive), as
/// `Connection: keep-alive, Upgrade` lists both (RFC 9110 §5.6.1).
bool lists_token(std::string_view value, std::string_view token);

}  // namespace qeli::wire
