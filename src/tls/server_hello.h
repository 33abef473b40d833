// ServerHello and HelloRetryRequest (RFC 8446 §4.1.3, §4.1.4): parse for the client,
// build for the terminator.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/constants.h"
#include "tls/extensions.h"

namespace qeli::tls {

struct ServerHelloInfo {
  ByteSpan message;  ///< whole handshake message
  std::uint16_t legacy_version = 0;
  ByteSpan random;
  ByteSpan session_id;  ///< legacy_session_id_echo
  std::uint16_t cipher_suite = 0;
  std::uint8_t compression_method = 0;
  std::vector<Extension> extensions;  ///< wire order
  bool hello_retry = false;           ///< random == kHelloRetryRequestRandom
  std::optional<std::uint16_t> selected_version;
  std::optional<KeyShareEntry> key_share;  ///< in an HRR: the group only
  std::optional<ByteSpan> cookie;          ///< HRR cookie body (§4.2.2)
};

/// Parses one ServerHello/HRR handshake message (header included). Strict: no trailing
/// bytes, session id ≤ 32, compression 0, supported_versions of exactly 2 bytes.
Result<ServerHelloInfo, TlsError> parse_server_hello(ByteSpan message);

struct OwnedExtension {
  std::uint16_t type;
  Bytes body;
};

struct ServerHelloParams {
  std::array<std::uint8_t, kRandomSize> random{};
  ByteSpan session_id;  ///< echo of the client's
  std::uint16_t cipher_suite = 0;
  std::vector<OwnedExtension> extensions;  ///< written in this order
};

/// The ServerHello handshake message (header included).
Bytes build_server_hello(const ServerHelloParams& p);

/// key_share body of a ServerHello: group(2) ‖ key_exchange<2>.
Bytes server_key_share_body(std::uint16_t group, ByteSpan key_exchange);

}  // namespace qeli::tls
