// GSO split: a validated super-packet (or a packet with a partial checksum) becomes
// ordinary, fully checksummed IP packets in a PacketBatch (reference/tun-offload.md §2.4).
//
// Per segment i: the IP header is copied with IPv4 ID + i (16-bit wrap), total length /
// payload length rewritten and the IPv4 header checksum recomputed; TCP sequence number
// + i * gso_size (32-bit wrap), FIN and PSH kept only on the last segment, every other
// flag copied; UDP length = 8 + segment payload; the L4 checksum computed over the
// segment (pseudo-header with the SEGMENT's L4 length; a UDP result of 0 becomes 0xFFFF).
// A packet without GSO is copied as one packet, its partial checksum completed.
//
// Pure: reads `in`, writes only into free slots of `out` (never past out.capacity()).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "tunio/gso_metadata.h"
#include "tunio/offload_error.h"
#include "tunio/packet_batch.h"

namespace qeli::tunio {

/// Where a split stopped, so that a super-packet can be finished on a later call when the
/// batch ran out of slots. Start with {}.
struct SplitCursor {
  std::size_t next_segment = 0;
};

struct SplitProgress {
  std::size_t emitted = 0;  // packets appended to `out` by this call
  bool done = false;        // every segment has been emitted
};

/// Appends segments of `in` (described by validated metadata `m`) to `out`, starting at
/// cursor.next_segment, until all are emitted or `out` is full; advances the cursor.
/// Errors (nothing appended): output_too_small if a segment is longer than
/// out.max_packet().
Result<SplitProgress, OffloadError> gso_split(ByteSpan in, const GsoMetadata& m, PacketBatch& out,
                                              SplitCursor& cursor);

/// Completes the partial checksum of a NON-GSO packet with needs_csum metadata, in place.
/// False if the checksum field is outside `packet`.
bool finish_partial_checksum(MutableByteSpan packet, const GsoMetadata& m);

/// All-or-nothing split: too_many_segments (and nothing appended) if `out` lacks free
/// slots for every segment. Returns the number of packets appended.
Result<std::size_t, OffloadError> gso_split_all(ByteSpan in, const GsoMetadata& m,
                                                PacketBatch& out);

}  // namespace qeli::tunio
