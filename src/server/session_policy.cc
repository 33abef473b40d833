#include "server/session_policy.h"

#include <algorithm>
#include <vector>

#include "base/endian.h"
#include "engine/stream_framer.h"
#include "server/destination_acl.h"
#include "server/ipv6_plan.h"
#include "server/tcp_carrier.h"
#include "wire/modes.h"

namespace qeli::server {

tunnel::PushedParams pushed_params(const config::ObfConfig& obf) {
  tunnel::PushedParams out;
  out.padding.enabled = obf.padding.enabled;
  out.padding.min_bytes = obf.padding.min_bytes;
  out.padding.max_bytes = obf.padding.max_bytes;
  out.padding.randomize = obf.padding.randomize;
  out.padding.probability = obf.padding.probability;
  out.heartbeat.enabled = obf.heartbeat.enabled;
  out.heartbeat.interval = obf.heartbeat.interval;
  out.heartbeat.data_size_bytes = obf.heartbeat.data_size_bytes;
  out.heartbeat.jitter = obf.heartbeat.jitter;
  out.normalization.enabled = obf.normalization.enabled;
  out.normalization.round_sizes = obf.normalization.round_sizes;
  const config::ShapingConfig& sh = obf.shaping;
  out.shaping = {
      sh.enabled,  sh.idle_gap_mean, sh.idle_gap_min, sh.idle_gap_max,     sh.budget_bytes_per_sec,
      sh.min_size, sh.max_size,      sh.stealth,      sh.stealth_rate_mbps};
  return out;
}

tunnel::CarrierRoom carrier_room(const config::ProfileConfig& p) {
  // TCP: the room the profile's stream layers take in every record (WebSocket frame
  // headers for obfs with the front; nothing for a bare TCP stream).
  tunnel::CarrierRoom r = engine::stream_room(tcp_carrier_overhead(p));
  if (p.transport == config::Transport::kUdp) {
    const wire::ModeRoom m = wire::max_room(wire::Carrier::kDatagram);
    r.head = m.head;
    r.tail = m.tail;
    r.stream = false;
  }
  return r;
}

DestinationAcl destination_acl(const AuthContext& ctx) {
  const config::UserConfig* user = ctx.user;
  const config::GroupConfig* group = nullptr;
  if (user != nullptr && !user->group.empty() && ctx.users) group = ctx.users->group(user->group);
  return DestinationAcl::for_user(user, group);
}

std::function<bool(ByteSpan)> inbound_filter(Session* sp, const config::ProfileConfig& p,
                                             const AuthContext& ctx) {
  const auto acl = destination_acl(ctx);
  const std::uint32_t pool_net = p.pool.cidr.network.value;
  const std::uint32_t pool_mask = p.pool.cidr.mask();
  const std::uint32_t server_ip = p.tun.address.value;
  const bool c2c = p.routing.client_to_client;
  // The `client_subnet`s the session holds: another session's (first claimant wins) are
  // not this one's to send from. IPv6 (only once negotiated: tunnel::Receiver drops it
  // before): the session's one address of the profile's plan, or its IPv6 networks.
  const std::vector<config::Ipv4Cidr> subnets = sp->subnets;
  const std::vector<config::Ipv6Cidr> subnets6 = sp->subnets6;
  const auto plan = Ipv6Plan::of(p);
  const config::Ipv6Cidr pool6 = plan ? plan->cidr() : config::Ipv6Cidr{};
  const config::Ipv6Addr own6 = plan ? plan->address_of(sp->tunnel_ip) : config::Ipv6Addr{};
  const config::Ipv6Addr server6 = plan ? plan->server_address() : config::Ipv6Addr{};
  const bool has6 = plan.has_value();
  // Without client_to_client, the networks other sessions hold are other clients too.
  const SubnetClaims* claims = c2c ? nullptr : ctx.subnet_claims;
  return [sp, pool_net, pool_mask, server_ip, c2c, subnets, subnets6, acl, pool6, own6, server6,
          has6, claims](ByteSpan pkt) {
    if ((pkt[0] >> 4) == 6) {
      const std::uint8_t* src = pkt.data() + 8;
      const std::uint8_t* dst = pkt.data() + 24;
      // Link-scope multicast (a host's listener reports, from ::): never forwarded, and
      // no spoofing either.
      if (dst[0] == 0xff && (dst[1] & 0x0f) <= 2) {
        sp->counters.add(tunnel::SessionCounter::kDropPolicy);
        return false;
      }
      const auto from_subnet = [&] {
        return std::any_of(subnets6.begin(), subnets6.end(),
                           [&](const config::Ipv6Cidr& n) { return n.contains(src); });
      };
      if (!has6 || !(std::equal(own6.bytes.begin(), own6.bytes.end(), src) || from_subnet())) {
        // Before it negotiated IPv6 (a 0.7.16 client's router solicitation from fe80::, a
        // multicast listener report from ::) this is the 0.7.16 drop, not a spoof.
        sp->counters.add(sp->peer_state.ipv6.load(std::memory_order_relaxed)
                             ? tunnel::SessionCounter::kDropBadSource
                             : tunnel::SessionCounter::kDropIpv6);
        return false;
      }
      const bool to_pool = pool6.contains(dst);
      if ((!c2c && to_pool && !std::equal(server6.bytes.begin(), server6.bytes.end(), dst)) ||
          (claims != nullptr && claims->held_by_other6(dst, sp)) || !acl.allows6(dst)) {
        sp->counters.add(tunnel::SessionCounter::kDropPolicy);
        return false;
      }
      return true;
    }
    const std::uint32_t src = load_be32(pkt.data() + 12);
    const std::uint32_t dst = load_be32(pkt.data() + 16);
    bool src_ok = src == sp->tunnel_ip;
    for (const auto& n : subnets) src_ok = src_ok || n.contains({src});
    if (!src_ok) {
      sp->counters.add(tunnel::SessionCounter::kDropBadSource);
      return false;
    }
    if ((!c2c && (dst & pool_mask) == pool_net && dst != server_ip) ||
        (claims != nullptr && claims->held_by_other4(dst, sp))) {
      sp->counters.add(tunnel::SessionCounter::kDropPolicy);
      return false;
    }
    if (!acl.allows(dst)) {
      sp->counters.add(tunnel::SessionCounter::kDropPolicy);
      return false;
    }
    return true;
  };
}

}  // namespace qeli::server
