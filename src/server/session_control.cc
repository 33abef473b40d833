#include "server/session_control.h"

#include <spdlog/spdlog.h>

#include <mutex>

#include "transport/endpoint.h"
#include "tunio/mtu_clamp.h"

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
  s.peer_mtu.store(reported, std::memory_order_relaxed);
  const auto before = s.downlink_mtu.exchange(clamp, std::memory_order_relaxed);
  if (clamp != 0 && before != clamp) {
    spdlog::info(
        "[{}] '{}' ({}) reports MTU {} (profile {}): larger downlink packets get ICMP "
        "fragmentation-needed (DF) or are dropped",
        profile, s.user, transport::ipv4_to_string(s.tunnel_ip), reported, profile_mtu);
  }
}

bool fits_peer_mtu(Session& s, ByteSpan pkt, const tunio::GsoMetadata& meta, std::uint32_t mtu,
                   tunio::PacketBatch& icmp) {
  switch (tunio::check_mtu(pkt, meta, mtu)) {
    case tunio::MtuVerdict::kFits: return true;
    case tunio::MtuVerdict::kDrop: break;
    case tunio::MtuVerdict::kFragNeeded: {
      if (icmp.full()) break;
      const MutableByteSpan slot = icmp.next_slot();
      const std::size_t n =
          tunio::write_icmp_frag_needed(pkt, static_cast<std::uint16_t>(mtu), slot);
      if (n == 0) break;  // no ICMP about this one (RFC 1122): just drop it
      icmp.commit(n);
      engine::SessionCounters::add(s.counters.frag_needed_sent);
      return false;
    }
  }
  engine::SessionCounters::add(s.counters.drop_too_big);
  return false;
}

}  // namespace qeli::server
