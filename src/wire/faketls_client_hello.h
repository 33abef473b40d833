// The fake-TLS ClientHello of qeli 0.7.16 (`tls.rs`; docs/PROTOCOL.md "ClientHello").
//
//   16 03 03 len | 01 len24 | 03 03 | random(32) | 20 sid(32)
//   | 00 08 GREASE 1301 1302 1303 | 01 00 | ext_len
//   | GREASE-ext(empty) | shuffled { server_name?, 0017 ems, 000a groups [GREASE, 11EC,
//     001D, 0017], 0033 key_share [11EC: ek(1184) ‖ x25519(32); 001D: x25519(32)],
//     002d psk modes [1], 002b versions [0304], 000d sigalgs (6), 001b compress [brotli],
//     0010 alpn [h2, http/1.1] } | GREASE-ext(empty) | 0015 padding? (to pad_to_min)
//
// The two GREASE extensions use different values (a duplicate extension type would be
// invalid TLS). The server needs only the key shares; a hello without the 0x11EC share
// is rejected (no classic downgrade).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/random.h"
#include "wire/hello_parts.h"
#include "wire/limits.h"

namespace qeli::wire {

/// What goes into server_name (0.7.16 rules, see choose_sni).
struct Sni {
  enum class Kind : std::uint8_t {
    kHost,            ///< a normal host_name entry
    kOmit,            ///< no server_name extension (`sni = !` or empty)
    kEmptyExtension,  ///< server_name with empty data (`sni = ~`)
    kEmptyList,       ///< server_name with an empty server_name_list (`sni = @`)
  };
  Kind kind = Kind::kOmit;
  std::string host;  ///< for kHost; at most 255 bytes
};

/// The decoy SNI pool used when connecting to a bare IP without a configured SNI.
inline constexpr std::array<std::string_view, 5> kDecoySniPool = {
    "www.cloudflare.com", "www.google.com", "www.microsoft.com", "www.apple.com", "www.amazon.com"};

/// 0.7.16 SNI choice: a configured value wins ("!" or "" → omit, "~" → empty extension,
/// "@" → empty list, anything else → that host); with none configured, the connect host
/// if it is a name, else (an IPv4/IPv6 literal) a random pick from kDecoySniPool.
Sni choose_sni(std::optional<std::string_view> configured, std::string_view connect_host,
               crypto::Rng& rng);

struct ClientHelloParams {
  std::array<std::uint8_t, kRandomSize> random{};
  std::array<std::uint8_t, kSessionIdSize> session_id{};  ///< random or a REALITY token
  std::array<std::uint8_t, kX25519PublicSize> x25519{};
  std::array<std::uint8_t, kMlKemEkSize> mlkem_ek{};
  Sni sni;
  /// Pad the record to at least this many bytes with extension 0x0015 (0 = no padding;
  /// UDP modes use kUdpClientHelloMin).
  std::size_t pad_to_min = 0;
};

/// Builds the whole record (header included). `rng` draws the GREASE values and the
/// per-connection extension order. Never fails for params within the documented limits.
Bytes build_client_hello(const ClientHelloParams& params, crypto::Rng& rng);

enum class HelloError : std::uint8_t {
  kBadRecord,          ///< not a 16 03 0x record, or the length does not match
  kTooLarge,           ///< record payload > kMaxHandshakeRecordPayload
  kWrongMessage,       ///< handshake type is not the expected one
  kMalformed,          ///< a length field runs past its container, or trailing bytes
  kNoHybridShare,      ///< no 0x11EC key share (classic downgrade refused)
  kNoX25519Share,      ///< no 0x001D share of 32 bytes
  kBadShare,           ///< a key share of the wrong size
  kUnexpectedVersion,  ///< legacy_version/cipher not what qeli sends
};
const char* to_string(HelloError e);

struct ClientHello {
  std::array<std::uint8_t, kRandomSize> random{};
  std::array<std::uint8_t, kSessionIdSize> session_id{};
  std::size_t session_id_len = 0;
  std::array<std::uint8_t, kX25519PublicSize> x25519{};
  std::array<std::uint8_t, kMlKemEkSize> mlkem_ek{};
  std::optional<std::string> sni;  ///< host_name if present and non-empty
};

/// Parses one whole record; every length is checked before use.
Result<ClientHello, HelloError> parse_client_hello(ByteSpan record);

}  // namespace qeli::wire
