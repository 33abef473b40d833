// The HTTP side of the metrics endpoint as pure functions: where a request head ends, and
// the whole response to it. The socket loop (metrics_server.h) only moves bytes.
//
// Only what a scraper sends is understood: a request line `METHOD SP TARGET SP HTTP/1.x`
// and headers, which are skipped. No request body is ever read (GET has none), no
// keep-alive (every answer closes the connection), no chunked encoding: nothing of HTTP
// that this endpoint does not need is there to be attacked.
//
//   GET|HEAD /metrics[?…]  200, text/plain; version=0.0.4 (HEAD: headers only)
//   GET|HEAD other paths   404
//   other methods          405 with `Allow: GET, HEAD`
//   a malformed head       400
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace qeli::metrics {

/// A request head (request line and headers) is at most this long; more is refused (431).
inline constexpr std::size_t kMaxRequestHead = 8 * 1024;

enum class HeadScan { kIncomplete, kComplete, kTooLarge };
/// Whether `received` holds a whole head (up to the blank line), within kMaxRequestHead.
HeadScan scan_head(std::string_view received);

/// The response to the head in `received` (scan_head said kComplete). `render` makes the
/// /metrics body; it is called only for a GET or HEAD of /metrics, and its error (a
/// message) becomes a 503.
std::string answer(std::string_view received,
                   const std::function<bool(std::string& body, std::string& error)>& render);

/// A complete response with `status` ("404 Not Found"), a text body and Connection: close.
std::string http_response(std::string_view status, std::string_view content_type,
                          std::string_view body, bool head_only = false,
                          std::string_view extra_headers = {});

}  // namespace qeli::metrics
