#include "config/values.h"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace qeli::config {

std::optional<Ipv4Addr> Ipv4Addr::parse(std::string_view s) {
  std::uint32_t v = 0;
  int parts = 0;
  std::size_t i = 0;
  while (parts < 4) {
    std::size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    const std::size_t len = j - i;
    if (len == 0 || len > 3 || (len > 1 && s[i] == '0')) return std::nullopt;
    unsigned octet = 0;
    for (std::size_t k = i; k < j; ++k) octet = octet * 10 + static_cast<unsigned>(s[k] - '0');
    if (octet > 255) return std::nullopt;
    v = (v << 8) | octet;
    ++parts;
    if (parts < 4) {
      if (j >= s.size() || s[j] != '.') return std::nullopt;
      i = j + 1;
    } else if (j != s.size()) {
      return std::nullopt;
    }
  }
  return Ipv4Addr{v};
}

std::string Ipv4Addr::to_string() const {
  return std::to_string(value >> 24) + "." + std::to_string((value >> 16) & 0xff) + "." +
         std::to_string((value >> 8) & 0xff) + "." + std::to_string(value & 0xff);
}

std::optional<Ipv4Cidr> Ipv4Cidr::parse(std::string_view s, bool allow_bare) {
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) {
    if (!allow_bare) return std::nullopt;
    const auto a = Ipv4Addr::parse(s);
    if (!a) return std::nullopt;
    return Ipv4Cidr{*a, 32};
  }
  const auto a = Ipv4Addr::parse(s.substr(0, slash));
  const auto p = parse_uint(s.substr(slash + 1), 32);
  if (!a || !p) return std::nullopt;
  Ipv4Cidr c{*a, static_cast<std::uint8_t>(*p)};
  if ((a->value & ~c.mask()) != 0) return std::nullopt;
  return c;
}

std::string Ipv4Cidr::to_string() const {
  return network.to_string() + "/" + std::to_string(prefix);
}

bool Ipv4Cidr::overlaps(const Ipv4Cidr& o) const {
  const std::uint32_t m = prefix < o.prefix ? mask() : o.mask();
  return (network.value & m) == (o.network.value & m);
}

bool Ipv4Cidr::is_usable_host(Ipv4Addr a) const {
  if (!contains(a)) return false;
  if (prefix >= 31) return true;
  return a != network && a != broadcast();
}

std::optional<Endpoint> Endpoint::parse(std::string_view s, bool allow_zero_port) {
  Endpoint e;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') {
      return std::nullopt;
    }
    e.host = std::string(s.substr(1, close - 1));
    e.bracketed = true;
    port = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    e.host = std::string(s.substr(0, colon));
    if (e.host.find(':') != std::string::npos) return std::nullopt;  // v6 needs brackets
    port = s.substr(colon + 1);
  }
  if (e.host.empty()) return std::nullopt;
  const auto p = parse_uint(port, 65535);
  if (!p || (*p == 0 && !allow_zero_port)) return std::nullopt;
  e.port = static_cast<std::uint16_t>(*p);
  return e;
}

std::string Endpoint::to_string() const {
  return (bracketed ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<bool> parse_bool(std::string_view s) {
  const std::string v = ascii_lower(s);
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_uint(std::string_view s, std::uint64_t max) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view s, std::int64_t min, std::int64_t max) {
  if (s.empty() || s.size() > 21 || s.front() == '+') return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  const std::string str(s);  // strtod needs a terminated string
  char* end = nullptr;
  const double v = std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_ipv6_literal(std::string_view s) {
  // inet_pton stops at a NUL: what follows one must not be ignored.
  if (s.size() > 64 || s.find('\0') != std::string_view::npos) return false;
  const std::string str(s);
  unsigned char buf[16];
  return inet_pton(AF_INET6, str.c_str(), buf) == 1;
}

std::string canonical_ip(std::string_view s) {
  if (s.size() > 64 || s.find('\0') != std::string_view::npos) return std::string(s);
  const std::string str(s);
  in6_addr a6{};
  in_addr a4{};
  char buf[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, str.c_str(), &a4) == 1) {
    inet_ntop(AF_INET, &a4, buf, sizeof(buf));
  } else if (inet_pton(AF_INET6, str.c_str(), &a6) == 1) {
    if (IN6_IS_ADDR_V4MAPPED(&a6)) {
      std::memcpy(&a4, a6.s6_addr + 12, 4);
      inet_ntop(AF_INET, &a4, buf, sizeof(buf));
    } else {
      inet_ntop(AF_INET6, &a6, buf, sizeof(buf));
    }
  } else {
    return str;
  }
  return buf;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = s.find(',');
    const auto item = trim(s.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool is_valid_object_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '@';
    if (!ok) return false;
  }
  return true;
}

}  // namespace qeli::config
