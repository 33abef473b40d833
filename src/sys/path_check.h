// check_path: does the host still reach the peer of a connected socket the way the socket
// does? A connection keeps the local address it was opened from; when the host moves to
// another network (the address is removed, or the route to the peer now leaves through
// another interface) its packets go out with a source nobody answers, and TCP only
// notices after minutes of retransmissions. The answer lets a client resume at once
// (docs/PROTOCOL.md §22) instead of at its liveness deadline.
//
// How: the route the kernel picks now for the peer (a UDP socket connect()ed to it with
// the connection's SO_MARK and SO_BINDTODEVICE: no packet is sent) against the
// connection's local address (getsockname) and the interfaces that hold each
// (getifaddrs). Deliberately NOT a move:
//   * a newer address on the same interface (an IPv6 privacy address that replaced the
//     preferred one): the old address still works for the connections that use it;
//   * no route to the peer at all (a link flapping): nothing better exists; wait;
//   * a route through `tunnel_interface` while the local address is still here (our own
//     routes changing under us; the connection is left to its liveness deadline).
// A move after which the route to the peer goes through `tunnel_interface` — a full
// tunnel's pin to the server left with the old network's interface — is reported with
// `through_tunnel`: a new connection would run inside the tunnel itself, so the host must
// set its routes up again (a new session) instead of resuming.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qeli::sys {

enum class PathVerdict : std::uint8_t {
  kSame,     ///< the connection's local address is still the way to the peer
  kMoved,    ///< it is not: a new connection would leave from elsewhere
  kUnknown,  ///< cannot tell (no route now, a closed socket, the route goes via the tunnel)
};

struct PathCheck {
  PathVerdict verdict = PathVerdict::kUnknown;
  /// Why, for a log line: "10.0.0.5 is no longer on this host",
  /// "the route to 203.0.113.9 now leaves through wwan0 (100.64.1.2), not wlan0 (10.0.0.5)".
  std::string detail;
  /// kMoved, and the route to the peer now goes through `tunnel_interface`.
  bool through_tunnel = false;
};

/// `fd`: a connected TCP or UDP socket (IPv4 or IPv6); a TCP socket not ESTABLISHED (one
/// already shut down) is kUnknown. Reads the host's state; changes nothing; a failure to
/// read it (getifaddrs) is kUnknown, never kMoved. Thread-safe.
PathCheck check_path(int fd, std::string_view tunnel_interface);

}  // namespace qeli::sys
