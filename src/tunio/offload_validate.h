// The one validation gate for offload metadata (reference/tun-offload.md §1.4, §2.3).
//
// Everything in a virtio_net_hdr is hostile until checked against the packet it describes,
// whether it came from the kernel (read) or from a peer (a super-packet carried whole).
// hdr_len is never trusted: it is recomputed from the TCP data offset, or csum_start + 8
// for UDP. Checks stricter than wireguard-go: gso_size 0, csum_start != IP header length,
// csum_offset != 16/6, IP/UDP length fields that disagree with the packet length.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "tunio/gso_metadata.h"
#include "tunio/offload_error.h"
#include "tunio/vnet_hdr.h"

namespace qeli::tunio {

struct OffloadLimits {
  /// Largest segment (IP packet) a split may produce; 0 = no limit beyond 65535.
  std::size_t mtu = 0;
  /// Largest number of UDP segments one USO packet may stand for (the kernel refuses more
  /// than 128 since 6.9, 64 before); 0 = no limit.
  std::size_t max_udp_segments = 0;
};

/// Validates `h` against `packet` (the IP packet that followed the header) and returns the
/// normalised metadata. A plain header (no flags, no GSO) is returned as plain metadata
/// without looking at the packet. On error nothing about the packet may be used.
Result<GsoMetadata, OffloadError> validate_offload(const VnetHdr& h, ByteSpan packet,
                                                   const OffloadLimits& limits = {});

/// Re-validates metadata that travelled with a packet (e.g. from a peer) before it is
/// split or handed to the kernel: same checks as validate_offload().
Result<GsoMetadata, OffloadError> revalidate(const GsoMetadata& m, ByteSpan packet,
                                             const OffloadLimits& limits = {});

/// Number of segments a validated GSO packet of `packet_len` bytes stands for (1 for a
/// non-GSO packet).
std::size_t segment_count(const GsoMetadata& m, std::size_t packet_len);

}  // namespace qeli::tunio
