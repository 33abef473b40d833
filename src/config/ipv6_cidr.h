// IPv6 addresses and networks in configuration (`pool.ipv6.cidr`, IPv6 entries of
// `allowed_networks`), as plain values: parsed from the RFC 4291 §2.2 text forms, printed
// in RFC 5952's canonical form, and compared by their 16 bytes. Like Ipv4Cidr, a network
// with host bits set is refused (a typo, never silently rounded).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::config {

/// An IPv6 address, 16 bytes in network order.
struct Ipv6Addr {
  std::array<std::uint8_t, 16> bytes{};

  /// "2001:db8::1" (no brackets, zone id or prefix); nullopt on anything else.
  static std::optional<Ipv6Addr> parse(std::string_view s);
  /// RFC 5952 text ("2001:db8::1").
  std::string to_string() const;
  /// Not the unspecified or loopback address, not IPv4-mapped (::ffff:0:0/96), link-local
  /// (fe80::/10) or multicast (ff00::/8): an address a packet through the tunnel can have
  /// as its destination (RFC 4291 §2.4).
  bool is_routable_unicast() const;
  friend auto operator<=>(const Ipv6Addr&, const Ipv6Addr&) = default;
};

/// An IPv6 network "x::/n", n in 0..128, host bits zero.
struct Ipv6Cidr {
  Ipv6Addr network;
  std::uint8_t prefix = 128;

  /// A bare address parses as /128 only when `allow_bare` is true.
  static std::optional<Ipv6Cidr> parse(std::string_view s, bool allow_bare = false);
  std::string to_string() const;
  /// True if the 16 bytes at `addr` lie inside the network.
  bool contains(const std::uint8_t* addr) const;
  bool contains(const Ipv6Addr& a) const { return contains(a.bytes.data()); }
  bool overlaps(const Ipv6Cidr& o) const;
  /// The address `offset` past the network (added to its low 64 bits). Precondition: the
  /// host bits hold `offset` (the IPv6 address plan keeps it below pool.cidr's size).
  Ipv6Addr host(std::uint64_t offset) const;
  friend auto operator<=>(const Ipv6Cidr&, const Ipv6Cidr&) = default;
};

}  // namespace qeli::config
