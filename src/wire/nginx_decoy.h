// What nginx 1.22 (Debian 12, `server_tokens off`, a site without the requested page)
// answers an HTTP/1.x request: the decoy behind TCP obfs's WebSocket front, so a prober
// that speaks HTTP to the port meets nginx, not qeli (docs/PROTOCOL.md "obfs set-up").
//
// Measured against the real nginx (tests/e2e/obfs.sh compares byte for byte, Date aside):
//   GET/POST/HEAD to a missing page   404 Not Found (HEAD: the head only)
//   any other method token            405 Not Allowed
//   a request line nginx cannot parse 400 Bad Request, Connection: close
//   HTTP/1.1 without Host, two Hosts  400 Bad Request, Connection: close
//   HTTP/2.0 or later in the line     505 HTTP Version Not Supported, Connection: close
//   keep-alive                        HTTP/1.1 unless `Connection: close`; HTTP/1.0 only
//                                     with `Connection: keep-alive`; at most 1000 requests
//                                     (keepalive_requests), the last says close
//   a request body (Content-Length)   read and discarded before the next request
// qeli 0.7.16 answers every request with the 404 and `Connection: close`.
// Pure functions; the connection's state machine is transport/obfs_setup.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qeli::wire {

/// nginx's keepalive_requests default: the 1000th request on a connection is its last.
inline constexpr std::uint32_t kNginxKeepaliveRequests = 1000;

/// nginx's answer to one request head.
struct DecoyAnswer {
  std::string bytes;             ///< the response, byte for byte
  bool keep_alive = false;       ///< the connection stays open for another request
  std::uint64_t body_bytes = 0;  ///< request body bytes to discard before the next head
  bool chunked_body = false;     ///< a chunked body follows (the caller closes after answering)
  int status = 0;                ///< 400, 404, 405 or 505
};

/// `head`: one request head, CRLFCRLF included. `request_no`: 1 for the connection's
/// first request. `unix_secs`: the Date.
DecoyAnswer nginx_answer(std::string_view head, std::uint32_t request_no, std::uint64_t unix_secs);

/// nginx's error page for `status` (404 → "404 Not Found" …), with `Connection: close`:
/// what 0.7.16 sends to every request that is not its upgrade.
std::string nginx_404(std::uint64_t unix_secs);
/// "Tue, 04 Aug 2026 09:12:33 GMT" (RFC 9110 §5.6.7 IMF-fixdate).
std::string http_date(std::uint64_t unix_secs);

}  // namespace qeli::wire
