#include "wire/udp_envelope.h"

#include <cstdlib>
#include <cstring>

namespace qeli::wire {

std::size_t UdpEnvelope::overhead(bool long_header, std::size_t inner_size) const {
  std::size_t n = obfs != nullptr ? kObfsSealSize : 0;
  if (quic) n += long_header ? quic_long_header_size(inner_size) : kQuicShortHeaderSize;
  return n;
}

Bytes UdpEnvelope::wrap(ByteSpan inner, bool long_header, std::uint32_t pn,
                        crypto::Rng& rng) const {
  const std::size_t seal = obfs != nullptr ? kObfsSealSize : 0;
  Bytes d(overhead(long_header, inner.size()) + inner.size());
  const MutableByteSpan body = MutableByteSpan(d).subspan(seal);
  if (quic) {
    auto n =
        long_header ? wrap_quic_long(cid, pn, inner, body) : wrap_quic_short(cid, pn, inner, body);
    if (!n.ok() || *n != body.size()) std::abort();  // sized above: a bug
  } else if (!inner.empty()) {
    std::memcpy(body.data(), inner.data(), inner.size());
  }
  if (obfs != nullptr) obfs->seal(d, rng);
  return d;
}

const char* to_string(EnvelopeError e) {
  switch (e) {
    case EnvelopeError::kObfs: return "bad obfs seal";
    case EnvelopeError::kQuic: return "bad QUIC-shaped header";
  }
  return "?";
}

Result<OpenedDatagram, EnvelopeError> open_datagram(const UdpEnvelope& env,
                                                    MutableByteSpan datagram) {
  OpenedDatagram out;
  out.inner = datagram;
  if (env.obfs != nullptr) {
    auto p = env.obfs->open(datagram);
    if (!p.ok()) return fail(EnvelopeError::kObfs);
    out.inner = *p;
  }
  if (env.quic) {
    auto q = parse_quic(out.inner);
    if (!q.ok()) return fail(EnvelopeError::kQuic);
    out.long_header = q->long_header;
    out.pn = q->packet_number;
    out.peer_cid = q->cid;
    const auto off = static_cast<std::size_t>(q->payload.data() - out.inner.data());
    out.inner = out.inner.subspan(off, q->payload.size());
  }
  return out;
}

}  // namespace qeli::wire
