// Endpoints: "host:port" strings and their resolution to socket addresses.
//
// qeli 0.7.16 carries the tunnel over IPv4 only (IPv6 endpoints are refused); we take both
// families. The client resolves the server name ONCE, before touching routes or DNS, and
// pins the result (reference §8, weakness 24).
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "transport/sock_addr.h"

namespace qeli::transport {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

/// Splits "host:port" or "[v6]:port". Port 1..65535. Errors name what is wrong.
Result<HostPort, std::string> parse_host_port(std::string_view s);

/// Parses a dotted-quad IPv4 address (no names). Returns false on anything else, including
/// an embedded NUL or any byte after the address (the whole of `s` must be the address).
bool parse_ipv4(std::string_view s, std::uint32_t& out_host_order);
std::string ipv4_to_string(std::uint32_t host_order);

struct ResolveError {
  std::string message;  ///< the resolver's message (gai_strerror) or "no address …"
  /// The resolver could not answer now (EAI_AGAIN, EAI_FAIL, EAI_SYSTEM, EAI_MEMORY: no
  /// network, no reachable name server) — worth retrying; false for a definite answer
  /// (no such name, no address of a usable family).
  bool temporary = false;
};

/// The order of a resolution's answers: the resolver's (RFC 6724), or IPv4 first (a
/// server-side connection to a named site — REALITY's target — where a broken IPv6 route
/// must not take the place of a working IPv4 one).
enum class Families : std::uint8_t { kAny, kIpv4First };

/// Resolves `host` (a numeric IPv4 or IPv6 literal, or a name via getaddrinfo with
/// AI_ADDRCONFIG: no IPv6 answers on a host without an IPv6 address, and the other way
/// round; asked again without it when that leaves no answer) to its addresses of both families,
/// without duplicates, in `families`' order.
Result<std::vector<SockAddr>, ResolveError> resolve(const HostPort& hp,
                                                    Families families = Families::kAny);

}  // namespace qeli::transport
