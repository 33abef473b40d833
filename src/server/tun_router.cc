#include "server/tun_router.h"

#include <algorithm>

#include "base/endian.h"
#include "server/session_control.h"
#include "tunio/mtu_clamp.h"
#include "wire/gso_chunk.h"

namespace qeli::server {
namespace {

// ICMP errors a TUN reader writes (fragmentation needed, Packet Too Big): Linux's own
// default budget (net.ipv4.icmp_msgs_per_sec 1000, burst 50).
constexpr std::uint32_t kIcmpPerSecond = 1000;
constexpr std::uint32_t kIcmpBurst = 50;
/// Packets per TUN read batch (the inboxes a batch may wake).
constexpr std::size_t kBatch = 64;

}  // namespace

TunRouter::TunRouter(const config::ProfileConfig& profile, SessionTable& sessions,
                     ProfileCounters& counters)
    : sessions_(sessions),
      counters_(counters),
      claims_(sessions.claims()),
      plan6_(Ipv6Plan::of(profile)),
      icmp_(kBatch, tunio::kIcmpv6PacketTooBigMaxSize),
      // The IPv4 fragments of a non-DF packet above a client's MTU (< tun.mtu): at least
      // 512 payload bytes each (MTU floor 576 − a 60-byte header), so this many.
      frags_(profile.tun.mtu / 512 + 2, profile.tun.mtu),
      icmp_rate_(TokenBucket::per_second(kIcmpBurst, kIcmpPerSecond)) {
  woken_.reserve(kBatch);
  held_.reserve(kBatch);
}

void TunRouter::route(tunio::PacketBatch& batch, Instant now) {
  woken_.clear();
  sessions_.with_routes([&](const auto& routes) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto pkt = batch.packet(i);
      Session* s = nullptr;
      const bool v6 = pkt.size() >= 40 && (pkt[0] >> 4) == 6;
      // A network behind a client (SubnetClaims): after the pool's map missed, and only
      // while anything is claimed. Its session is kept alive until the inboxes are woken.
      auto behind = [&](std::shared_ptr<Session> held) {
        s = held.get();
        if (held) held_.push_back(std::move(held));
      };
      if (pkt.size() >= 20 && (pkt[0] >> 4) == 4) {
        const std::uint32_t dst = load_be32(pkt.data() + 16);
        if (const auto it = routes.by_ip.find(dst); it != routes.by_ip.end()) {
          s = it->second.get();
        } else if (!claims_.empty()) {
          behind(claims_.find4(dst));
        }
      } else if (v6 && plan6_) {
        const std::uint8_t* dst = pkt.data() + 24;
        if (const auto k = plan6_->ipv4_of(dst)) {
          const auto it = routes.by_ip.find(*k);
          if (it != routes.by_ip.end()) s = it->second.get();
        } else if (!claims_.empty()) {
          behind(claims_.find6(dst));
        }
      } else {
        continue;
      }
      if (s == nullptr) {
        counters_.tun_no_route++;
        continue;
      }
      if (v6 && !s->peer_state.ipv6.load(std::memory_order_relaxed)) {
        s->counters.add(tunnel::SessionCounter::kDropIpv6);
        continue;
      }
      if (const auto lim = s->downlink_mtu.load(std::memory_order_relaxed); lim != 0) {
        if (!fits_peer_mtu(*s, pkt, batch.meta(i), lim, icmp_, frags_, &icmp_rate_, now)) continue;
      }
      engine::SessionInbox& in = s->bond.pick(pkt);
      in.push(pkt, batch.meta(i));
      if (std::find(woken_.begin(), woken_.end(), &in) == woken_.end()) woken_.push_back(&in);
    }
    for (engine::SessionInbox* in : woken_) in->notify();
  });
  held_.clear();
}

}  // namespace qeli::server
