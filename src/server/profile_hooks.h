// routing.post_up / routing.post_down: the operator's shell hooks of one profile
// (reference §5.5). post_up runs once the profile serves (TUN up, NAT applied, listener
// bound), post_down when it stops, before its TUN goes away. Each runs under
// sys::run_hook with kProfileHookTimeout, the environment below, and its output logged
// line by line. They come from the config file only: the control API's config save
// refuses both keys (server/privileged_keys.cc), so no network-facing interface can set
// a command that runs as root.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "config/server_config.h"
#include "sys/hook_runner.h"

namespace qeli::server {

inline constexpr std::chrono::seconds kProfileHookTimeout{30};

/// QELI_PROFILE, QELI_TUN, QELI_POOL (CIDR), QELI_WAN (routing.nat.interface, else the
/// interface of the route to 1.1.1.1, else empty), QELI_BIND_PORT (the bound port).
sys::HookEnv profile_hook_env(const config::ProfileConfig& p, std::string_view tun,
                              std::uint16_t bound_port);

/// Runs one hook (`which` is "post_up" / "post_down" for the log) and logs its output
/// and outcome. True when it exited 0 (or `command` is empty).
bool run_profile_hook(std::string_view which, const std::string& command,
                      const config::ProfileConfig& p, const sys::HookEnv& env);

}  // namespace qeli::server
