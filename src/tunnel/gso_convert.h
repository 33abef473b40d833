// Conversions between the TUN engine's GsoMetadata and the wire's GSO chunk header
// (wire/gso_chunk.h). The numeric gso_type values are part of the wire format.
#pragma once

#include "tunio/gso_metadata.h"
#include "wire/gso_chunk.h"

namespace qeli::tunnel {

inline wire::GsoChunkHeader to_chunk_header(const tunio::GsoMetadata& m, std::size_t total_len) {
  wire::GsoChunkHeader h;
  h.gso_type = static_cast<std::uint8_t>(m.type);  // none 0, tcp4 1, tcp6 2, udp4 3, udp6 4
  h.needs_csum = m.needs_csum;
  h.gso_size = m.gso_size;
  h.hdr_len = m.hdr_len;
  h.csum_start = m.csum_start;
  h.csum_offset = m.csum_offset;
  h.total_len = static_cast<std::uint16_t>(total_len);
  return h;
}

inline tunio::GsoMetadata to_metadata(const wire::GsoChunkHeader& h) {
  tunio::GsoMetadata m;
  m.type = static_cast<tunio::GsoType>(h.gso_type);
  m.needs_csum = h.needs_csum;
  m.gso_size = h.gso_size;
  m.hdr_len = h.hdr_len;
  m.csum_start = h.csum_start;
  m.csum_offset = h.csum_offset;
  return m;
}

static_assert(static_cast<int>(tunio::GsoType::tcp4) == 1 &&
              static_cast<int>(tunio::GsoType::tcp6) == 2 &&
              static_cast<int>(tunio::GsoType::udp4) == 3 &&
              static_cast<int>(tunio::GsoType::udp6) == 4);

}  // namespace qeli::tunnel
