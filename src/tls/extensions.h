// Extension blocks (RFC 8446 §4.2) and the bodies the TLS code reads, with every length
// checked (wire/byte_io.h). Views point into the caller's message bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "wire/hello_parts.h"

namespace qeli::tls {

struct Extension {
  std::uint16_t type;
  ByteSpan data;
};

/// Parses `extensions<..2^16-1>` content (without its length prefix). A truncated entry
/// is kDecode, a repeated type kIllegalParameter (§4.2: at most one of each type).
Result<std::vector<Extension>, TlsError> parse_extension_block(ByteSpan block);

/// The first extension of `type`, or nullptr.
const Extension* find_extension(const std::vector<Extension>& exts, std::uint16_t type);

struct KeyShareEntry {
  std::uint16_t group;
  ByteSpan key_exchange;
};

/// A list of u16 under a 2-byte (or 1-byte for supported_versions) length, even-sized,
/// with no trailing bytes: supported_groups, signature_algorithms, cipher suites, ...
Result<std::vector<std::uint16_t>, TlsError> parse_u16_list(ByteSpan data, int length_width);
/// The raw u16 values of a span of even size (cipher_suites content).
Result<std::vector<std::uint16_t>, TlsError> parse_u16_values(ByteSpan values);

/// server_name (RFC 6066 §3): the host_name entry, or nullopt if the list has none. An
/// empty extension (as in a ServerHello/EE) parses to nullopt.
Result<std::optional<std::string_view>, TlsError> parse_server_name(ByteSpan data);

/// ALPN (RFC 7301 §3.1) protocol_name_list; each name 1..255 bytes.
Result<std::vector<std::string_view>, TlsError> parse_alpn(ByteSpan data);

/// ClientHello key_share: client_shares<0..2^16-1>; a repeated group is kIllegalParameter.
Result<std::vector<KeyShareEntry>, TlsError> parse_client_key_shares(ByteSpan data);

/// ServerHello key_share: one entry. HelloRetryRequest key_share: a bare group (2 bytes),
/// returned with an empty key_exchange.
Result<KeyShareEntry, TlsError> parse_server_key_share(ByteSpan data, bool hello_retry);

using wire::is_grease;

}  // namespace qeli::tls
