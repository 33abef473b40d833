#include "transport/endpoint.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
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

std::string ipv4_to_string(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
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

Result<std::vector<SockAddr>, ResolveError> resolve(const HostPort& hp, Families families) {
  if (auto literal = SockAddr::parse_ip(hp.host, hp.port)) return std::vector<SockAddr>{*literal};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(hp.host.c_str(), nullptr, &hints, &res);
  if (rc == EAI_NONAME || rc == EAI_ADDRFAMILY) {
    // AI_ADDRCONFIG does not count loopback: on a host (or namespace) whose only address
    // is 127.0.0.1, "localhost" would not resolve. Ask again without it.
    hints.ai_flags = 0;
    rc = getaddrinfo(hp.host.c_str(), nullptr, &hints, &res);
  }
  if (rc != 0) {
    const bool temporary =
        rc == EAI_AGAIN || rc == EAI_FAIL || rc == EAI_SYSTEM || rc == EAI_MEMORY;
    return fail(ResolveError{gai_strerror(rc), temporary});
  }
  std::vector<SockAddr> out;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const SockAddr a = SockAddr::from_sockaddr(ai->ai_addr, ai->ai_addrlen).with_port(hp.port);
    if (!a.is_set()) continue;
    bool dup = false;
    for (const auto& e : out) dup = dup || e == a;
    if (!dup) out.push_back(a);
  }
  freeaddrinfo(res);
  if (out.empty()) return fail(ResolveError{"no usable address for " + hp.host, false});
  if (families == Families::kIpv4First) {
    std::stable_partition(out.begin(), out.end(), [](const SockAddr& a) { return a.is_ipv4(); });
  }
  return out;
}

}  // namespace qeli::transport
