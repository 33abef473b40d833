// Field offsets and small accessors for the IPv4 (RFC 791), IPv6 (RFC 8200), TCP
// (RFC 9293) and UDP (RFC 768) headers the offload code touches. Internal to tunio;
// callers check lengths before reading (the accessors read fixed offsets).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/endian.h"

namespace qeli::tunio {

inline constexpr std::size_t kIpv4MinHeader = 20;
inline constexpr std::size_t kIpv6Header = 40;
inline constexpr std::size_t kTcpMinHeader = 20;
inline constexpr std::size_t kTcpMaxHeader = 60;
inline constexpr std::size_t kUdpHeader = 8;
inline constexpr std::size_t kMaxIpPacket = 65535;  // IPv4 total length / TUN read limit

// IPv4 offsets
inline constexpr std::size_t kIpv4TosOff = 1;
inline constexpr std::size_t kIpv4TotalLenOff = 2;
inline constexpr std::size_t kIpv4IdOff = 4;
inline constexpr std::size_t kIpv4FragOff = 6;  // flags(3 bits) + fragment offset(13)
inline constexpr std::size_t kIpv4TtlOff = 8;
inline constexpr std::size_t kIpv4ProtoOff = 9;
inline constexpr std::uint16_t kIpv4DontFragment = 0x4000;
inline constexpr std::uint16_t kIpv4MoreFragments = 0x2000;
inline constexpr std::uint16_t kIpv4FragOffsetMask = 0x1fff;
// IPv6 offsets
inline constexpr std::size_t kIpv6PayloadLenOff = 4;
inline constexpr std::size_t kIpv6NextHeaderOff = 6;
inline constexpr std::size_t kIpv6HopLimitOff = 7;
// TCP offsets (from the TCP header)
inline constexpr std::size_t kTcpSeqOff = 4;
inline constexpr std::size_t kTcpAckOff = 8;
inline constexpr std::size_t kTcpDataOffOff = 12;
inline constexpr std::size_t kTcpFlagsOff = 13;
inline constexpr std::size_t kTcpCsumOff = 16;
inline constexpr std::uint8_t kTcpFin = 0x01;
inline constexpr std::uint8_t kTcpSyn = 0x02;
inline constexpr std::uint8_t kTcpRst = 0x04;
inline constexpr std::uint8_t kTcpPsh = 0x08;
inline constexpr std::uint8_t kTcpAck = 0x10;
// UDP offsets (from the UDP header)
inline constexpr std::size_t kUdpLenOff = 4;
inline constexpr std::size_t kUdpCsumOff = 6;

inline std::uint8_t ip_version(const std::uint8_t* ip) { return ip[0] >> 4; }
inline std::size_t ipv4_ihl_bytes(const std::uint8_t* ip) {
  return static_cast<std::size_t>(ip[0] & 0x0fu) * 4;
}
inline std::size_t tcp_header_bytes(const std::uint8_t* tcp) {
  return static_cast<std::size_t>(tcp[kTcpDataOffOff] >> 4) * 4;
}

}  // namespace qeli::tunio
