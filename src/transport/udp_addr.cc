#include "transport/udp_addr.h"

#include <arpa/inet.h>

#include <cstring>

namespace qeli::transport {

UdpAddr UdpAddr::from(const Ipv4Endpoint& ep) {
  UdpAddr a;
  a.v4 = ep.to_sockaddr();
  a.len = sizeof(sockaddr_in);
  return a;
}

UdpAddr UdpAddr::from_sockaddr(const sockaddr* sa, socklen_t n) {
  UdpAddr a;
  if (sa == nullptr) return a;
  if (sa->sa_family == AF_INET && n >= sizeof(sockaddr_in)) {
    std::memcpy(&a.v4, sa, sizeof(sockaddr_in));
    a.len = sizeof(sockaddr_in);
  } else if (sa->sa_family == AF_INET6 && n >= sizeof(sockaddr_in6)) {
    std::memcpy(&a.v6, sa, sizeof(sockaddr_in6));
    a.len = sizeof(sockaddr_in6);
  }
  return a;
}

std::uint16_t UdpAddr::port() const {
  switch (family()) {
    case AF_INET: return ntohs(v4.sin_port);
    case AF_INET6: return ntohs(v6.sin6_port);
    default: return 0;
  }
}

std::string UdpAddr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  switch (family()) {
    case AF_INET:
      ::inet_ntop(AF_INET, &v4.sin_addr, buf, sizeof(buf));
      return std::string(buf) + ":" + std::to_string(port());
    case AF_INET6:
      ::inet_ntop(AF_INET6, &v6.sin6_addr, buf, sizeof(buf));
      return "[" + std::string(buf) + "]:" + std::to_string(port());
    default: return "unset";
  }
}

bool operator==(const UdpAddr& a, const UdpAddr& b) {
  if (a.family() != b.family()) return false;
  switch (a.family()) {
    case AF_INET:
      return a.v4.sin_port == b.v4.sin_port && a.v4.sin_addr.s_addr == b.v4.sin_addr.s_addr;
    case AF_INET6:
      return a.v6.sin6_port == b.v6.sin6_port && a.v6.sin6_scope_id == b.v6.sin6_scope_id &&
             std::memcmp(&a.v6.sin6_addr, &b.v6.sin6_addr, sizeof(in6_addr)) == 0;
    default: return true;  // both unset
  }
}

std::size_t UdpAddrHash::operator()(const UdpAddr& a) const {
  // FNV-1a over the address bytes and port: cheap, and the table is per worker (the
  // kernel's SO_REUSEPORT hash already spread the flows).
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
  };
  switch (a.family()) {
    case AF_INET:
      mix(&a.v4.sin_addr, sizeof(in_addr));
      mix(&a.v4.sin_port, sizeof(a.v4.sin_port));
      break;
    case AF_INET6:
      mix(&a.v6.sin6_addr, sizeof(in6_addr));
      mix(&a.v6.sin6_port, sizeof(a.v6.sin6_port));
      break;
    default: break;
  }
  return static_cast<std::size_t>(h);
}

}  // namespace qeli::transport
