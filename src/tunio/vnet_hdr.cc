#include "tunio/vnet_hdr.h"

#include <bit>
#include <cstring>

namespace qeli::tunio {
namespace {

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "mixed-endian hosts are not supported");

// Host byte order: plain memcpy of the native representation.
std::uint16_t load_host16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store_host16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, sizeof v); }

}  // namespace

std::optional<VnetHdr> decode_vnet_hdr(ByteSpan in) {
  if (in.size() < kVnetHdrLen) return std::nullopt;
  VnetHdr h;
  h.flags = in[0];
  h.gso_type = in[1];
  h.hdr_len = load_host16(in.data() + 2);
  h.gso_size = load_host16(in.data() + 4);
  h.csum_start = load_host16(in.data() + 6);
  h.csum_offset = load_host16(in.data() + 8);
  return h;
}

void encode_vnet_hdr(const VnetHdr& h, std::uint8_t* out) {
  out[0] = h.flags;
  out[1] = h.gso_type;
  store_host16(out + 2, h.hdr_len);
  store_host16(out + 4, h.gso_size);
  store_host16(out + 6, h.csum_start);
  store_host16(out + 8, h.csum_offset);
}

VnetHdr to_vnet_hdr(const GsoMetadata& m) {
  VnetHdr h;
  if (m.needs_csum) {
    h.flags = kVnetFlagNeedsCsum;
    h.csum_start = m.csum_start;
    h.csum_offset = m.csum_offset;
  }
  switch (m.type) {
    case GsoType::none: return h;
    case GsoType::tcp4: h.gso_type = kVnetGsoTcpV4; break;
    case GsoType::tcp6: h.gso_type = kVnetGsoTcpV6; break;
    case GsoType::udp4:
    case GsoType::udp6: h.gso_type = kVnetGsoUdpL4; break;
  }
  h.hdr_len = m.hdr_len;
  h.gso_size = m.gso_size;
  return h;
}

}  // namespace qeli::tunio
