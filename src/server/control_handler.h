// The server's side of the control socket (control/control_socket.h; qeli 0.7.16 §6.1):
// one JSON request in, one JSON answer out. Commands, with the reference's names:
//
//   list-clients                         live sessions (bytes and packets each way, …)
//   kick          username               end the user's sessions (clients may reconnect)
//   disable-user  username               kick + refuse new logins until enable-user
//                                        (in memory: survives a reload, not a restart)
//   enable-user   username
//   list-blocked                         source addresses locked out by brute_force.*
//   unblock       ip                     lift one lockout
//   unblock-all                          lift every lockout
//   stats                                per-profile counters: why connections ended
//                                        before authentication (rate limits, …)
//
// Every answer has "ok"; a refused request has "error" naming what is wrong. Thread-safe
// as far as its parts are (sessions, users and the guard lock themselves).
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "server/auth_guard.h"
#include "server/profile_runtime.h"
#include "server/user_directory.h"

namespace qeli::server {

struct ControlTargets {
  const std::vector<std::unique_ptr<ProfileRuntime>>* profiles = nullptr;
  UserDirectory* users = nullptr;
  AuthGuard* guard = nullptr;
};

nlohmann::json handle_control(const nlohmann::json& request, const ControlTargets& t, Instant now);

}  // namespace qeli::server
