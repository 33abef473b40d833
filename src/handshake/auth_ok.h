// AUTH OK: "OK:" ‖ a JSON object with the parameters the server pushes (0.7.16
// `handler.rs`; docs/PROTOCOL.md "AUTH OK"). Example:
//
//   OK:{"client_ip":"10.8.0.2","server_ip":"10.8.0.1","prefix":24,"mtu":1400,
//       "dns":"10.8.0.1","dns_port":53,"routes":[{"cidr":"10.0.0.0/8",
//       "gateway":"10.8.0.1","metric":100}],"obfuscation":{...},
//       "session_token":"<32 hex>","max_streams":1,"multipath_adaptive":false}
//
// Client-side validation (as 0.7.16): client_ip must be a dotted-quad IPv4; prefix
// 1..32 (24 when absent); an mtu outside 576..16638 is ignored; max_streams is clamped to
// 1..16. Our extension: an optional integer "x_caps" (capability bits, see types.h) that
// a 0.7.16 client ignores as an unknown key.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "handshake/types.h"

namespace qeli::handshake {

struct PushedRoute {
  std::string cidr;
  std::string gateway;  ///< empty = the server's tunnel address
  std::uint32_t metric = 100;
};

struct AuthOk {
  std::string client_ip;
  std::string server_ip;
  std::uint8_t prefix = 24;
  std::optional<std::uint16_t> mtu;  ///< nullopt: absent or out of range (ignored)
  std::string dns;                   ///< may be empty
  std::uint16_t dns_port = 53;
  std::vector<PushedRoute> routes;
  /// The `obfuscation` object (padding / heartbeat / traffic_normalization /
  /// traffic_shaping knobs) as compact JSON text; interpreted by the tunnel layer.
  std::string obfuscation_json = "{}";
  std::optional<JoinToken> session_token;
  std::uint8_t max_streams = 1;
  bool multipath_adaptive = false;
  std::optional<std::uint32_t> x_caps;  ///< our extension; absent from 0.7.16 servers
  /// Our extension (caps::kTlsBinding): the server's TLS binding proof, 64 hex digits.
  std::optional<std::string> x_tls_bind;
  /// Our extension (caps::kRoam): the profile's roaming nonce key, 64 hex digits
  /// (wire/roam_nonce.h; only authenticated clients learn it).
  std::optional<std::string> x_roam_key;
  /// Our extension (caps::kIpv6Inside, docs/PROTOCOL.md §21): the client's IPv6 address
  /// in the tunnel with its prefix length ("fd00:9::5/64"), and the server's
  /// ("fd00:9::1"). Both or neither: a parser drops a lone or malformed one.
  std::optional<std::string> x_ip6;
  std::optional<std::string> x_server_ip6;
  /// Our extension (caps::kIpv6Inside, docs/PROTOCOL.md §21): the IPv6 resolver the client
  /// should use ("fd00:9::1"), beside `dns`. Only with x_ip6: a parser drops it without a
  /// valid x_ip6, or when it is not an IPv6 address.
  std::optional<std::string> x_dns6;
  /// Our extension (caps::kIpv6Inside, docs/PROTOCOL.md §21): IPv6 networks the client
  /// routes through the tunnel ({"cidr":"2001:db8:7::/48","metric":100}; `gateway` is
  /// not sent: the server's tunnel address). Only with x_ip6: a parser drops them all
  /// without a valid x_ip6, and drops an entry that is not an IPv6 network.
  std::vector<PushedRoute> x_routes6;
  /// Our extension (caps::kResume, docs/PROTOCOL.md §22): how long (seconds, 1..3600) the
  /// server holds the session for a resume after its connection broke.
  std::optional<std::uint32_t> x_resume_secs;
};

enum class AuthOkError : std::uint8_t {
  kNoPrefix,     ///< plaintext does not start with "OK:"
  kTooLarge,     ///< over wire::kMaxAuthOkSize
  kNotJson,      ///< not a JSON object
  kBadClientIp,  ///< client_ip missing or not IPv4
  kBadPrefix,    ///< prefix present but not an integer in 1..32
  kBadField,     ///< a field has the wrong JSON type
  kBadToken,     ///< session_token not 32 hex digits
};
const char* to_string(AuthOkError e);

/// The full plaintext "OK:" ‖ JSON. Never throws: invalid UTF-8 in strings is replaced,
/// an unparsable obfuscation_json becomes {}. `x_caps` is written only when set.
Bytes build_auth_ok(const AuthOk& ok);

/// Parses and validates a full plaintext. `accept_extensions` = false models a 0.7.16
/// client: x_caps is then ignored like any unknown key.
Result<AuthOk, AuthOkError> parse_auth_ok(ByteSpan plaintext, bool accept_extensions = true);

/// True iff `s` is an IPv6 address in text (inet_pton AF_INET6), without brackets or zone.
bool is_ipv6(std::string_view s);

/// True iff `s` is a dotted-quad IPv4 address (four decimal octets 0..255, no leading '+').
bool is_ipv4(std::string_view s);

}  // namespace qeli::handshake
