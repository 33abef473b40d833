#include "server/session_policy.h"

#include <vector>

#include "base/endian.h"
#include "server/destination_acl.h"

namespace qeli::server {

engine::PaddingPolicy padding_of(const config::ObfConfig& o) {
  const config::PaddingConfig& p = o.padding;
  engine::PaddingPolicy out;
  if (o.normalization.enabled) out.set_round_sizes(o.normalization.round_sizes);
  out.enabled = p.enabled;
  out.min_bytes = p.min_bytes;
  out.max_bytes = p.max_bytes;
  out.randomize = p.randomize;
  out.probability = p.probability;
  return out;
}

engine::HeartbeatPolicy heartbeat_of(const config::HeartbeatConfig& h) {
  engine::HeartbeatPolicy out;
  out.enabled = h.enabled;
  out.interval_ms = static_cast<std::uint32_t>(h.interval.count());
  out.data_size_bytes = h.data_size_bytes;
  out.jitter_ms = static_cast<std::uint32_t>(h.jitter.count());
  return out;
}

std::function<bool(ByteSpan)> inbound_filter(Session* sp, const config::ProfileConfig& p,
                                             const AuthContext& ctx) {
  const config::UserConfig* user = ctx.user;
  const config::GroupConfig* group = nullptr;
  if (user != nullptr && !user->group.empty() && ctx.users) group = ctx.users->group(user->group);
  const auto acl = DestinationAcl::for_user(user, group);
  const std::uint32_t pool_net = p.pool.cidr.network.value;
  const std::uint32_t pool_mask = p.pool.cidr.mask();
  const std::uint32_t server_ip = p.tun.address.value;
  const bool c2c = p.routing.client_to_client;
  std::vector<config::Ipv4Cidr> subnets;
  if (user != nullptr) subnets = user->client_subnets;
  return [sp, pool_net, pool_mask, server_ip, c2c, subnets, acl](ByteSpan pkt) {
    const std::uint32_t src = load_be32(pkt.data() + 12);
    const std::uint32_t dst = load_be32(pkt.data() + 16);
    bool src_ok = src == sp->tunnel_ip;
    for (const auto& n : subnets) src_ok = src_ok || n.contains({src});
    if (!src_ok) {
      engine::SessionCounters::add(sp->counters.drop_bad_source);
      return false;
    }
    if (!c2c && (dst & pool_mask) == pool_net && dst != server_ip) {
      engine::SessionCounters::add(sp->counters.drop_policy);
      return false;
    }
    if (!acl.allows(dst)) {
      engine::SessionCounters::add(sp->counters.drop_policy);
      return false;
    }
    return true;
  };
}

}  // namespace qeli::server
