// Honouring a peer's smaller MTU on the way out of the TUN (reference qeli-0.7.16.md §3.5:
// "Server downlink honours min(profile MTU, reported MTU)"). Pure functions: the caller
// reads packets, decides with check_mtu(), and writes what write_icmp_frag_needed()
// builds back into the TUN toward the packet's origin.
//
//   IPv4 packet larger than the MTU, DF set    → ICMP "fragmentation needed" (type 3
//                                                code 4, RFC 792; next-hop MTU field of
//                                                RFC 1191 §4) to the packet's source
//   IPv4 packet larger than the MTU, DF clear  → kDrop: the caller fragments it
//                                                (ipv4_fragment.h) or drops it
//   IPv6 packet larger than the MTU            → ICMPv6 "Packet Too Big" (RFC 4443 §3.2;
//                                                IPv6 routers never fragment, RFC 8200 §5)
//   super-packet (TSO/USO)                     → judged by ONE segment, hdr_len +
//                                                gso_size: if a segment does not fit,
//                                                the whole super-packet is oversized
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "tunio/gso_metadata.h"

namespace qeli::tunio {

enum class MtuVerdict : std::uint8_t {
  kFits,          ///< send it
  kFragNeeded,    ///< oversized with DF set: answer with write_icmp_frag_needed()
  kDrop,          ///< oversized without DF: fragment (ipv4_fragment.h) or drop and count
  kPacketTooBig,  ///< oversized IPv6: answer with write_icmpv6_packet_too_big()
};

/// Judges `packet` (an IPv4 or IPv6 packet, or a super-packet described by `meta`, as read
/// from the TUN) against a tunnel MTU of `mtu` bytes. A packet shorter than its IP header
/// or of another version is kFits (the caller's own checks drop those).
MtuVerdict check_mtu(ByteSpan packet, const GsoMetadata& meta, std::size_t mtu);

/// IPv4 header (20) + ICMP header (8) + quoted IP header (at most 60) + 8 quoted bytes.
inline constexpr std::size_t kIcmpFragNeededMaxSize = 20 + 8 + 60 + 8;

/// Writes into `out` an IPv4 ICMP "destination unreachable / fragmentation needed and DF
/// set" (type 3, code 4) about `packet`: source = the packet's destination, destination
/// = its source, TTL 64; the ICMP body carries `next_hop_mtu` (bytes, RFC 1191 §4) and
/// quotes the packet's IP header with options plus the first 8 bytes after it (RFC 792).
/// Both checksums are filled in. Returns the size written (≤ kIcmpFragNeededMaxSize), or
/// 0 — nothing to send — when `packet` is not a valid IPv4 header, is a non-first
/// fragment, is itself an ICMP error (RFC 1122 §3.2.2: never an error about an error),
/// comes from 0.0.0.0, a loopback, multicast or broadcast source, goes to a multicast or
/// broadcast destination, or when `out` is too small.
std::size_t write_icmp_frag_needed(ByteSpan packet, std::uint16_t next_hop_mtu,
                                   MutableByteSpan out);

/// The IPv6 minimum MTU (RFC 8200 §5): an ICMPv6 error never exceeds it (RFC 4443 §2.4 c).
inline constexpr std::size_t kIcmpv6PacketTooBigMaxSize = 1280;
/// Writes into `out` an ICMPv6 "Packet Too Big" (type 2, code 0, RFC 4443 §3.2) about the
/// IPv6 `packet`: source = the packet's destination, destination = its source, hop limit
/// 64, the MTU field = `mtu` (bytes), then as much of the packet as keeps the message
/// within 1280 bytes; the checksum over the RFC 8200 §8.1 pseudo-header is filled in.
/// Returns the size written, or 0 — nothing to send — when `packet` is not an IPv6
/// header, is itself an ICMPv6 error (RFC 4443 §2.4 e.1), comes from the unspecified,
/// loopback or a multicast address (§2.4 e.6), or when `out` cannot hold the header and
/// the quoted IPv6 header.
std::size_t write_icmpv6_packet_too_big(ByteSpan packet, std::uint32_t mtu, MutableByteSpan out);

}  // namespace qeli::tunio
