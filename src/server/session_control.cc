#include "server/session_control.h"

#include <spdlog/spdlog.h>

#include <mutex>

#include "transport/endpoint.h"
#include "tunio/ipv4_fragment.h"
#include "tunio/mtu_clamp.h"
#include "tunio/offload_split.h"

namespace qeli::server {

void apply_client_control(Session& s, const wire::ControlFrame& f, std::uint32_t profile_mtu,
                          std::string_view profile) {
  if (f.type == wire::kCtrlClientInfo) {
    if (auto info = wire::parse_client_info(f); info.ok()) {
      std::lock_guard lock(s.info_mu);
      s.client_version = info->version;
      s.client_platform = info->platform;
    }
    return;
  }
  if (f.type != wire::kCtrlMtuReport) return;
  auto mtu = wire::parse_mtu_report(f);
  if (!mtu.ok()) return;
  const std::uint32_t reported = *mtu;
  const std::uint32_t clamp = reported < profile_mtu ? reported : 0;
  const auto before = s.downlink_mtu.exchange(clamp, std::memory_order_relaxed);
  if (clamp != 0 && before != clamp) {
    spdlog::info(
        "[{}] '{}' ({}) reports MTU {} (profile {}): larger downlink packets get ICMP "
        "fragmentation-needed (DF) or are fragmented",
        profile, s.user, transport::ipv4_to_string(s.tunnel_ip), reported, profile_mtu);
  }
}

namespace {

// DF clear: the client's kernel reassembles what we split (0.7.16 §3.5). GSO super-packets
// without DF (UDP GSO from a socket that turned PMTU discovery off) are not segmented
// first: rare enough to stay a counted drop rather than a second scratch batch.
bool send_fragments(Session& s, MutableByteSpan pkt, const tunio::GsoMetadata& meta,
                    std::uint32_t mtu, tunio::PacketBatch& frags) {
  if (meta.type != tunio::GsoType::none) return false;
  if (meta.needs_csum && !tunio::finish_partial_checksum(pkt, meta)) return false;
  // One stream for all of them (a bonded session's: the one the datagram's flow is on).
  engine::SessionInbox& in = s.bond.pick(pkt);
  frags.clear();
  if (!tunio::ipv4_fragment(pkt, mtu, frags).ok()) return false;
  for (std::size_t i = 0; i < frags.size(); ++i) in.push(frags.packet(i));
  frags.clear();
  in.notify();
  s.counters.add(tunnel::SessionCounter::kFragTx);
  return true;
}

}  // namespace

bool fits_peer_mtu(Session& s, MutableByteSpan pkt, const tunio::GsoMetadata& meta,
                   std::uint32_t mtu, tunio::PacketBatch& icmp, tunio::PacketBatch& frags,
                   TokenBucket* icmp_rate, Instant now) {
  switch (tunio::check_mtu(pkt, meta, mtu)) {
    case tunio::MtuVerdict::kFits: return true;
    case tunio::MtuVerdict::kDrop:
      if (send_fragments(s, pkt, meta, mtu, frags)) return false;
      break;
    case tunio::MtuVerdict::kPacketTooBig: {
      if (icmp.full() || (icmp_rate != nullptr && !icmp_rate->take(now))) break;
      const MutableByteSpan slot = icmp.next_slot();
      const std::size_t n = tunio::write_icmpv6_packet_too_big(pkt, mtu, slot);
      if (n == 0) break;  // no ICMPv6 about this one (RFC 4443 §2.4): just drop it
      icmp.commit(n);
      s.counters.add(tunnel::SessionCounter::kFragNeededSent);
      return false;
    }
    case tunio::MtuVerdict::kFragNeeded: {
      if (icmp.full() || (icmp_rate != nullptr && !icmp_rate->take(now))) break;
      const MutableByteSpan slot = icmp.next_slot();
      const std::size_t n =
          tunio::write_icmp_frag_needed(pkt, static_cast<std::uint16_t>(mtu), slot);
      if (n == 0) break;  // no ICMP about this one (RFC 1122): just drop it
      icmp.commit(n);
      s.counters.add(tunnel::SessionCounter::kFragNeededSent);
      return false;
    }
  }
  s.counters.add(tunnel::SessionCounter::kDropTooBig);
  return false;
}

}  // namespace qeli::server
