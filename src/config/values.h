// Small value types for configuration: IPv4 addresses and CIDR blocks, host:port
// endpoints, and the scalar parsers every config key goes through. Parsers return
// nullopt on any malformed input (never a partial value); callers turn that into a
// Finding that names the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qeli::config {

/// An IPv4 address, host byte order.
struct Ipv4Addr {
  std::uint32_t value = 0;

  /// Dotted quad "a.b.c.d", each part 0..255 in decimal without leading zeros beyond
  /// one digit (so "010.1.1.1" — octal in inet_aton — is refused).
  static std::optional<Ipv4Addr> parse(std::string_view s);
  std::string to_string() const;
  friend bool operator==(Ipv4Addr, Ipv4Addr) = default;
  friend auto operator<=>(Ipv4Addr, Ipv4Addr) = default;
};

/// An IPv4 network "a.b.c.d/n", n in 0..32, host bits zero.
struct Ipv4Cidr {
  Ipv4Addr network;
  std::uint8_t prefix = 32;

  /// Refuses host bits set ("10.9.0.1/24"): it is almost always a typo for either the
  /// network or a single host, and guessing would route the wrong thing. A bare address
  /// parses as /32 only when `allow_bare` is true.
  static std::optional<Ipv4Cidr> parse(std::string_view s, bool allow_bare = false);
  std::string to_string() const;

  std::uint32_t mask() const { return prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix); }
  Ipv4Addr broadcast() const { return {network.value | ~mask()}; }
  bool contains(Ipv4Addr a) const { return (a.value & mask()) == network.value; }
  bool overlaps(const Ipv4Cidr& o) const;
  /// A host address that may be assigned: inside the block and, for prefixes up to /30,
  /// neither the network nor the broadcast address (a /31 has two usable hosts, RFC 3021).
  bool is_usable_host(Ipv4Addr a) const;
  friend bool operator==(const Ipv4Cidr&, const Ipv4Cidr&) = default;
};

/// "host:port" or "[ipv6]:port". The host is kept verbatim (no resolution here).
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  bool bracketed = false;  // written as [v6]

  /// Port must be 1..65535 unless `allow_zero_port`.
  static std::optional<Endpoint> parse(std::string_view s, bool allow_zero_port = false);
  std::string to_string() const;
};

/// true|false|yes|no|on|off|1|0 (case-insensitive).
std::optional<bool> parse_bool(std::string_view s);
/// Decimal digits only (no sign, no spaces), at most `max`.
std::optional<std::uint64_t> parse_uint(std::string_view s, std::uint64_t max);
/// A signed decimal integer in [min, max].
std::optional<std::int64_t> parse_int(std::string_view s, std::int64_t min, std::int64_t max);
/// A finite decimal number ("0.5", "1", "2.0e-1").
std::optional<double> parse_double(std::string_view s);
/// True if `s` is an IPv6 literal (inet_pton AF_INET6), without brackets.
bool is_ipv6_literal(std::string_view s);
/// The one text of a numeric address: dotted IPv4 (also for an IPv4-mapped IPv6 address,
/// ::ffff:a.b.c.d, which our sockets treat as IPv4) or RFC 5952 IPv6; `s` unchanged when
/// it is not numeric. So "2001:0db8::1" and "2001:db8::1" compare equal.
std::string canonical_ip(std::string_view s);

std::string_view trim(std::string_view s);
/// Splits a comma-separated list, trimming each item and dropping empty items.
std::vector<std::string> split_list(std::string_view s);
/// True for the names of users, groups and profiles: letters, digits, - _ . @ and 1..64
/// bytes (one alphabet, so a name is safe in a section header, a link label and a log).
bool is_valid_object_name(std::string_view name);
/// Lower-case ASCII copy.
std::string ascii_lower(std::string_view s);

}  // namespace qeli::config
