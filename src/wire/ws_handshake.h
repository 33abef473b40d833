// The HTTP/1.1 WebSocket upgrade in front of TCP obfs (qeli 0.7.16 `obfs.rs` ws::;
// RFC 6455 §4; docs/PROTOCOL.md "obfs WebSocket front").
//
//   client → GET /<path> HTTP/1.1 | Host | User-Agent (one of 3) | Accept: */* |
//            Upgrade: websocket | Connection: Upgrade | Sec-WebSocket-Key (16 random
//            bytes, base64) | Sec-WebSocket-Version: 13 | CRLF
//   server → 101 Switching Protocols with Sec-WebSocket-Accept, only when the method is
//            GET, the target equals the secret path (constant time), Upgrade is
//            "websocket", Connection lists "upgrade" and the key decodes to 16 bytes;
//            otherwise what nginx answers (wire/nginx_decoy.h).
//
//   path = "/" ‖ base64url-no-pad(HKDF-Expand(HKDF-Extract(no salt, obfs_key),
//                                             "qeli-ws-path-v1", 18))      (24 chars)
//
// A head is at most 4096 bytes up to and including its CRLFCRLF (longer: refused).
// Pure functions; the state machines are transport/obfs_setup.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"

namespace qeli::wire {

inline constexpr std::size_t kWsMaxHead = 4096;
inline constexpr std::string_view kWsGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The secret endpoint path derived from the obfs key (24 url-safe characters after '/').
std::string ws_path(const crypto::Key32& obfs_key);

/// Sec-WebSocket-Accept for a client key (RFC 6455 §4.2.2 item 5.4): base64(SHA-1(key ‖
/// GUID)). `ws_accept("dGhlIHNhbXBsZSBub25jZQ==")` is "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
std::string ws_accept(std::string_view client_key);

/// The client's upgrade request. `host` empty: a random pick from the decoy pool.
std::string build_ws_request(std::string_view host, const crypto::Key32& obfs_key,
                             crypto::Rng& rng);

/// Where a head ends in `buf`: the index just past its CRLFCRLF, 0 while it is
/// incomplete. Heads longer than kWsMaxHead are the caller's to refuse.
std::size_t ws_head_end(ByteSpan buf);

/// Why a request head is not our upgrade (for the counters; nginx's answer does not say).
enum class WsReject : std::uint8_t {
  kNotGet,
  kWrongPath,
  kNoUpgrade,
  kNoConnectionUpgrade,
  kBadKey,
};
const char* to_string(WsReject r);

/// The server's verdict on a complete request head (CRLFCRLF included): the 101 response
/// or why it is not our upgrade.
struct WsVerdict {
  std::optional<std::string> response;  ///< the 101, when every check passed
  WsReject reject = WsReject::kNotGet;  ///< when !response
};
WsVerdict check_ws_request(ByteSpan head, const crypto::Key32& obfs_key);

/// True if a response head (CRLFCRLF included) is what the client accepts: it starts with
/// "HTTP/1.1 101" (0.7.16 checks only that) and, when it carries a
/// Sec-WebSocket-Accept, that equals ws_accept(client_key).
bool ws_response_ok(ByteSpan head, std::string_view client_key);

/// The Sec-WebSocket-Key header of a request built by build_ws_request (empty if none).
std::string ws_request_key(std::string_view request);

}  // namespace qeli::wire
