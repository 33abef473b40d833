#include "server/source_key.h"

#include <arpa/inet.h>

#include <cstring>

namespace qeli::server {
namespace {

constexpr std::uint64_t kIpv4Tag = 0xffffffff00000000ULL;

SourceKey v6_key(const in6_addr& a) {
  SourceKey k = 0;
  for (int i = 0; i < 8; ++i) k = (k << 8) | a.s6_addr[i];
  return k;
}

}  // namespace

SourceKey source_key(const transport::SockAddr& a) {
  if (a.is_ipv4()) return kIpv4Tag | a.ipv4_host();
  if (a.is_ipv6()) return v6_key(a.v6.sin6_addr);
  return 0;
}

std::string to_string_key(SourceKey k) {
  if ((k & kIpv4Tag) == kIpv4Tag) {
    return transport::SockAddr::ipv4(static_cast<std::uint32_t>(k), 0).ip_string();
  }
  in6_addr a{};
  for (int i = 7; i >= 0; --i, k >>= 8) a.s6_addr[i] = static_cast<std::uint8_t>(k & 0xff);
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET6, &a, buf, sizeof(buf));
  return std::string(buf) + "/64";
}

std::optional<SourceKey> parse_source_key(std::string_view text) {
  // "[2001:db8::7]" as list-clients prints a peer (without its port).
  if (text.size() > 2 && text.front() == '[' && text.back() == ']') {
    const auto inner = text.substr(1, text.size() - 2);
    const auto a = transport::SockAddr::parse_ip(inner, 0);
    if (!a || !a->is_ipv6()) return std::nullopt;
    return source_key(*a);
  }
  if (text.size() > 3 && text.substr(text.size() - 3) == "/64") {
    const auto a = transport::SockAddr::parse_ip(text.substr(0, text.size() - 3), 0);
    if (!a || !a->is_ipv6()) return std::nullopt;
    // A prefix has no host bits (as in route lists: a typo is an error, not a rounding).
    static constexpr std::uint8_t kZero[8] = {};
    if (std::memcmp(a->v6.sin6_addr.s6_addr + 8, kZero, 8) != 0) return std::nullopt;
    return source_key(*a);
  }
  const auto a = transport::SockAddr::parse_ip(text, 0);
  if (!a) return std::nullopt;
  return source_key(*a);
}

}  // namespace qeli::server
