// Fuzzes the read side: a hostile virtio_net_hdr + packet through validate_offload and
// gso_split. Invariants, not just "no crash":
//   - no output exceeds 65535 bytes, the MTU limit, or hdr_len + gso_size;
//   - every output of a GSO split has valid IPv4 header and L4 checksums (reference
//     implementation), and the outputs' payloads concatenate to the input's payload;
//   - split then coalesce gives back the input super-packet byte for byte (outside the
//     checksum fields), whenever the input is a shape GRO merges.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fakes/packet_builder.h"
#include "tunio/ip_header.h"
#include "tunio/offload_coalesce.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

using namespace qeli::tunio;

namespace {

// Reports the broken invariant's line before aborting, so a crash names it.
void check_at(bool ok, int line) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken at %s:%d\n", __FILE__, line);
    std::abort();
  }
}
#define check(x) check_at((x), __LINE__)

// Can GRO put these segments back together? (the shapes it refuses on purpose)
bool gro_shape(const std::uint8_t* p, const GsoMetadata& m, std::size_t segments) {
  const std::size_t iph = m.csum_start;
  if (is_tcp(m.type)) {
    const std::uint8_t flags = p[iph + kTcpFlagsOff];
    if (flags != kTcpAck && flags != (kTcpAck | kTcpPsh)) return false;
    if (p[iph + kTcpDataOffOff] & 0x0f) return false;
  } else if (segments > 64) {
    return false;
  }
  if (m.type == GsoType::tcp4 || m.type == GsoType::udp4) {
    if (iph != 20) return false;
    if (qeli::load_be16(p + kIpv4FragOff) & (kIpv4MoreFragments | kIpv4FragOffsetMask))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static PacketBatch out(256, 65535, 16);
  static PacketBatch regro(256, 65535, 16);
  static GroTable table(256);
  if (size < kVnetHdrLen + 2) return 0;
  const std::size_t mtu = data[0] < 128 ? 0 : 576 + data[1] * 64u;
  auto h = decode_vnet_hdr({data + 2, size - 2});
  const qeli::ByteSpan pkt(data + 2 + kVnetHdrLen, size - 2 - kVnetHdrLen);
  auto m = validate_offload(*h, pkt, OffloadLimits{mtu, 0});
  if (!m) return 0;
  const std::size_t segments = segment_count(*m, pkt.size());
  SplitCursor cursor;
  std::size_t payload_at = m->hdr_len;
  std::size_t emitted = 0;
  bool done = false;
  while (!done) {
    out.clear();
    auto r = gso_split(pkt, *m, out, cursor);
    if (!r) return 0;
    done = r->done;
    emitted += r->emitted;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto seg = out.packet(i);
      check(seg.size() <= 65535);
      if (m->type == GsoType::none) {
        check(seg.size() == pkt.size());
        continue;
      }
      check(seg.size() <= m->hdr_len + std::size_t{m->gso_size});
      if (mtu) check(seg.size() <= mtu);
      check(qeli::test::ref_checksums_ok(seg.data(), seg.size()));
      const std::size_t pl = seg.size() - m->hdr_len;
      check(std::memcmp(seg.data() + m->hdr_len, pkt.data() + payload_at, pl) == 0);
      payload_at += pl;
    }
    if (segments <= out.capacity()) check(done);
  }
  check(emitted == segments);
  if (m->type == GsoType::none) return 0;
  check(payload_at == pkt.size());

  // Split then coalesce: back to the original (normalised) super-packet.
  if (segments > regro.capacity() || !gro_shape(pkt.data(), *m, segments)) return 0;
  regro.clear();
  check(gso_split_all(pkt, *m, regro).ok());
  GroOptions opt;
  opt.udp = true;
  gro_coalesce(regro, opt, table);
  check(regro.logical(0) == segments);
  for (std::size_t i = 1; i < regro.size(); ++i) check(regro.logical(i) == 0);
  const auto back = regro.packet(0);
  check(back.size() == pkt.size());
  std::uint8_t a[65535], b[65535];
  std::memcpy(a, pkt.data(), pkt.size());
  std::memcpy(b, back.data(), back.size());
  const std::size_t l4csum = m->csum_start + m->csum_offset;
  a[l4csum] = a[l4csum + 1] = b[l4csum] = b[l4csum + 1] = 0;
  if (m->type == GsoType::tcp4 || m->type == GsoType::udp4) a[10] = a[11] = b[10] = b[11] = 0;
  check(std::memcmp(a, b, pkt.size()) == 0);
  if (segments > 1) {
    check(regro.meta(0) == *m);
    check(revalidate(regro.meta(0), back).ok());
  }
  return 0;
}
