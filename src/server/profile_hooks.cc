#include "server/profile_hooks.h"

#include <spdlog/spdlog.h>

#include "sys/ip_prefix.h"
#include "sys/route_table.h"

namespace qeli::server {
namespace {

std::string default_wan() {
  auto rt = sys::RouteTable::open();
  if (!rt.ok()) return {};
  auto dst = sys::IpAddress::parse("1.1.1.1");
  if (!dst.ok()) return {};
  auto l = rt->lookup(*dst);
  return l.ok() ? l->dev : std::string{};
}

}  // namespace

sys::HookEnv profile_hook_env(const config::ProfileConfig& p, std::string_view tun,
                              std::uint16_t bound_port) {
  const std::string wan = p.routing.nat_interface.empty() ? default_wan() : p.routing.nat_interface;
  return {{"QELI_PROFILE", p.name},
          {"QELI_TUN", std::string(tun)},
          {"QELI_POOL", p.pool.cidr.to_string()},
          {"QELI_POOL6", p.pool.ipv6 ? p.pool.ipv6->to_string() : ""},
          {"QELI_WAN", wan},
          {"QELI_BIND_PORT", std::to_string(bound_port)}};
}

bool run_profile_hook(std::string_view which, const std::string& command,
                      const config::ProfileConfig& p, const sys::HookEnv& env) {
  if (command.empty()) return true;
  spdlog::info("[{}] routing.{}: running `{}`", p.name, which, command);
  const auto r = sys::run_hook(command, env, kProfileHookTimeout);
  std::string_view out = r.output;
  while (!out.empty()) {
    const auto nl = out.find('\n');
    const std::string_view line = out.substr(0, nl);
    if (!line.empty()) spdlog::info("[{}] routing.{}: {}", p.name, which, line);
    out = nl == std::string_view::npos ? std::string_view{} : out.substr(nl + 1);
  }
  if (r.ok()) {
    spdlog::info("[{}] routing.{}: done (exit 0)", p.name, which);
    return true;
  }
  spdlog::error("[{}] routing.{} failed: {}", p.name, which, r.describe());
  return false;
}

}  // namespace qeli::server
