// The client's post_up / post_down (docs/CONFIG.md §7) and where its password comes from
// (pass, password_file or password_command). Hooks run as the client (root) with
// sys::run_hook: post_up once the tunnel of a session is up (address, routes, DNS),
// post_down when that session ends, before its TUN goes away; each with
// kClientHookTimeout, its output logged, a failure logged as an error (the tunnel stays).
// Commands (hooks, password_command) are only taken from a config file that no one but
// its owner may write: a group- or world-writable file could make root run anything.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "config/client_config.h"
#include "sys/hook_runner.h"

namespace qeli::client {

inline constexpr std::chrono::seconds kClientHookTimeout{30};

/// Throws nothing; "" when the file is safe to take commands from, else why not.
std::string unsafe_command_source(const config::ClientConfig& c);

/// The password to send: `pass`, the first line of `password_file`, or the first line of
/// `password_command`'s standard output. Empty `error` = ok.
struct PasswordResult {
  std::string password;
  std::string error;
};
PasswordResult read_client_password(const config::ClientConfig& c);

/// Runs one hook (`which` = "post_up"/"post_down") with `env`; logs output and outcome.
bool run_client_hook(std::string_view which, const std::string& command, const sys::HookEnv& env);

}  // namespace qeli::client
