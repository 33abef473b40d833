#include "tunio/mtu_clamp.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"
#include "tunio/checksum.h"
#include "tunio/ip_header.h"

namespace qeli::tunio {
namespace {

constexpr std::uint8_t kIpProtoIcmp = 1;
constexpr std::uint8_t kIcmpDestUnreachable = 3;
constexpr std::uint8_t kIcmpFragNeeded = 4;
constexpr std::size_t kIcmpHeader = 8;
constexpr std::size_t kQuotedPayload = 8;  // RFC 792: "the first 64 bits of the datagram"
constexpr std::uint8_t kIcmpTtl = 64;
constexpr std::uint8_t kIpProtoIcmpv6 = 58;
constexpr std::uint8_t kIcmpv6PacketTooBig = 2;

// ICMP types that are error messages (RFC 1122 §3.2.2): 3 unreachable, 4 source quench,
// 5 redirect, 11 time exceeded, 12 parameter problem.
bool is_icmp_error(std::uint8_t type) {
  return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

// Not a single unicast host we may answer: 0.0.0.0, 127/8, 224/4 (multicast and the
// reserved class E, which contains 255.255.255.255).
bool is_unusable_source(std::uint32_t a) { return a == 0 || (a >> 24) == 127 || (a >> 28) >= 0xe; }
bool is_group_destination(std::uint32_t a) { return (a >> 28) >= 0xe; }

// The upper layer of an IPv6 packet past its extension headers (RFC 8200 §4: hop-by-hop 0,
// routing 43, fragment 44, destination options 60; at most 8 of them): its protocol and
// offset, or proto −1 for a non-first fragment or a chain that leaves the packet.
struct UpperLayer {
  int proto = -1;
  std::size_t offset = 0;
};
UpperLayer ipv6_upper_layer(ByteSpan p) {
  std::uint8_t nh = p[kIpv6NextHeaderOff];
  std::size_t off = kIpv6Header;
  for (int i = 0; i < 8; ++i) {
    if (nh != 0 && nh != 43 && nh != 44 && nh != 60) return {nh, off};
    if (off + 8 > p.size()) return {};
    const std::uint8_t next = p[off];
    if (nh == 44) {
      if ((load_be16(p.data() + off + 2) & 0xfff8) != 0) return {};  // not the first
      off += 8;
    } else {
      off += (std::size_t{p[off + 1]} + 1) * 8;
    }
    nh = next;
  }
  return {};
}

}  // namespace

MtuVerdict check_mtu(ByteSpan packet, const GsoMetadata& meta, std::size_t mtu) {
  const std::size_t unit = meta.type == GsoType::none
                               ? packet.size()
                               : std::size_t{meta.hdr_len} + std::size_t{meta.gso_size};
  if (packet.size() >= kIpv6Header && ip_version(packet.data()) == 6) {
    return unit <= mtu ? MtuVerdict::kFits : MtuVerdict::kPacketTooBig;
  }
  if (packet.size() < kIpv4MinHeader || ip_version(packet.data()) != 4) return MtuVerdict::kFits;
  if (unit <= mtu) return MtuVerdict::kFits;
  const bool df = (load_be16(packet.data() + kIpv4FragOff) & kIpv4DontFragment) != 0;
  return df ? MtuVerdict::kFragNeeded : MtuVerdict::kDrop;
}

std::size_t write_icmp_frag_needed(ByteSpan packet, std::uint16_t next_hop_mtu,
                                   MutableByteSpan out) {
  if (packet.size() < kIpv4MinHeader || ip_version(packet.data()) != 4) return 0;
  const std::uint8_t* ip = packet.data();
  const std::size_t ihl = ipv4_ihl_bytes(ip);
  if (ihl < kIpv4MinHeader || ihl > packet.size()) return 0;
  if ((load_be16(ip + kIpv4FragOff) & kIpv4FragOffsetMask) != 0) return 0;  // not first
  const std::uint32_t src = load_be32(ip + 12);
  const std::uint32_t dst = load_be32(ip + 16);
  if (is_unusable_source(src) || is_group_destination(dst)) return 0;
  if (ip[kIpv4ProtoOff] == kIpProtoIcmp) {
    // An ICMP message whose type we cannot see might be an error: say nothing.
    if (packet.size() <= ihl || is_icmp_error(ip[ihl])) return 0;
  }
  const std::size_t quote = ihl + std::min(kQuotedPayload, packet.size() - ihl);
  const std::size_t total = kIpv4MinHeader + kIcmpHeader + quote;
  if (out.size() < total) return 0;

  std::uint8_t* o = out.data();
  std::memset(o, 0, kIpv4MinHeader + kIcmpHeader);
  // IPv4 header (RFC 791): no options, id 0, not fragmented.
  o[0] = 0x45;
  store_be16(o + kIpv4TotalLenOff, static_cast<std::uint16_t>(total));
  o[kIpv4TtlOff] = kIcmpTtl;
  o[kIpv4ProtoOff] = kIpProtoIcmp;
  store_be32(o + 12, dst);  // we speak for the hop toward the packet's destination
  store_be32(o + 16, src);
  write_ipv4_header_checksum(o, kIpv4MinHeader);
  // ICMP: type, code, checksum, unused(2), next-hop MTU(2), then the quote.
  std::uint8_t* icmp = o + kIpv4MinHeader;
  icmp[0] = kIcmpDestUnreachable;
  icmp[1] = kIcmpFragNeeded;
  store_be16(icmp + 6, next_hop_mtu);
  std::memcpy(icmp + kIcmpHeader, ip, quote);
  const std::uint16_t sum = checksum_fold(checksum_add(ByteSpan(icmp, kIcmpHeader + quote)));
  store_be16(icmp + 2, static_cast<std::uint16_t>(~sum));
  return total;
}

std::size_t write_icmpv6_packet_too_big(ByteSpan packet, std::uint32_t mtu, MutableByteSpan out) {
  if (packet.size() < kIpv6Header || ip_version(packet.data()) != 6) return 0;
  const std::uint8_t* ip = packet.data();
  const std::uint8_t* src = ip + 8;
  const std::uint8_t* dst = ip + 24;
  static constexpr std::uint8_t kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const bool unspecified = std::all_of(src, src + 16, [](std::uint8_t b) { return b == 0; });
  if (unspecified || src[0] == 0xff || std::equal(src, src + 16, kLoopback)) return 0;
  // Never an error about an ICMPv6 error (types below 128), nor about a packet whose
  // upper layer we cannot see (a non-first fragment, a chain past what we read).
  const UpperLayer upper = ipv6_upper_layer(packet);
  if (upper.proto < 0) return 0;
  if (upper.proto == kIpProtoIcmpv6 &&
      (packet.size() <= upper.offset || packet[upper.offset] < 128)) {
    return 0;
  }
  constexpr std::size_t kFixed = kIpv6Header + kIcmpHeader;
  if (out.size() < kFixed + kIpv6Header) return 0;
  const std::size_t quote =
      std::min({packet.size(), kIcmpv6PacketTooBigMaxSize - kFixed, out.size() - kFixed});
  const std::size_t total = kFixed + quote;
  std::uint8_t* o = out.data();
  std::memset(o, 0, kIpv6Header + kIcmpHeader);
  o[0] = 0x60;  // version 6, traffic class 0, flow label 0
  store_be16(o + kIpv6PayloadLenOff, static_cast<std::uint16_t>(kIcmpHeader + quote));
  o[kIpv6NextHeaderOff] = kIpProtoIcmpv6;
  o[kIpv6HopLimitOff] = kIcmpTtl;
  std::memcpy(o + 8, dst, 16);  // we speak for the hop toward the packet's destination
  std::memcpy(o + 24, src, 16);
  std::uint8_t* icmp = o + kIpv6Header;
  icmp[0] = kIcmpv6PacketTooBig;
  store_be32(icmp + 4, mtu);
  std::memcpy(icmp + kIcmpHeader, ip, quote);
  const std::uint64_t pseudo =
      pseudo_header_sum(ByteSpan(o + 8, 16), ByteSpan(o + 24, 16), kIpProtoIcmpv6,
                        static_cast<std::uint32_t>(kIcmpHeader + quote));
  const std::uint16_t sum =
      checksum_fold(checksum_add(ByteSpan(icmp, kIcmpHeader + quote), pseudo));
  store_be16(icmp + 2, static_cast<std::uint16_t>(~sum));
  return total;
}

}  // namespace qeli::tunio
