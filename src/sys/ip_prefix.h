// IPv4/IPv6 addresses and CIDR prefixes as plain values, parsed and printed in the
// textual forms of RFC 4632 (IPv4 CIDR) and RFC 4291 §2.2-2.3 / RFC 5952 (IPv6).
// Everything that sys/ hands to netlink, nftables or resolv.conf goes through these
// types, so a string from a config file is never pasted into a kernel request or a
// ruleset unchecked.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "sys/host_error.h"

namespace qeli::sys {

enum class IpFamily : std::uint8_t { kV4 = 4, kV6 = 6 };

/// An address: 4 significant bytes for IPv4 (network order, the rest zero), 16 for IPv6.
struct IpAddress {
  IpFamily family = IpFamily::kV4;
  std::array<std::uint8_t, 16> bytes{};

  /// Parses "192.0.2.1" or "2001:db8::1" (no brackets, no zone id, no prefix).
  /// Returns kInvalidArgument on anything else.
  static HostResult<IpAddress> parse(std::string_view text);
  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);

  /// 4 or 16.
  std::size_t size() const { return family == IpFamily::kV4 ? 4 : 16; }
  /// The AF_INET / AF_INET6 value for this family.
  int af() const;
  /// Canonical text (RFC 5952 for IPv6).
  std::string to_string() const;

  friend auto operator<=>(const IpAddress&, const IpAddress&) = default;
};

/// A CIDR prefix whose host bits are zero.
struct IpPrefix {
  IpAddress addr;
  std::uint8_t len = 0;  ///< 0..32 for IPv4, 0..128 for IPv6

  /// Parses "10.0.0.0/8", "2001:db8::/32", or a bare address (a /32 or /128 host prefix).
  /// Host bits set ("10.1.2.3/8"), a length out of range or a malformed address return
  /// kInvalidArgument: a typo in a route list is an error, not a silent rounding.
  static HostResult<IpPrefix> parse(std::string_view text);
  /// The host prefix (/32 or /128) of one address.
  static IpPrefix host(const IpAddress& a);

  std::uint8_t max_len() const { return addr.family == IpFamily::kV4 ? 32 : 128; }
  bool is_host() const { return len == max_len(); }
  /// True if `a` is inside this prefix (same family).
  bool contains(const IpAddress& a) const;
  /// "10.0.0.0/8" (the length is always printed).
  std::string to_string() const;

  friend auto operator<=>(const IpPrefix&, const IpPrefix&) = default;
};

}  // namespace qeli::sys
