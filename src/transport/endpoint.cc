#include "transport/endpoint.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>

namespace qeli::transport {

Result<HostPort, std::string> parse_host_port(std::string_view s) {
  HostPort hp;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') {
      return fail(std::string("expected [ipv6]:port"));
    }
    hp.host = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string_view::npos) return fail(std::string("expected host:port"));
    hp.host = std::string(s.substr(0, colon));
    port = s.substr(colon + 1);
  }
  if (hp.host.empty()) return fail(std::string("empty host"));
  unsigned v = 0;
  const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
  if (ec != std::errc() || p != port.data() + port.size() || v == 0 || v > 65535) {
    return fail("bad port '" + std::string(port) + "' (1..65535)");
  }
  hp.port = static_cast<std::uint16_t>(v);
  return hp;
}

sockaddr_in Ipv4Endpoint::to_sockaddr() const {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(addr);
  return sa;
}

Ipv4Endpoint Ipv4Endpoint::from_sockaddr(const sockaddr_in& sa) {
  return {ntohl(sa.sin_addr.s_addr), ntohs(sa.sin_port)};
}

std::string ipv4_to_string(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
}

std::string Ipv4Endpoint::to_string() const {
  return ipv4_to_string(addr) + ":" + std::to_string(port);
}

bool parse_ipv4(std::string_view s, std::uint32_t& out) {
  char buf[INET_ADDRSTRLEN];
  // inet_pton stops at a NUL: "10.0.0.1\0junk" (e.g. a JSON "\u0000") must not pass.
  if (s.size() >= sizeof(buf) || s.find('\0') != std::string_view::npos) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  in_addr a{};
  if (inet_pton(AF_INET, buf, &a) != 1) return false;
  out = ntohl(a.s_addr);
  return true;
}

Result<std::vector<Ipv4Endpoint>, ResolveError> resolve_ipv4(const HostPort& hp) {
  std::uint32_t literal = 0;
  if (parse_ipv4(hp.host, literal)) return std::vector<Ipv4Endpoint>{{literal, hp.port}};
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const int rc = getaddrinfo(hp.host.c_str(), nullptr, &hints, &res);
  if (rc != 0) {
    const bool temporary =
        rc == EAI_AGAIN || rc == EAI_FAIL || rc == EAI_SYSTEM || rc == EAI_MEMORY;
    return fail(ResolveError{gai_strerror(rc), temporary});
  }
  std::vector<Ipv4Endpoint> out;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET) continue;
    sockaddr_in sa{};
    std::memcpy(&sa, ai->ai_addr, sizeof(sa));
    Ipv4Endpoint ep{ntohl(sa.sin_addr.s_addr), hp.port};
    bool dup = false;
    for (const auto& e : out) dup = dup || e == ep;
    if (!dup) out.push_back(ep);
  }
  freeaddrinfo(res);
  if (out.empty()) return fail(ResolveError{"no IPv4 address for " + hp.host, false});
  return out;
}

}  // namespace qeli::transport
