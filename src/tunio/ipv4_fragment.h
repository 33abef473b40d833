// Userspace IPv4 fragmentation (RFC 791 §2.3 "Fragmentation", §3.1 options, §3.2 the
// fragmentation procedure) for downlink packets above a client's reported MTU (reference
// qeli-0.7.16.md §3.5: "without DF → userspace IPv4 fragmentation (options copied per
// RFC 791)"). Pure: reads one packet, writes fragments into free slots of a PacketBatch.
//
//   * every fragment is ≤ `mtu` bytes; all but the last carry 8·k payload bytes
//     (k = floor((mtu − header) / 8));
//   * fragment offset (8-byte units) = the input's offset + this fragment's position, so
//     an input that is itself a fragment is split further correctly;
//   * MF is set on all but the last fragment, and on the last too when the input had MF
//     (a non-last fragment of a larger datagram);
//   * the FIRST fragment keeps the whole header with every option; later fragments carry
//     only the options whose "copied" flag (bit 7 of the type octet) is set, followed by
//     EOL (0) bytes up to a multiple of 4; NOP and EOL are not copied (their flag is 0);
//   * id, TOS, TTL, protocol, addresses and the reserved flag bit are kept; the header
//     checksum is recomputed for every fragment. The payload is copied as is: the L4
//     checksum (TCP/UDP over the whole datagram) must already be complete — finish a
//     partial (offloaded) checksum first (offload_split.h finish_partial_checksum).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "tunio/packet_batch.h"

namespace qeli::tunio {

enum class FragError : std::uint8_t {
  malformed,           // not IPv4, IHL < 5, IHL > total length, total length > the bytes
                       // given, a malformed option list, or offsets beyond 65535 bytes
  dont_fragment,       // larger than `mtu` with DF set (answer with ICMP, mtu_clamp.h)
  mtu_too_small,       // `mtu` cannot hold a header plus 8 payload bytes
  too_many_fragments,  // more fragments than `out` has free slots
  output_too_small,    // out.max_packet() is smaller than a fragment
};

std::string_view to_string(FragError e);

/// Splits the IPv4 packet `packet` (only its first `total length` bytes count; trailing
/// bytes are ignored) into fragments of at most `mtu` bytes, appended to `out`. A packet
/// that already fits is appended unchanged as one fragment (DF or not). All or nothing:
/// on error nothing is appended. Returns the number of packets appended (≥ 1).
/// Never allocates; reads only inside `packet`, writes only into free slots of `out`.
Result<std::size_t, FragError> ipv4_fragment(ByteSpan packet, std::size_t mtu, PacketBatch& out);

}  // namespace qeli::tunio
