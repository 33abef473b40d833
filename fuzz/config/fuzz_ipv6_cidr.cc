// config::Ipv6Addr / Ipv6Cidr parsing (config/ipv6_cidr.h: pool.ipv6.cidr, allowed_networks,
// include/exclude, dns.listen_ipv6) on arbitrary text: never crashes, and whatever parses
// prints back (RFC 5952) to text that parses to the same value; a network contains its
// own address and no host bits are set.
// Input: allow_bare(1) ‖ text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/ipv6_cidr.h"

using namespace qeli::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool allow_bare = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (const auto a = Ipv6Addr::parse(text)) {
    const auto again = Ipv6Addr::parse(a->to_string());
    if (!again || *again != *a) std::abort();
  }
  if (const auto c = Ipv6Cidr::parse(text, allow_bare)) {
    if (c->prefix > 128) std::abort();
    const auto again = Ipv6Cidr::parse(c->to_string(), false);
    if (!again || again->network != c->network || again->prefix != c->prefix) std::abort();
    if (!c->contains(c->network) || !c->overlaps(*c)) std::abort();
  }
  return 0;
}
