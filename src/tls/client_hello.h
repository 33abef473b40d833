// ClientHello parsing (RFC 8446 §4.1.2) for the server side, the hello classifier and the
// fingerprint code: the fixed fields, the extensions in wire order, and the bodies the
// TLS code needs, each length checked. Views point into the caller's message bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/extensions.h"

namespace qeli::tls {

struct ClientHelloInfo {
  ByteSpan message;  ///< the whole handshake message (header included)
  std::uint16_t legacy_version = 0;
  ByteSpan random;      ///< 32 bytes
  ByteSpan session_id;  ///< 0..32 bytes
  std::vector<std::uint16_t> cipher_suites;
  ByteSpan compression_methods;
  std::vector<Extension> extensions;  ///< wire order

  // Decoded bodies (absent extension → empty / nullopt).
  std::optional<std::string_view> server_name;
  std::vector<std::string_view> alpn;
  std::vector<std::uint16_t> supported_versions;
  std::vector<std::uint16_t> supported_groups;
  std::vector<std::uint16_t> signature_algorithms;
  std::vector<std::uint16_t> cert_compression;  ///< compress_certificate algorithms
  std::vector<KeyShareEntry> key_shares;
  bool has_psk = false;

  /// True if supported_versions lists TLS 1.3.
  bool offers_tls13() const;
  /// The key share for `group`, or nullptr.
  const KeyShareEntry* key_share(std::uint16_t group) const;
  bool offers_suite(std::uint16_t code) const;
  bool offers_cert_compression(std::uint16_t alg) const;
};

/// Parses one ClientHello handshake message (`message` = 4-byte header + body). Strict:
/// no trailing bytes, session_id ≤ 32, an even non-empty cipher list, ≥ 1 compression
/// method, well-formed bodies of the extensions decoded above, pre_shared_key last
/// (§4.2.11, else kIllegalParameter).
Result<ClientHelloInfo, TlsError> parse_client_hello(ByteSpan message);

}  // namespace qeli::tls
