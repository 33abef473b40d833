// The closed set of reasons why offload metadata or a packet was refused, and counters of
// them. Hostile or broken input is a counted drop, never an exception
// (STYLE.md practices 11-12).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace qeli::tunio {

enum class OffloadError : std::uint8_t {
  short_header,            // fewer than 10 bytes where a virtio_net_hdr was expected
  bad_flags,               // RSC_INFO or unknown flag bits
  bad_gso_type,            // gso_type not NONE/TCPV4/TCPV6/UDP_L4 (UFO=3 included)
  ecn_not_negotiated,      // GSO ECN bit: we never request TUN_F_TSO_ECN
  bad_ip_version,          // version nibble not 4 or 6
  version_mismatch,        // TCPV4 on IPv6 or TCPV6 on IPv4
  protocol_mismatch,       // IP protocol / next header is not the GSO type's L4 protocol
  missing_needs_csum,      // a GSO packet without NEEDS_CSUM
  packet_too_short,        // shorter than the headers it claims
  packet_too_long,         // longer than 65535 bytes
  bad_ip_header,           // IPv4 IHL < 5 or beyond the packet
  ip_length_mismatch,      // IPv4 total length / IPv6 payload length disagrees with the read
  udp_length_mismatch,     // UDP length field disagrees with the packet
  csum_start_mismatch,     // csum_start is not the real IP header length
  bad_csum_offset,         // csum_offset not 16 (TCP) / 6 (UDP)
  csum_out_of_bounds,      // checksum field not inside the packet
  bad_tcp_header_len,      // TCP data offset outside 20..60 bytes
  hdr_len_exceeds_packet,  // recomputed header length beyond the packet
  empty_payload,           // a GSO packet with no payload
  zero_gso_size,           // GSO type with gso_size 0
  segment_exceeds_mtu,     // hdr_len + gso_size larger than the configured MTU
  too_many_segments,       // more segments than the output (or the kernel) can take
  output_too_small,        // an output slot cannot hold a segment
  kCount
};

inline constexpr std::size_t kOffloadErrorCount = static_cast<std::size_t>(OffloadError::kCount);

std::string_view to_string(OffloadError e);

/// Per-reason drop counters. Not thread-safe: one instance per queue/worker.
class OffloadCounters {
 public:
  void count(OffloadError e) { ++n_[static_cast<std::size_t>(e)]; }
  std::uint64_t get(OffloadError e) const { return n_[static_cast<std::size_t>(e)]; }
  std::uint64_t total() const;

 private:
  std::array<std::uint64_t, kOffloadErrorCount> n_{};
};

}  // namespace qeli::tunio
