#include "config/ipv6_cidr.h"

#include "base/ipv6_scope.h"

#include <arpa/inet.h>

#include <algorithm>

namespace qeli::config {

std::optional<Ipv6Addr> Ipv6Addr::parse(std::string_view s) {
  // inet_pton stops at a NUL: what follows one must not be ignored.
  if (s.empty() || s.size() > 45 || s.find('\0') != std::string_view::npos) return std::nullopt;
  const std::string str(s);
  Ipv6Addr a;
  if (inet_pton(AF_INET6, str.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

std::string Ipv6Addr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, bytes.data(), buf, sizeof(buf));
  return buf;
}

namespace {

// Whether the first `bits` bits of `a` and `b` are equal.
bool same_prefix(const std::uint8_t* a, const std::uint8_t* b, unsigned bits) {
  const unsigned whole = bits / 8;
  if (!std::equal(a, a + whole, b)) return false;
  if (bits % 8 == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xFF00U >> (bits % 8));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

std::optional<Ipv6Cidr> Ipv6Cidr::parse(std::string_view s, bool allow_bare) {
  const auto slash = s.find('/');
  Ipv6Cidr c;
  if (slash == std::string_view::npos) {
    if (!allow_bare) return std::nullopt;
    auto a = Ipv6Addr::parse(s);
    if (!a) return std::nullopt;
    c.network = *a;
    c.prefix = 128;
    return c;
  }
  auto a = Ipv6Addr::parse(s.substr(0, slash));
  const std::string_view len = s.substr(slash + 1);
  if (!a || len.empty() || len.size() > 3 || (len.size() > 1 && len[0] == '0')) {
    return std::nullopt;
  }
  unsigned n = 0;
  for (const char ch : len) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + static_cast<unsigned>(ch - '0');
  }
  if (n > 128) return std::nullopt;
  // Host bits set: compare with the address cut to its prefix.
  Ipv6Addr cut{};
  for (unsigned bit = 0; bit < n; ++bit) {
    cut.bytes[bit / 8] |= static_cast<std::uint8_t>(a->bytes[bit / 8] & (0x80U >> (bit % 8)));
  }
  if (cut != *a) return std::nullopt;
  c.network = *a;
  c.prefix = static_cast<std::uint8_t>(n);
  return c;
}

std::string Ipv6Cidr::to_string() const {
  return network.to_string() + "/" + std::to_string(prefix);
}

bool Ipv6Cidr::contains(const std::uint8_t* addr) const {
  return same_prefix(network.bytes.data(), addr, prefix);
}

Ipv6Addr Ipv6Cidr::host(std::uint64_t offset) const {
  Ipv6Addr a = network;
  std::uint64_t low = 0;
  for (int i = 8; i < 16; ++i) low = (low << 8) | a.bytes[i];
  low += offset;  // the host bits are zero and hold `offset`: no carry into the prefix
  for (int i = 15; i >= 8; --i, low >>= 8) a.bytes[i] = static_cast<std::uint8_t>(low);
  return a;
}

bool Ipv6Cidr::overlaps(const Ipv6Cidr& o) const {
  return same_prefix(network.bytes.data(), o.network.bytes.data(), std::min(prefix, o.prefix));
}

bool Ipv6Addr::is_routable_unicast() const { return is_routable_ipv6_unicast(bytes.data()); }

}  // namespace qeli::config
