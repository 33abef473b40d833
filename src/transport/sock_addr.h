// SockAddr: the one socket address type (IPv4 or IPv6, with a port) stored inline — the
// server's peers, a client's server addresses, listeners, relay targets and the sources of
// received datagrams (batches carry them without allocating; a UDP server keys sessions by
// them: reference §3.9 "session demux = source IP:port").
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::transport {

struct SockAddr {
  union {
    sockaddr sa;
    sockaddr_in v4;
    sockaddr_in6 v6;
  };
  /// Bytes of the address in use: sizeof(sockaddr_in), sizeof(sockaddr_in6), or 0 (unset).
  socklen_t len = 0;
  /// For a peer of a socket bound to the IPv4 wildcard with UdpOptions::pktinfo: our own
  /// address the peer's datagram was sent to (IP_PKTINFO), so a reply goes out FROM that
  /// address (a client that dialed a server's second address ignores replies from its
  /// first). Network byte order; 0 = unknown (the kernel picks). Not part of == or the hash.
  std::uint32_t local_v4 = 0;
  /// The same for a peer of a socket bound to the IPv6 wildcard (IPV6_RECVPKTINFO);
  /// meaningful only when `local_v6_set`. Not part of == or the hash.
  in6_addr local_v6{};
  bool local_v6_set = false;

  SockAddr() : v6{} {}
  /// An IPv4 address (host byte order) and port.
  static SockAddr ipv4(std::uint32_t host_order, std::uint16_t port);
  /// The IPv6 address in the 16 bytes at `bytes` (network order) and a port.
  static SockAddr ipv6(const std::uint8_t* bytes, std::uint16_t port);
  /// A numeric IPv4 ("192.0.2.1") or IPv6 ("2001:db8::1", no brackets, no zone) address
  /// and a port; nullopt for anything else (names included). An IPv4-mapped IPv6 address
  /// (::ffff:192.0.2.1) gives the IPv4 address.
  static std::optional<SockAddr> parse_ip(std::string_view ip, std::uint16_t port);
  /// Copies `n` bytes of a kernel-supplied address; an unknown family or a length that
  /// does not match it gives an unset address (len 0). An IPv4-mapped IPv6 address
  /// (::ffff:a.b.c.d, from a dual-stack socket) is stored as the IPv4 address it maps, so
  /// one client has one form in logs, limits and lockouts.
  static SockAddr from_sockaddr(const sockaddr* sa, socklen_t n);
  /// The address of the far end of a connected socket (unset on error).
  static SockAddr peer_of(int fd);
  /// The local address of a socket (unset on error).
  static SockAddr local_of(int fd);

  bool is_set() const { return len != 0; }
  int family() const { return len == 0 ? AF_UNSPEC : sa.sa_family; }
  bool is_ipv4() const { return family() == AF_INET; }
  bool is_ipv6() const { return family() == AF_INET6; }
  /// The IPv4 address in host byte order; 0 unless is_ipv4().
  std::uint32_t ipv4_host() const;
  std::uint16_t port() const;  ///< host byte order; 0 if unset
  SockAddr with_port(std::uint16_t port) const;
  /// 0.0.0.0 or :: (a wildcard listener).
  bool is_unspecified() const;
  std::string to_string() const;  ///< "a.b.c.d:port", "[v6]:port", or "unset"
  std::string ip_string() const;  ///< "a.b.c.d", "v6" (RFC 5952), or "unset"

  /// Equal family, address and port (IPv6 flow info and scope id are ignored except the
  /// scope id, which distinguishes link-local peers).
  friend bool operator==(const SockAddr& a, const SockAddr& b);
};

/// Hash of the address and port, for a session table keyed by source address.
struct SockAddrHash {
  std::size_t operator()(const SockAddr& a) const;
};

}  // namespace qeli::transport
