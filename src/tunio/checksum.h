// Internet checksum arithmetic for IPv4 headers and TCP/UDP (RFC 1071, RFC 768, RFC 9293
// §3.1, RFC 8200 §8.1) and completion of offloaded (partial) checksums
// (reference/tun-offload.md §1.6).
//
// Sums are carried as an unfolded 64-bit "big-endian word" one's-complement sum: add as
// many pieces as you like with checksum_add()/pseudo_header_sum(), then checksum_fold().
// The caller checks every bound before calling (these functions read exactly what they
// are given).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"

namespace qeli::tunio {

inline constexpr std::uint8_t kIpProtoTcp = 6;
inline constexpr std::uint8_t kIpProtoUdp = 17;

/// One's-complement sum of `data` as big-endian 16-bit words (an odd final byte is the
/// high byte of a zero-padded word), added to `initial`. Not folded, not complemented.
std::uint64_t checksum_add(ByteSpan data, std::uint64_t initial = 0);

/// Folds a sum to 16 bits (end-around carry). Not complemented.
std::uint16_t checksum_fold(std::uint64_t sum);

/// Sum of the TCP/UDP pseudo-header. `src`/`dst` are 4 bytes (IPv4) or 16 bytes (IPv6);
/// `l4_len` is the L4 header plus payload in bytes.
std::uint64_t pseudo_header_sum(ByteSpan src, ByteSpan dst, std::uint8_t proto,
                                std::uint32_t l4_len);

/// Computes and stores the IPv4 header checksum of the `ihl_bytes`-byte header at `ip`
/// (the field at offset 10 is zeroed first).
void write_ipv4_header_checksum(std::uint8_t* ip, std::size_t ihl_bytes);

/// True if the IPv4 header checksum of the header at `ip` verifies.
bool ipv4_header_checksum_ok(const std::uint8_t* ip, std::size_t ihl_bytes);

/// Completes a NEEDS_CSUM checksum in place: the field at csum_start + csum_offset holds
/// the folded pseudo-header sum; it becomes ~fold(sum(packet[csum_start..end])). A UDP
/// result of 0 is stored as 0xFFFF (0 means "no checksum", RFC 768). Returns false (and
/// changes nothing) if the field is not inside `packet`.
bool complete_partial_checksum(MutableByteSpan packet, std::size_t csum_start,
                               std::size_t csum_offset, bool is_udp);

/// True if the TCP or UDP checksum of the IPv4/IPv6 packet `packet` verifies. `l4_offset`
/// is the L4 header offset, `proto` the L4 protocol. An IPv4 UDP checksum of 0 ("none")
/// counts as valid. `packet` must hold at least the L4 header.
bool l4_checksum_ok(ByteSpan packet, std::size_t l4_offset, std::uint8_t proto);

/// Writes the full (complemented) TCP/UDP checksum of `packet` (IPv4 or IPv6, no
/// extension headers) into its L4 checksum field.
void write_l4_checksum(MutableByteSpan packet, std::size_t l4_offset, std::uint8_t proto);

}  // namespace qeli::tunio
