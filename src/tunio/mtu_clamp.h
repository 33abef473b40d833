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
  kFits,        ///< send it
  kFragNeeded,  ///< oversized with DF set: answer with write_icmp_frag_needed()
  kDrop,        ///< oversized without DF: fragment (ipv4_fragment.h) or drop and count
};

/// Judges `packet` (an IPv4 packet, or a super-packet described by `meta`, as read from
/// the TUN) against a tunnel MTU of `mtu` bytes. A packet shorter than an IPv4 header or
/// not IPv4 is kFits (the caller's own checks drop those).
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

}  // namespace qeli::tunio
