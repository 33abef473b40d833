#include "transport/sock_addr.h"

#include <arpa/inet.h>

#include <cstring>

namespace qeli::transport {
namespace {

bool is_v4_mapped(const in6_addr& a) {
  static constexpr std::uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(a.s6_addr, kPrefix, sizeof(kPrefix)) == 0;
}

}  // namespace

SockAddr SockAddr::ipv4(std::uint32_t host_order, std::uint16_t port) {
  SockAddr a;
  a.v4.sin_family = AF_INET;
  a.v4.sin_port = htons(port);
  a.v4.sin_addr.s_addr = htonl(host_order);
  a.len = sizeof(sockaddr_in);
  return a;
}

SockAddr SockAddr::ipv6(const std::uint8_t* bytes, std::uint16_t port) {
  SockAddr a;
  a.v6.sin6_family = AF_INET6;
  a.v6.sin6_port = htons(port);
  std::memcpy(a.v6.sin6_addr.s6_addr, bytes, 16);
  a.len = sizeof(sockaddr_in6);
  return a;
}

std::optional<SockAddr> SockAddr::parse_ip(std::string_view ip, std::uint16_t port) {
  char buf[INET6_ADDRSTRLEN];
  // inet_pton stops at a NUL: "10.0.0.1\0junk" (e.g. a JSON "\u0000") must not pass.
  if (ip.size() >= sizeof(buf) || ip.find('\0') != std::string_view::npos) return std::nullopt;
  std::memcpy(buf, ip.data(), ip.size());
  buf[ip.size()] = '\0';
  SockAddr a;
  if (inet_pton(AF_INET, buf, &a.v4.sin_addr) == 1) {
    a.v4.sin_family = AF_INET;
    a.v4.sin_port = htons(port);
    a.len = sizeof(sockaddr_in);
    return a;
  }
  if (inet_pton(AF_INET6, buf, &a.v6.sin6_addr) == 1) {
    a.v6.sin6_family = AF_INET6;
    a.v6.sin6_port = htons(port);
    a.len = sizeof(sockaddr_in6);
    // ::ffff:a.b.c.d is the IPv4 address (as from_sockaddr reads it): our IPv6 sockets are
    // IPv6-only and could neither bind nor send to it.
    return from_sockaddr(&a.sa, a.len);
  }
  return std::nullopt;
}

SockAddr SockAddr::from_sockaddr(const sockaddr* sa, socklen_t n) {
  SockAddr a;
  if (sa == nullptr) return a;
  if (sa->sa_family == AF_INET && n >= sizeof(sockaddr_in)) {
    std::memcpy(&a.v4, sa, sizeof(sockaddr_in));
    a.len = sizeof(sockaddr_in);
  } else if (sa->sa_family == AF_INET6 && n >= sizeof(sockaddr_in6)) {
    std::memcpy(&a.v6, sa, sizeof(sockaddr_in6));
    a.len = sizeof(sockaddr_in6);
    if (is_v4_mapped(a.v6.sin6_addr)) {
      std::uint32_t v4 = 0;
      std::memcpy(&v4, a.v6.sin6_addr.s6_addr + 12, 4);
      const std::uint16_t port = ntohs(a.v6.sin6_port);
      a = ipv4(ntohl(v4), port);
    }
  }
  return a;
}

SockAddr SockAddr::peer_of(int fd) {
  sockaddr_storage ss{};
  socklen_t n = sizeof(ss);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &n) != 0) return {};
  return from_sockaddr(reinterpret_cast<const sockaddr*>(&ss), n);
}

SockAddr SockAddr::local_of(int fd) {
  sockaddr_storage ss{};
  socklen_t n = sizeof(ss);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &n) != 0) return {};
  return from_sockaddr(reinterpret_cast<const sockaddr*>(&ss), n);
}

std::uint32_t SockAddr::ipv4_host() const { return is_ipv4() ? ntohl(v4.sin_addr.s_addr) : 0; }

std::uint16_t SockAddr::port() const {
  switch (family()) {
    case AF_INET: return ntohs(v4.sin_port);
    case AF_INET6: return ntohs(v6.sin6_port);
    default: return 0;
  }
}

SockAddr SockAddr::with_port(std::uint16_t port) const {
  SockAddr a = *this;
  if (is_ipv4()) a.v4.sin_port = htons(port);
  if (is_ipv6()) a.v6.sin6_port = htons(port);
  return a;
}

bool SockAddr::is_unspecified() const {
  if (is_ipv4()) return v4.sin_addr.s_addr == 0;
  if (is_ipv6()) return IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr);
  return false;
}

std::string SockAddr::ip_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  switch (family()) {
    case AF_INET: ::inet_ntop(AF_INET, &v4.sin_addr, buf, sizeof(buf)); return buf;
    case AF_INET6: ::inet_ntop(AF_INET6, &v6.sin6_addr, buf, sizeof(buf)); return buf;
    default: return "unset";
  }
}

std::string SockAddr::to_string() const {
  switch (family()) {
    case AF_INET: return ip_string() + ":" + std::to_string(port());
    case AF_INET6: return "[" + ip_string() + "]:" + std::to_string(port());
    default: return "unset";
  }
}

bool operator==(const SockAddr& a, const SockAddr& b) {
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

std::size_t SockAddrHash::operator()(const SockAddr& a) const {
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
