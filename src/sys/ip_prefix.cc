#include "sys/ip_prefix.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>

namespace qeli::sys {

HostResult<IpAddress> IpAddress::parse(std::string_view text) {
  // inet_pton wants a NUL-terminated string; anything longer than the longest IPv6
  // text form (45 chars) is not an address, nor is text with a NUL inside (inet_pton
  // would stop there and ignore what follows).
  if (text.empty() || text.size() > 45 || text.find('\0') != std::string_view::npos) {
    return host_fail(HostErrc::kInvalidArgument, "not an IP address: '" + std::string(text) + "'");
  }
  const std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) {
    a.family = IpFamily::kV4;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.family = IpFamily::kV6;
    return a;
  }
  return host_fail(HostErrc::kInvalidArgument, "not an IP address: '" + s + "'");
}

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress r;
  r.family = IpFamily::kV4;
  r.bytes[0] = a;
  r.bytes[1] = b;
  r.bytes[2] = c;
  r.bytes[3] = d;
  return r;
}

int IpAddress::af() const { return family == IpFamily::kV4 ? AF_INET : AF_INET6; }

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(af(), bytes.data(), buf, sizeof buf) == nullptr) return "?";
  return buf;
}

namespace {

bool host_bits_zero(const IpAddress& a, unsigned len) {
  const unsigned bits = static_cast<unsigned>(a.size()) * 8;
  for (unsigned i = len; i < bits; ++i) {
    if ((a.bytes[i / 8] >> (7 - i % 8)) & 1U) return false;
  }
  return true;
}

}  // namespace

HostResult<IpPrefix> IpPrefix::parse(std::string_view text) {
  const auto slash = text.find('/');
  auto addr = IpAddress::parse(text.substr(0, slash));
  if (!addr) return fail(addr.error());
  IpPrefix p{*addr, 0};
  p.len = p.max_len();
  if (slash == std::string_view::npos) return p;
  const std::string_view len_text = text.substr(slash + 1);
  unsigned len = 0;
  const auto* end = len_text.data() + len_text.size();
  const auto [ptr, ec] = std::from_chars(len_text.data(), end, len);
  if (len_text.empty() || len_text.size() > 3 || ec != std::errc{} || ptr != end ||
      len > p.max_len()) {
    return host_fail(HostErrc::kInvalidArgument,
                     "bad prefix length in '" + std::string(text) + "'");
  }
  if (!host_bits_zero(p.addr, len)) {
    return host_fail(HostErrc::kInvalidArgument,
                     "host bits set in '" + std::string(text) + "' (did you mean the network?)");
  }
  p.len = static_cast<std::uint8_t>(len);
  return p;
}

IpPrefix IpPrefix::host(const IpAddress& a) {
  return IpPrefix{a, static_cast<std::uint8_t>(a.size() * 8)};
}

bool IpPrefix::contains(const IpAddress& a) const {
  if (a.family != addr.family) return false;
  for (unsigned i = 0; i < len; ++i) {
    const unsigned bit_a = (a.bytes[i / 8] >> (7 - i % 8)) & 1U;
    const unsigned bit_p = (addr.bytes[i / 8] >> (7 - i % 8)) & 1U;
    if (bit_a != bit_p) return false;
  }
  return true;
}

std::string IpPrefix::to_string() const { return addr.to_string() + "/" + std::to_string(len); }

}  // namespace qeli::sys
