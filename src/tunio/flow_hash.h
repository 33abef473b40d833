// The flow of an inner IP packet as one number, to pin each flow to one bonded stream
// (qeli 0.7.16 §3.8: no resequencing across streams, so a flow must never be split).
//
// IPv4 (RFC 791): protocol, source, destination, and for TCP/UDP the two ports — except
// for fragments (MF set or a non-zero offset), which hash without ports: the later
// fragments carry none, and all of one datagram must take one stream. IPv6 (RFC 8200):
// next header, source, destination and, for TCP/UDP directly after the fixed header,
// the ports. Anything shorter than its header hashes its first bytes (still a constant
// per packet shape, never a read past the end).
#pragma once

#include <cstdint>

#include "base/bytes.h"

namespace qeli::tunio {

/// A 32-bit hash of `ip`'s flow; equal for every packet of one flow, in one direction.
/// Pure, allocation-free, safe on any bytes.
std::uint32_t flow_hash(ByteSpan ip);

}  // namespace qeli::tunio
