// QUIC-shaped envelope: parse anything; a parsed packet must re-wrap to the same bytes
// (up to Length, with the flags normalised to C3) and its payload must lie inside the input.
#include <cstdlib>
#include <cstring>

#include "wire/quic_envelope.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  (void)wire::looks_like_quic(in);
  auto p = wire::parse_quic(in);
  if (!p.ok()) return 0;
  if (p->payload.size() > size) std::abort();
  if (!p->payload.empty() &&
      (p->payload.data() < data || p->payload.data() + p->payload.size() > data + size)) {
    std::abort();
  }
  Bytes out(wire::quic_long_header_size(p->payload.size()) + p->payload.size());
  auto n = p->long_header ? wire::wrap_quic_long(p->cid, p->packet_number, p->payload, out)
                          : wire::wrap_quic_short(p->cid, p->packet_number, p->payload, out);
  if (!n.ok()) std::abort();
  auto again = wire::parse_quic(ByteSpan(out).first(*n));
  if (!again.ok() || again->cid != p->cid || again->packet_number != p->packet_number ||
      again->payload.size() != p->payload.size() ||
      (!p->payload.empty() &&
       std::memcmp(again->payload.data(), p->payload.data(), p->payload.size()) != 0)) {
    std::abort();
  }
  // A short header, or a long one whose Length used the minimal varint, re-wraps byte for
  // byte (modulo the legacy E3 flags).
  if (!p->long_header && (*n != size || std::memcmp(out.data(), data, size) != 0)) std::abort();
  return 0;
}
