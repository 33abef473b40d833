#include "tunio/offload_split.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"
#include "tunio/checksum.h"
#include "tunio/ip_header.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {

bool finish_partial_checksum(MutableByteSpan packet, const GsoMetadata& m) {
  const std::uint8_t* ip = packet.data();
  const bool udp =
      m.csum_offset == kUdpCsumOff && !packet.empty() &&
      ((ip_version(ip) == 4 && packet.size() > kIpv4ProtoOff && ip[kIpv4ProtoOff] == kIpProtoUdp) ||
       (ip_version(ip) == 6 && packet.size() > kIpv6NextHeaderOff &&
        ip[kIpv6NextHeaderOff] == kIpProtoUdp));
  return complete_partial_checksum(packet, m.csum_start, m.csum_offset, udp);
}

namespace {

// Copies a non-GSO packet, completing its partial checksum if it has one.
Result<SplitProgress, OffloadError> copy_single(ByteSpan in, const GsoMetadata& m, PacketBatch& out,
                                                SplitCursor& cursor) {
  if (cursor.next_segment > 0) return SplitProgress{0, true};
  if (out.full()) return SplitProgress{0, false};
  if (in.size() > out.max_packet()) return fail(OffloadError::output_too_small);
  MutableByteSpan dst = out.next_slot().first(in.size());
  std::memcpy(dst.data(), in.data(), in.size());
  if (m.needs_csum && !finish_partial_checksum(dst, m)) {
    return fail(OffloadError::csum_out_of_bounds);
  }
  out.commit(in.size());
  cursor.next_segment = 1;
  return SplitProgress{1, true};
}

}  // namespace

Result<SplitProgress, OffloadError> gso_split(ByteSpan in, const GsoMetadata& m, PacketBatch& out,
                                              SplitCursor& cursor) {
  if (m.type == GsoType::none) return copy_single(in, m, out, cursor);
  // Defensive re-checks of invariants validate_offload() established; a violation is a
  // caller bug but costs nothing to refuse.
  if (m.gso_size == 0) return fail(OffloadError::zero_gso_size);
  if (m.hdr_len >= in.size() || m.csum_start >= m.hdr_len) {
    return fail(OffloadError::hdr_len_exceeds_packet);
  }
  const std::size_t hdr_len = m.hdr_len;
  const std::size_t iph = m.csum_start;
  const std::size_t gso = m.gso_size;
  const std::size_t payload = in.size() - hdr_len;
  const std::size_t segments = (payload + gso - 1) / gso;
  if (std::min(hdr_len + gso, in.size()) > out.max_packet()) {
    return fail(OffloadError::output_too_small);
  }
  const bool v4 = m.type == GsoType::tcp4 || m.type == GsoType::udp4;
  const bool tcp = is_tcp(m.type);
  const std::uint8_t proto = tcp ? kIpProtoTcp : kIpProtoUdp;
  const std::uint8_t* src = in.data();
  const std::uint16_t first_id = v4 ? load_be16(src + kIpv4IdOff) : 0;
  const std::uint32_t first_seq = tcp ? load_be32(src + iph + kTcpSeqOff) : 0;
  // Pseudo-header addresses are the same for every segment: sum them once.
  const std::uint64_t addr_sum =
      v4 ? checksum_add(in.subspan(12, 8)) : checksum_add(in.subspan(8, 32));

  SplitProgress progress;
  std::size_t i = cursor.next_segment;
  for (; i < segments && !out.full(); ++i) {
    const std::size_t data_at = hdr_len + i * gso;
    const std::size_t seg_payload = std::min(gso, in.size() - data_at);
    const std::size_t total = hdr_len + seg_payload;
    const bool last = i + 1 == segments;
    std::uint8_t* dst = out.next_slot().data();
    std::memcpy(dst, src, hdr_len);
    std::memcpy(dst + hdr_len, src + data_at, seg_payload);

    if (v4) {
      store_be16(dst + kIpv4IdOff, static_cast<std::uint16_t>(first_id + i));
      store_be16(dst + kIpv4TotalLenOff, static_cast<std::uint16_t>(total));
      write_ipv4_header_checksum(dst, iph);
    } else {
      store_be16(dst + kIpv6PayloadLenOff, static_cast<std::uint16_t>(total - kIpv6Header));
    }
    std::uint8_t* l4 = dst + iph;
    const std::size_t l4_len = total - iph;
    std::size_t csum_field;
    if (tcp) {
      store_be32(l4 + kTcpSeqOff, static_cast<std::uint32_t>(first_seq + i * gso));
      if (!last)
        l4[kTcpFlagsOff] = static_cast<std::uint8_t>(l4[kTcpFlagsOff] & ~(kTcpFin | kTcpPsh));
      csum_field = kTcpCsumOff;
    } else {
      store_be16(l4 + kUdpLenOff, static_cast<std::uint16_t>(l4_len));
      csum_field = kUdpCsumOff;
    }
    store_be16(l4 + csum_field, 0);
    std::uint64_t sum = addr_sum + proto + l4_len;
    sum = checksum_add({l4, l4_len}, sum);
    std::uint16_t c = static_cast<std::uint16_t>(~checksum_fold(sum));
    if (!tcp && c == 0) c = 0xffff;
    store_be16(l4 + csum_field, c);
    out.commit(total);
    ++progress.emitted;
  }
  cursor.next_segment = i;
  progress.done = i >= segments;
  return progress;
}

Result<std::size_t, OffloadError> gso_split_all(ByteSpan in, const GsoMetadata& m,
                                                PacketBatch& out) {
  if (segment_count(m, in.size()) > out.free_slots()) return fail(OffloadError::too_many_segments);
  SplitCursor cursor;
  auto r = gso_split(in, m, out, cursor);
  if (!r) return fail(r.error());
  return r->emitted;
}

}  // namespace qeli::tunio
