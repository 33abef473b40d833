// GsoMetadata: what a packet in a PacketBatch says about its segmentation offload, in
// platform-neutral terms (Linux spells it as a virtio_net_hdr, see vnet_hdr.h).
//
// A packet with type == none and needs_csum == false is an ordinary, fully checksummed
// IP packet. Anything else is either a super-packet (one IP/L4 header followed by up to
// 64 KiB of payload that stands for ceil(payload / gso_size) segments) or a packet whose
// L4 checksum field holds only the folded pseudo-header sum (reference/tun-offload.md
// §1.2, §1.6). Metadata that came from outside (kernel or peer) is only trusted after
// validate_offload() (offload_validate.h) produced it.
#pragma once

#include <cstdint>

namespace qeli::tunio {

enum class GsoType : std::uint8_t {
  none = 0,  // not a super-packet
  tcp4,      // TSO, IPv4 (virtio GSO_TCPV4)
  tcp6,      // TSO, IPv6 (virtio GSO_TCPV6)
  udp4,      // USO, IPv4: every segment is its own UDP datagram (virtio GSO_UDP_L4)
  udp6,      // USO, IPv6
};

inline constexpr bool is_tcp(GsoType t) { return t == GsoType::tcp4 || t == GsoType::tcp6; }
inline constexpr bool is_udp(GsoType t) { return t == GsoType::udp4 || t == GsoType::udp6; }

struct GsoMetadata {
  GsoType type = GsoType::none;
  /// The L4 checksum is partial: the field at csum_start + csum_offset holds the folded,
  /// non-complemented pseudo-header sum over the packet's L4 length.
  bool needs_csum = false;
  /// IP + L4 header bytes of the super-packet (recomputed from the headers, never copied
  /// from the kernel's hint). 0 when type == none.
  std::uint16_t hdr_len = 0;
  /// Payload bytes per segment (the TCP MSS / UDP datagram payload). 0 when type == none.
  std::uint16_t gso_size = 0;
  /// Offset of the L4 header from the start of the IP header.
  std::uint16_t csum_start = 0;
  /// Offset of the checksum field from csum_start: 16 for TCP, 6 for UDP.
  std::uint16_t csum_offset = 0;

  bool is_plain() const { return type == GsoType::none && !needs_csum; }
  friend bool operator==(const GsoMetadata&, const GsoMetadata&) = default;
};

}  // namespace qeli::tunio
