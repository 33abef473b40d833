#include "tunio/offload_validate.h"

#include "base/endian.h"
#include "tunio/checksum.h"
#include "tunio/ip_header.h"

namespace qeli::tunio {

std::size_t segment_count(const GsoMetadata& m, std::size_t packet_len) {
  if (m.type == GsoType::none || m.gso_size == 0 || packet_len <= m.hdr_len) return 1;
  const std::size_t payload = packet_len - m.hdr_len;
  return (payload + m.gso_size - 1) / m.gso_size;
}

Result<GsoMetadata, OffloadError> validate_offload(const VnetHdr& h, ByteSpan packet,
                                                   const OffloadLimits& limits) {
  if (h.flags & ~(kVnetFlagNeedsCsum | kVnetFlagDataValid)) return fail(OffloadError::bad_flags);
  const bool needs_csum = (h.flags & kVnetFlagNeedsCsum) != 0;
  if (h.gso_type & kVnetGsoEcn) return fail(OffloadError::ecn_not_negotiated);
  if (h.gso_type != kVnetGsoNone && h.gso_type != kVnetGsoTcpV4 && h.gso_type != kVnetGsoTcpV6 &&
      h.gso_type != kVnetGsoUdpL4) {
    return fail(OffloadError::bad_gso_type);
  }
  // DATA_VALID alone ("checksum already verified") needs nothing from us.
  if (h.gso_type == kVnetGsoNone && !needs_csum) return GsoMetadata{};

  const std::size_t len = packet.size();
  if (len > kMaxIpPacket) return fail(OffloadError::packet_too_long);
  if (len < 1) return fail(OffloadError::packet_too_short);
  const std::uint8_t* ip = packet.data();
  const std::uint8_t version = ip_version(ip);
  std::size_t iph = 0;
  std::uint8_t proto = 0;
  if (version == 4) {
    if (len < kIpv4MinHeader) return fail(OffloadError::packet_too_short);
    iph = ipv4_ihl_bytes(ip);
    if (iph < kIpv4MinHeader || iph > len) return fail(OffloadError::bad_ip_header);
    proto = ip[kIpv4ProtoOff];
  } else if (version == 6) {
    if (len < kIpv6Header) return fail(OffloadError::packet_too_short);
    iph = kIpv6Header;
    proto = ip[kIpv6NextHeaderOff];
  } else {
    return fail(OffloadError::bad_ip_version);
  }

  if (h.gso_type == kVnetGsoNone) {
    // A single packet with a partial checksum: only the field location matters.
    const std::size_t field = std::size_t{h.csum_start} + h.csum_offset;
    if (h.csum_start < iph || field + 2 > len) return fail(OffloadError::csum_out_of_bounds);
    GsoMetadata m;
    m.needs_csum = true;
    m.csum_start = h.csum_start;
    m.csum_offset = h.csum_offset;
    return m;
  }

  GsoMetadata m;
  const bool tcp = h.gso_type != kVnetGsoUdpL4;
  if (h.gso_type == kVnetGsoTcpV4) {
    if (version != 4) return fail(OffloadError::version_mismatch);
    m.type = GsoType::tcp4;
  } else if (h.gso_type == kVnetGsoTcpV6) {
    if (version != 6) return fail(OffloadError::version_mismatch);
    m.type = GsoType::tcp6;
  } else {
    m.type = version == 4 ? GsoType::udp4 : GsoType::udp6;
  }
  if (!needs_csum) return fail(OffloadError::missing_needs_csum);
  if (proto != (tcp ? kIpProtoTcp : kIpProtoUdp)) return fail(OffloadError::protocol_mismatch);
  if (version == 4) {
    if (load_be16(ip + kIpv4TotalLenOff) != len) return fail(OffloadError::ip_length_mismatch);
  } else if (std::size_t{load_be16(ip + kIpv6PayloadLenOff)} + kIpv6Header != len) {
    return fail(OffloadError::ip_length_mismatch);
  }
  if (h.csum_start != iph) return fail(OffloadError::csum_start_mismatch);
  if (h.csum_offset != (tcp ? kTcpCsumOff : kUdpCsumOff))
    return fail(OffloadError::bad_csum_offset);

  std::size_t hdr_len = 0;
  if (tcp) {
    if (len < iph + kTcpMinHeader) return fail(OffloadError::packet_too_short);
    const std::size_t tcph = tcp_header_bytes(ip + iph);
    if (tcph < kTcpMinHeader || tcph > kTcpMaxHeader) return fail(OffloadError::bad_tcp_header_len);
    hdr_len = iph + tcph;
  } else {
    if (len < iph + kUdpHeader) return fail(OffloadError::packet_too_short);
    hdr_len = iph + kUdpHeader;
    if (load_be16(ip + iph + kUdpLenOff) != len - iph)
      return fail(OffloadError::udp_length_mismatch);
  }
  if (hdr_len > len) return fail(OffloadError::hdr_len_exceeds_packet);
  if (hdr_len == len) return fail(OffloadError::empty_payload);
  if (h.gso_size == 0) return fail(OffloadError::zero_gso_size);
  if (limits.mtu != 0 && hdr_len + h.gso_size > limits.mtu) {
    return fail(OffloadError::segment_exceeds_mtu);
  }
  m.needs_csum = true;
  m.hdr_len = static_cast<std::uint16_t>(hdr_len);
  m.gso_size = h.gso_size;
  m.csum_start = h.csum_start;
  m.csum_offset = h.csum_offset;
  if (!tcp && limits.max_udp_segments != 0 && segment_count(m, len) > limits.max_udp_segments) {
    return fail(OffloadError::too_many_segments);
  }
  return m;
}

Result<GsoMetadata, OffloadError> revalidate(const GsoMetadata& m, ByteSpan packet,
                                             const OffloadLimits& limits) {
  return validate_offload(to_vnet_hdr(m), packet, limits);
}

}  // namespace qeli::tunio
