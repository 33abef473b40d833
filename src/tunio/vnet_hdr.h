// The legacy 10-byte virtio_net_hdr that a TUN opened with IFF_VNET_HDR puts in front of
// every packet (include/uapi/linux/virtio_net.h; reference/tun-offload.md §1.1).
//
// Layout, all 16-bit fields in HOST byte order (TUN's "legacy" endianness), unlike every
// IP/TCP/UDP field after it:
//   0 flags(1)  1 gso_type(1)  2 hdr_len(2)  4 gso_size(2)  6 csum_start(2)  8 csum_offset(2)
// The codec only moves bytes; validation against the packet is validate_offload().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "tunio/gso_metadata.h"

namespace qeli::tunio {

inline constexpr std::size_t kVnetHdrLen = 10;

// flags
inline constexpr std::uint8_t kVnetFlagNeedsCsum = 1;
inline constexpr std::uint8_t kVnetFlagDataValid = 2;
inline constexpr std::uint8_t kVnetFlagRscInfo = 4;
// gso_type
inline constexpr std::uint8_t kVnetGsoNone = 0;
inline constexpr std::uint8_t kVnetGsoTcpV4 = 1;
inline constexpr std::uint8_t kVnetGsoUdp = 3;  // legacy UFO: never accepted
inline constexpr std::uint8_t kVnetGsoTcpV6 = 4;
inline constexpr std::uint8_t kVnetGsoUdpL4 = 5;
inline constexpr std::uint8_t kVnetGsoEcn = 0x80;

struct VnetHdr {
  std::uint8_t flags = 0;
  std::uint8_t gso_type = 0;
  std::uint16_t hdr_len = 0;
  std::uint16_t gso_size = 0;
  std::uint16_t csum_start = 0;
  std::uint16_t csum_offset = 0;
  friend bool operator==(const VnetHdr&, const VnetHdr&) = default;
};

/// Decodes the first 10 bytes of `in`. nullopt if `in` is shorter than 10 bytes.
std::optional<VnetHdr> decode_vnet_hdr(ByteSpan in);

/// Writes exactly kVnetHdrLen bytes to `out` (caller guarantees the room). Every byte is
/// written, so a header never leaks stale buffer contents.
void encode_vnet_hdr(const VnetHdr& h, std::uint8_t* out);

/// The header the kernel must see for a packet with metadata `m` (all zero for a plain
/// packet). Pure mapping; `m` must already be validated.
VnetHdr to_vnet_hdr(const GsoMetadata& m);

}  // namespace qeli::tunio
