#include "tunio/flow_hash.h"

#include "tunio/ip_header.h"

namespace qeli::tunio {
namespace {

constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kProtoUdp = 17;

// One round of a 32-bit multiply-xorshift mix per word (the murmur3 finaliser's
// constants): cheap, and every input bit reaches every output bit.
struct Mixer {
  std::uint32_t h = 0x9e3779b9u;
  void add(std::uint32_t w) {
    w *= 0xcc9e2d51u;
    w = (w << 15) | (w >> 17);
    h ^= w * 0x1b873593u;
    h = ((h << 13) | (h >> 19)) * 5 + 0xe6546b64u;
  }
  std::uint32_t done() const {
    std::uint32_t x = h;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
  }
};

std::uint32_t fallback(ByteSpan ip) {
  Mixer m;
  for (std::size_t i = 0; i < ip.size() && i < 8; ++i) m.add(ip[i]);
  return m.done();
}

bool has_ports(std::uint8_t proto) { return proto == kProtoTcp || proto == kProtoUdp; }

}  // namespace

std::uint32_t flow_hash(ByteSpan ip) {
  const std::uint8_t* p = ip.data();
  if (ip.empty()) return fallback(ip);
  if (ip_version(p) == 4) {
    const std::size_t ihl = ipv4_ihl_bytes(p);
    if (ip.size() < kIpv4MinHeader || ihl < kIpv4MinHeader || ip.size() < ihl) {
      return fallback(ip);
    }
    Mixer m;
    const std::uint8_t proto = p[kIpv4ProtoOff];
    m.add(proto);
    m.add(load_be32(p + 12));
    m.add(load_be32(p + 16));
    const std::uint16_t frag = load_be16(p + kIpv4FragOff);
    const bool fragment = (frag & (kIpv4MoreFragments | kIpv4FragOffsetMask)) != 0;
    if (!fragment && has_ports(proto) && ip.size() >= ihl + 4) m.add(load_be32(p + ihl));
    return m.done();
  }
  if (ip_version(p) == 6) {
    if (ip.size() < kIpv6Header) return fallback(ip);
    Mixer m;
    const std::uint8_t next = p[kIpv6NextHeaderOff];
    m.add(next);
    for (std::size_t off = 8; off < kIpv6Header; off += 4) m.add(load_be32(p + off));
    if (has_ports(next) && ip.size() >= kIpv6Header + 4) m.add(load_be32(p + kIpv6Header));
    return m.done();
  }
  return fallback(ip);
}

}  // namespace qeli::tunio
