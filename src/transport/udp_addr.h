// UdpAddr: one UDP peer address (IPv4 or IPv6) stored inline, so that batches of received
// datagrams carry their sources without allocating, and a server can key sessions by the
// source address (reference §3.9: "session demux = source IP:port").
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "transport/endpoint.h"

namespace qeli::transport {

struct UdpAddr {
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

  UdpAddr() : v6{} {}
  static UdpAddr from(const Ipv4Endpoint& ep);
  /// Copies `n` bytes of a kernel-supplied address; an unknown family or a length that
  /// does not match it gives an unset address (len 0).
  static UdpAddr from_sockaddr(const sockaddr* sa, socklen_t n);

  bool is_set() const { return len != 0; }
  int family() const { return len == 0 ? AF_UNSPEC : sa.sa_family; }
  std::uint16_t port() const;     ///< host byte order; 0 if unset
  std::string to_string() const;  ///< "a.b.c.d:port", "[v6]:port", or "unset"

  /// Equal family, address and port (IPv6 flow info and scope id are ignored except the
  /// scope id, which distinguishes link-local peers).
  friend bool operator==(const UdpAddr& a, const UdpAddr& b);
};

/// Hash of the address and port, for a session table keyed by source address.
struct UdpAddrHash {
  std::size_t operator()(const UdpAddr& a) const;
};

}  // namespace qeli::transport
