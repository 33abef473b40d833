#include "server/tun_subnet_routes.h"

#include <spdlog/spdlog.h>

namespace qeli::server {

Result<std::unique_ptr<TunSubnetRoutes>, std::string> TunSubnetRoutes::open(std::string profile,
                                                                            std::string tun) {
  auto rt = sys::RouteTable::open();
  if (!rt.ok()) return fail("netlink: " + rt.error().detail);
  return std::unique_ptr<TunSubnetRoutes>(
      new TunSubnetRoutes(std::move(profile), std::move(tun), std::move(*rt)));
}

void TunSubnetRoutes::add(const SubnetClaims::Claimed& c) {
  for (const auto& n : c.v4) change(n.to_string(), true);
  for (const auto& n : c.v6) change(n.to_string(), true);
}

void TunSubnetRoutes::remove(const SubnetClaims::Claimed& c) {
  for (const auto& n : c.v4) change(n.to_string(), false);
  for (const auto& n : c.v6) change(n.to_string(), false);
}

void TunSubnetRoutes::change(const std::string& cidr, bool add) {
  auto dst = sys::IpPrefix::parse(cidr);
  if (!dst.ok()) return;  // a config value the loader checked: cannot happen
  sys::Route r;
  r.dst = *dst;
  r.dev = tun_;
  if (!add) {
    // Ours only (proto 113 and our device): an operator's route is never touched. Gone
    // already (the TUN went down at stop) is fine.
    if (auto st = rt_.remove(r); !st.ok() && st.error().code != sys::HostErrc::kNotFound) {
      spdlog::warn("[{}] client_subnet {}: removing its route: {}", profile_, cidr,
                   st.error().detail);
    }
    return;
  }
  if (auto st = rt_.add(r); st.ok()) {
    spdlog::info("[{}] client_subnet {}: routed into {}", profile_, cidr, tun_);
  } else if (st.error().code == sys::HostErrc::kExists) {
    spdlog::warn(
        "[{}] client_subnet {}: the host already routes it; that route is kept, so "
        "this network may not reach the client",
        profile_, cidr);
  } else {
    spdlog::warn("[{}] client_subnet {}: routing it into {}: {}", profile_, cidr, tun_,
                 st.error().detail);
  }
}

}  // namespace qeli::server
