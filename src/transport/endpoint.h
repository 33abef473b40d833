// Endpoints: "host:port" strings and resolved IPv4 socket addresses.
//
// qeli 0.7.16 carries the tunnel over IPv4 only (IPv6 endpoints are refused); the
// client resolves the server name ONCE, before touching routes or DNS, and pins the
// result (reference §8, weakness 24).
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace qeli::transport {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

/// Splits "host:port" or "[v6]:port". Port 1..65535. Errors name what is wrong.
Result<HostPort, std::string> parse_host_port(std::string_view s);

struct Ipv4Endpoint {
  std::uint32_t addr = 0;  // host byte order
  std::uint16_t port = 0;
  sockaddr_in to_sockaddr() const;
  static Ipv4Endpoint from_sockaddr(const sockaddr_in& sa);
  std::string to_string() const;  // "a.b.c.d:port"
  friend bool operator==(const Ipv4Endpoint&, const Ipv4Endpoint&) = default;
};

/// Parses a dotted-quad IPv4 address (no names). Returns false on anything else, including
/// an embedded NUL or any byte after the address (the whole of `s` must be the address).
bool parse_ipv4(std::string_view s, std::uint32_t& out_host_order);
std::string ipv4_to_string(std::uint32_t host_order);

struct ResolveError {
  std::string message;  ///< the resolver's message (gai_strerror) or "no IPv4 address …"
  /// The resolver could not answer now (EAI_AGAIN, EAI_FAIL, EAI_SYSTEM, EAI_MEMORY: no
  /// network, no reachable name server) — worth retrying; false for a definite answer
  /// (no such name, no IPv4 address).
  bool temporary = false;
};

/// Resolves `host` (a literal or a name, via getaddrinfo) to its IPv4 addresses, in the
/// resolver's order, without duplicates.
Result<std::vector<Ipv4Endpoint>, ResolveError> resolve_ipv4(const HostPort& hp);

}  // namespace qeli::transport
