#include "handshake/mtu_probe_responder.h"

#include "wire/udp_frag.h"

namespace qeli::handshake {

Bytes MtuProbeResponder::on_probe(ByteSpan inner, Instant now) {
  auto p = wire::parse_mtu_probe(inner);
  if (!p.ok() || p->is_ack) {
    ++refused_;
    return {};
  }
  if (in_window_ == 0 || now - window_start_ >= kAckWindow) {
    window_start_ = now;
    in_window_ = 0;
  }
  if (in_window_ >= kMaxAcks) {
    ++refused_;
    return {};
  }
  ++in_window_;
  ++answered_;
  return wire::build_mtu_probe_ack(p->probe);
}

}  // namespace qeli::handshake
