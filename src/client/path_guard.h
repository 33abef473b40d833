// PathGuard: the Linux daemon's ClientEnv::watch_path. One thread follows the host's
// address, route and link changes (sys/route_events.h) and, after each, asks of every
// watched connection whether the host still reaches the server the way it does
// (sys/path_check.h). A connection whose network the host left is shut down
// (SHUT_RDWR): the core resumes the session on a new connection from the new network
// (docs/PROTOCOL.md §22) or reconnects — within milliseconds of the move instead of at
// the liveness deadline (30 s by default), when TCP would still be retransmitting into
// the old network. A move that took a full tunnel's route to the server with it is
// marked (PathWatch::needs_new_routes): the core then starts a new session, for which
// the tunnel's routes are set up again through the new network.
//
// Thread-safety: watch() and the watches' destructors from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/core/client_env.h"
#include "engine/stop_signal.h"
#include "sys/route_events.h"

namespace qeli::client {

class PathGuard {
 public:
  /// `tunnel_interface`: our TUN's name — a route to the server through it is not a move
  /// (sys::check_path).
  explicit PathGuard(std::string tunnel_interface);
  ~PathGuard();
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;

  /// Watches `fd` until the returned watch is destroyed (before `fd` is closed). Null when
  /// the host's changes cannot be followed (logged once; the liveness deadline remains).
  std::unique_ptr<PathWatch> watch(int fd);

 private:
  class Watch;
  void unwatch(Watch* w);
  void run();
  void check_all();

  const std::string tunnel_interface_;
  std::mutex mu_;  // guards watches_, events_, failed_, thread_ start
  std::vector<Watch*> watches_;
  std::optional<sys::RouteEvents> events_;
  bool failed_ = false;
  engine::StopSignal stop_;
  std::thread thread_;
};

}  // namespace qeli::client
