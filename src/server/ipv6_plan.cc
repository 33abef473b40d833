#include "server/ipv6_plan.h"

namespace qeli::server {
namespace {

std::uint64_t low64(const std::uint8_t* a) {
  std::uint64_t v = 0;
  for (int i = 8; i < 16; ++i) v = (v << 8) | a[i];
  return v;
}

}  // namespace

std::optional<Ipv6Plan> Ipv6Plan::of(const config::ProfileConfig& p) {
  if (!p.pool.ipv6) return std::nullopt;
  return Ipv6Plan(*p.pool.ipv6, p.pool.cidr, p.tun.address.value);
}

Ipv6Plan::Ipv6Plan(const config::Ipv6Cidr& cidr, const config::Ipv4Cidr& pool,
                   std::uint32_t server_ip)
    : cidr_(cidr),
      low_(low64(cidr.network.bytes.data())),
      net4_(pool.network.value),
      hosts4_(std::uint64_t{1} << (32 - pool.prefix)),
      server_ip_(server_ip) {}

config::Ipv6Addr Ipv6Plan::address_of(std::uint32_t ip) const { return cidr_.host(ip - net4_); }

std::optional<std::uint32_t> Ipv6Plan::ipv4_of(const std::uint8_t* addr) const {
  if (!cidr_.contains(addr)) return std::nullopt;
  const std::uint64_t offset = low64(addr) - low_;
  if (offset >= hosts4_) return std::nullopt;
  return static_cast<std::uint32_t>(net4_ + offset);
}

}  // namespace qeli::server
