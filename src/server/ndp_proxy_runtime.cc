#include "server/ndp_proxy_runtime.h"

#include <spdlog/spdlog.h>

#include <cstring>

#include "sys/sysctl.h"

namespace qeli::server {

Result<std::unique_ptr<NdpProxyRuntime>, std::string> NdpProxyRuntime::start(
    const config::ProfileConfig& p, const Ipv6Plan& plan, const std::string& tun) {
  const auto pool = sys::IpPrefix::parse(plan.cidr().to_string());
  if (!pool.ok()) return fail("routing.ipv6.ndp_proxy: " + pool.error().detail);
  auto uplink = sys::onlink_interface_for(*pool, tun);
  if (!uplink.ok()) return fail("routing.ipv6.ndp_proxy: " + uplink.error().detail);
  if (!*uplink) {
    const std::string why = "no interface has an on-link IPv6 prefix that holds pool.ipv6.cidr " +
                            plan.cidr().to_string();
    if (p.routing.ipv6_ndp_proxy == "required") {
      return fail("routing.ipv6.ndp_proxy = required: " + why +
                  " (give the uplink an address in that prefix, or route the pool to this "
                  "server and set ndp_proxy = off)");
    }
    spdlog::info(
        "[{}] routing.ipv6.ndp_proxy = auto: {}; not proxying (the pool must be "
        "routed to this server)",
        p.name, why);
    return std::unique_ptr<NdpProxyRuntime>{};
  }
  const std::string& ifname = **uplink;
  auto proxy = sys::NeighborProxy::open(ifname);
  if (!proxy.ok()) return fail("routing.ipv6.ndp_proxy: " + proxy.error().detail);
  const std::string key = sys::proxy_ndp_key(ifname);
  auto before = sys::read_sysctl(key);
  if (!before.ok()) return fail("routing.ipv6.ndp_proxy: " + key + ": " + before.error().detail);
  if (*before != "1") {
    if (auto st = sys::write_sysctl(key, "1"); !st.ok()) {
      return fail("routing.ipv6.ndp_proxy: " + key + ": " + st.error().detail);
    }
  }
  // Entries a server that died left behind in our pool would answer for absent clients.
  if (auto n = proxy->flush(*pool); n.ok() && *n > 0) {
    spdlog::info("[{}] NDP proxy: removed {} stale entries in {} on {}", p.name, *n,
                 plan.cidr().to_string(), ifname);
  }
  spdlog::info("[{}] NDP proxy on {} for the clients of {} (proxy_ndp = 1)", p.name, ifname,
               plan.cidr().to_string());
  return std::unique_ptr<NdpProxyRuntime>(
      new NdpProxyRuntime(p.name, plan, std::move(*proxy), *before));
}

NdpProxyRuntime::NdpProxyRuntime(std::string profile, Ipv6Plan plan, sys::NeighborProxy proxy,
                                 std::string sysctl_before)
    : profile_(std::move(profile)),
      plan_(std::move(plan)),
      proxy_(std::move(proxy)),
      sysctl_before_(std::move(sysctl_before)) {}

NdpProxyRuntime::~NdpProxyRuntime() { stop(); }

sys::IpAddress NdpProxyRuntime::address_of(std::uint32_t ip) const {
  sys::IpAddress a;
  a.family = sys::IpFamily::kV6;
  const config::Ipv6Addr v6 = plan_.address_of(ip);
  std::memcpy(a.bytes.data(), v6.bytes.data(), 16);
  return a;
}

void NdpProxyRuntime::routed(std::uint32_t ip) {
  std::lock_guard lock(mu_);
  if (stopped_) return;
  if (auto st = proxy_.add(address_of(ip)); !st.ok()) {
    spdlog::warn("[{}] NDP proxy: {}", profile_, st.error().detail);
    return;
  }
  live_.insert(ip);
}

void NdpProxyRuntime::unrouted(std::uint32_t ip) {
  std::lock_guard lock(mu_);
  if (live_.erase(ip) == 0) return;
  if (auto st = proxy_.remove(address_of(ip)); !st.ok()) {
    spdlog::warn("[{}] NDP proxy: {}", profile_, st.error().detail);
  }
}

void NdpProxyRuntime::stop() {
  std::lock_guard lock(mu_);
  if (stopped_) return;
  stopped_ = true;
  for (const std::uint32_t ip : live_) (void)proxy_.remove(address_of(ip));
  live_.clear();
  // Only if it still holds our "1": an administrator's later change stays. (After the
  // privilege drop the write may be refused; the value is harmless without entries.)
  const std::string key = sys::proxy_ndp_key(proxy_.ifname());
  if (sysctl_before_ != "1") {
    if (auto now = sys::read_sysctl(key); now.ok() && *now == "1") {
      (void)sys::write_sysctl(key, sysctl_before_);
    }
  }
}

std::size_t NdpProxyRuntime::entries() const {
  std::lock_guard lock(mu_);
  return live_.size();
}

}  // namespace qeli::server
