// Which IPv6 addresses a packet through the tunnel can be addressed to (RFC 4291 §2.4):
// shared by the config (pushed resolvers) and the AUTH OK parser (x_dns6) so both ends
// refuse the same addresses.
#pragma once

#include <cstdint>

namespace qeli {

/// `b`: 16 bytes in network order. False for :: and ::1, IPv4-mapped (::ffff:0:0/96: a
/// resolver there is asked over IPv4, outside an IPv6 route), link-local (fe80::/10) and
/// multicast (ff00::/8); true for global and unique-local unicast.
inline bool is_routable_ipv6_unicast(const std::uint8_t* b) {
  bool zero10 = true;
  for (int i = 0; i < 10; ++i) zero10 = zero10 && b[i] == 0;
  if (zero10 && b[10] == 0xff && b[11] == 0xff) return false;
  if (zero10 && b[10] == 0 && b[11] == 0 && b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1) {
    return false;
  }
  if (b[0] == 0xff) return false;
  return !(b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
}

}  // namespace qeli
