#include "tunnel/receiver.h"

#include "crypto/ct.h"
#include "handshake/types.h"
#include "tunio/offload_validate.h"
#include "tunnel/gso_convert.h"

namespace qeli::tunnel {
namespace {

Inbound just(InboundKind k) {
  Inbound in;
  in.kind = k;
  return in;
}
Inbound dropped(RecordDrop why) {
  Inbound in;
  in.kind = InboundKind::kDrop;
  in.drop = why;
  return in;
}
Inbound ended(SessionEnd why) {
  Inbound in;
  in.kind = InboundKind::kEnd;
  in.end = why;
  return in;
}

}  // namespace

Receiver::Receiver(ReceiverParams params, wire::PacketCodec codec, SessionCounters& counters,
                   PeerState& peer, Instant now)
    : params_(std::move(params)),
      codec_(std::move(codec)),
      counters_(counters),
      peer_(peer),
      last_auth_(now),
      idle_since_(now) {
  if (params_.gso_receive) gso_.emplace();
  if (params_.accept_tls_bound) codec_.set_accept_tls_bound(true);
  // The handshake enabled AES records (caps::kAesGcm); the switch rules are the carrier's.
  if (codec_.recv_accepts_aes()) codec_.set_accept_aes(params_.stream);
}

Inbound Receiver::open(MutableByteSpan record, Instant now) {
  auto opened = codec_.open_in_place(record);
  if (!opened.ok()) {
    const RecordDrop why = drop_reason(opened.error());
    if (opened.error() == wire::OpenError::kReplay) {
      // A replayed record authenticated: drop it, keep the session (WireGuard does the
      // same) on either carrier.
      counters_.add(SessionCounter::kDropReplay);
    } else if (params_.stream) {
      return ended(SessionEnd::kBadRecord);
    }
    drops_.add(why);
    return dropped(why);
  }
  last_auth_ = now;
  if (!peer_aes_ && codec_.recv_aes_seen()) {
    peer_aes_ = true;  // it seals with AES, so it takes AES: ours switch too
    peer_.aes_gcm = true;
  }
  const ByteSpan data = opened->data;
  switch (wire::classify_plaintext(data)) {
    case wire::PlaintextKind::kHeartbeat:
      counters_.add(SessionCounter::kHeartbeatsRx);
      return just(InboundKind::kHeartbeat);
    case wire::PlaintextKind::kControl:
      if (params_.gso_receive && data.size() > 2 && data[2] == wire::kCtrlGsoChunk) {
        return gso_chunk(data);
      }
      return control(data);
    case wire::PlaintextKind::kPacket: break;
  }
  if (!is_ip_packet(data)) {
    drops_.add(RecordDrop::kNotIpv4);
    counters_.count_not_ipv4(data.data(), data.size());
    return dropped(RecordDrop::kNotIpv4);
  }
  return deliver(data, {});
}

bool Receiver::is_ip_packet(ByteSpan p) const {
  if (p.size() >= 20 && (p[0] >> 4) == 4) return true;
  if (p.size() < 40 || (p[0] >> 4) != 6) return false;
  return peer_.ipv6.load(std::memory_order_relaxed) || may_infer_ipv6();
}

bool Receiver::may_infer_ipv6() const {
  // Offered by us (a server with pool.ipv6.cidr) and no capability frame seen: over UDP
  // that frame may be the datagram that was lost, so a client's first IPv6 packet that
  // passes the inbound filter (its own address of the plan) says it took the offer, as
  // its first AES record does for AES. A frame without the bit, or no offer, keeps the
  // 0.7.16 drop.
  return (params_.offered_caps & handshake::caps::kIpv6Inside) != 0 &&
         peer_.caps.load(std::memory_order_relaxed) == 0;
}

Inbound Receiver::deliver(ByteSpan packet, const tunio::GsoMetadata& meta) {
  if (params_.inbound_filter && !params_.inbound_filter(packet)) {
    drops_.add(RecordDrop::kFiltered);
    return dropped(RecordDrop::kFiltered);
  }
  if ((packet[0] >> 4) == 6 && !peer_.ipv6.load(std::memory_order_relaxed)) {
    if (!params_.inbound_filter) {  // no source check to vouch for it: not inferred
      drops_.add(RecordDrop::kNotIpv4);
      counters_.count_not_ipv4(packet.data(), packet.size());
      return dropped(RecordDrop::kNotIpv4);
    }
    peer_.ipv6 = true;  // may_infer_ipv6(), and the source is the session's own
  }
  counters_.add(SessionCounter::kRxPackets, tunio::segment_count(meta, packet.size()));
  counters_.add(SessionCounter::kRxBytes, packet.size());
  Inbound in;
  in.kind = InboundKind::kPacket;
  in.packet = packet;
  in.meta = meta;
  return in;
}

Inbound Receiver::control(ByteSpan plaintext) {
  counters_.add(SessionCounter::kControlRx);
  auto frame = wire::parse_control_frame(plaintext);
  if (!frame.ok()) return just(InboundKind::kControl);
  const wire::ControlFrame& f = *frame;
  if (f.type == wire::kCtrlCapabilities && params_.offered_caps != 0) {
    if (auto caps = wire::parse_capabilities(f); caps.ok()) {
      const std::uint32_t both = *caps & params_.offered_caps;
      peer_.caps = both;
      peer_.gso = (both & handshake::caps::kGsoSuperPackets) != 0;
      peer_.close_notify = (both & handshake::caps::kCloseNotify) != 0;
      peer_.ipv6 = (both & handshake::caps::kIpv6Inside) != 0;
      binding_offered_ = (both & handshake::caps::kTlsBinding) != 0;
      if ((both & handshake::caps::kAesGcm) != 0) {
        peer_.aes_gcm = true;
      } else {
        codec_.set_refuse_aes();  // it will never seal with AES: no trial for it
      }
    }
  } else if (f.type == wire::kCtrlTlsBinding && binding_offered_ && params_.tls_binding_proof) {
    auto proof = wire::parse_tls_binding(f);
    if (proof.ok() && crypto::ct_equal(*proof, *params_.tls_binding_proof)) {
      // Its records after this frame may come TLS-bound; ours go so from the next batch.
      codec_.set_accept_tls_bound(true);
      peer_.tls_bound = true;
    }
  } else if (f.type == wire::kCtrlMtuReport) {
    if (auto mtu = wire::parse_mtu_report(f); mtu.ok()) peer_.mtu = *mtu;
  }
  if (params_.on_control) params_.on_control(f);
  if (f.type == wire::kCtrlSessionClose && params_.end_on_close_frame) {
    return ended(SessionEnd::kClosedByPeer);
  }
  return just(InboundKind::kControl);
}

Inbound Receiver::gso_chunk(ByteSpan plaintext) {
  auto chunk = wire::parse_gso_chunk(plaintext);
  if (!chunk) {
    counters_.add(SessionCounter::kDropBadGso);
    return just(InboundKind::kControl);
  }
  switch (gso_->add(*chunk)) {
    case wire::GsoAssembler::Result::kPartial: return just(InboundKind::kControl);
    case wire::GsoAssembler::Result::kError:
      counters_.add(SessionCounter::kDropBadGso);
      return just(InboundKind::kControl);
    case wire::GsoAssembler::Result::kComplete: break;
  }
  const ByteSpan pkt = gso_->packet();
  // Peer metadata is hostile input: the one validation gate decides what the kernel gets.
  auto meta = tunio::revalidate(to_metadata(gso_->header()), pkt);
  if (!meta.ok() || !is_ip_packet(pkt)) {
    counters_.add(SessionCounter::kDropBadGso);
    return just(InboundKind::kControl);
  }
  return deliver(pkt, *meta);
}

std::optional<Instant> Receiver::deadline() const {
  std::optional<Instant> d;
  if (params_.liveness.count() > 0) d = last_auth_ + params_.liveness;
  if (params_.idle_timeout.count() > 0) {
    const Instant idle = idle_since_ + params_.idle_timeout;
    if (!d || idle < *d) d = idle;
  }
  return d;
}

SessionEnd Receiver::on_timer(Instant now) {
  if (params_.idle_timeout.count() > 0) {
    // Activity = IP packets either way (the counters are written by both halves).
    const std::uint64_t packets =
        counters_.get(SessionCounter::kRxPackets) + counters_.get(SessionCounter::kTxPackets);
    if (packets != idle_packets_) {
      idle_packets_ = packets;
      idle_since_ = now;
    } else if (now - idle_since_ > params_.idle_timeout) {
      return SessionEnd::kIdle;
    }
  }
  if (params_.liveness.count() > 0 && now - last_auth_ > params_.liveness) {
    return SessionEnd::kLiveness;
  }
  return SessionEnd::kStopped;
}

}  // namespace qeli::tunnel
