// GRO coalesce: same-flow TCP and UDP packets in a PacketBatch are merged, in place, into
// GSO super-packets the kernel accepts on a TUN write (reference/tun-offload.md §2.5).
//
// TCP: flows keyed by addresses, ports and ACK number; a packet is compared with the
// flow's groups from newest to oldest and appended (seq == group end) or prepended
// (seq + len == group start, only onto a group of equal segment size). Only ACK or ACK|PSH
// segments with payload are candidates; a PSH segment closes its group and is never
// prepended; a group ends at its first short segment. TCP header length, options and the
// IP fields TTL/ToS/DF (IPv6: traffic class, hop limit) must match.
// UDP (optional): only the newest group of a flow is extended, with datagrams no larger
// than its first; a shorter one ends it; at most max_udp_segments per group; a datagram
// without a checksum (IPv4 checksum 0) is never merged.
// Every packet's checksums (IPv4 header and L4) are verified before it is merged, because
// the kernel trusts a NEEDS_CSUM write; a packet that fails stays alone and unmodified.
// Merged groups are limited to 65535 bytes and to the head slot's room.
//
// Result, in `batch`: the head of each group stays at the index of its group's first-seen
// packet with GSO metadata {needs_csum, tcp4/tcp6/udp4/udp6, hdr_len, gso_size,
// csum_start, csum_offset}, IP/UDP lengths rewritten, the IPv4 header checksum recomputed
// and the folded pseudo-header sum in the L4 checksum field; logical(head) = packets in
// the group. Packets merged into a group keep their index with logical() == 0 and must be
// skipped. Packets that are not candidates (or have metadata already) are untouched.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tunio/packet_batch.h"

namespace qeli::tunio {

struct GroOptions {
  bool tcp = true;
  bool udp = false;
  /// Segments per UDP group: the kernel refuses more than 128 (64 on some 6.8 kernels).
  std::size_t max_udp_segments = 64;
  /// Largest merged packet (IP total length limit).
  std::size_t max_packet = 65535;
};

struct GroStats {
  std::size_t merged = 0;        // packets folded into another packet
  std::size_t groups = 0;        // heads that now carry GSO metadata
  std::size_t bad_checksum = 0;  // candidates refused because a checksum did not verify
};

/// Scratch flow table for gro_coalesce, sized once for batches of up to `max_packets`
/// packets; reused across calls with no allocation. Not thread-safe.
class GroTable {
 public:
  explicit GroTable(std::size_t max_packets);
  ~GroTable();
  GroTable(GroTable&&) noexcept;
  GroTable& operator=(GroTable&&) noexcept;
  std::size_t capacity() const { return capacity_; }

  struct Item;
  struct Bucket;

 private:
  friend class GroRun;
  std::size_t capacity_;
  std::size_t mask_;
  std::uint32_t generation_ = 0;
  std::unique_ptr<Item[]> items_;
  std::unique_ptr<Bucket[]> buckets_;
};

/// Coalesces the packets of `batch` (see the header comment). Precondition:
/// batch.size() <= table.capacity() (aborts otherwise: a sizing bug).
GroStats gro_coalesce(PacketBatch& batch, const GroOptions& options, GroTable& table);

}  // namespace qeli::tunio
