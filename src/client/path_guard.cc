#include "client/path_guard.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <system_error>
#include <utility>

#include "sys/path_check.h"

namespace qeli::client {

class PathGuard::Watch final : public PathWatch {
 public:
  Watch(PathGuard& g, int fd) : guard_(g), fd_(fd) {}
  ~Watch() override { guard_.unwatch(this); }
  bool needs_new_routes() const override { return new_routes_.load(); }

  int fd() const { return fd_; }
  void set_needs_new_routes() { new_routes_.store(true); }

 private:
  PathGuard& guard_;
  int fd_;
  std::atomic<bool> new_routes_{false};
};

PathGuard::PathGuard(std::string tunnel_interface)
    : tunnel_interface_(std::move(tunnel_interface)) {}

PathGuard::~PathGuard() {
  stop_.stop();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<PathWatch> PathGuard::watch(int fd) {
  std::lock_guard lock(mu_);
  if (failed_) return nullptr;
  if (!events_) {
    // Opened on the first watch, in the namespace the connections live in.
    auto ev = sys::RouteEvents::open();
    if (!ev.ok()) {
      failed_ = true;
      spdlog::warn(
          "cannot follow the host's network changes ({}): a move to another network is "
          "noticed at the liveness deadline",
          ev.error());
      return nullptr;
    }
    events_.emplace(std::move(*ev));
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
      // The core's callbacks must not throw: go on unwatched.
      failed_ = true;
      spdlog::warn("cannot follow the host's network changes (thread: {})", e.what());
      return nullptr;
    }
  }
  auto w = std::make_unique<Watch>(*this, fd);
  watches_.push_back(w.get());
  return w;
}

void PathGuard::unwatch(Watch* w) {
  std::lock_guard lock(mu_);
  watches_.erase(std::remove(watches_.begin(), watches_.end(), w), watches_.end());
}

void PathGuard::run() {
  const int events_fd = events_->fd();  // events_ is set before the thread starts, never reset
  while (!stop_.stopped()) {
    pollfd p[2] = {{events_fd, POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents != 0) return;
    if (p[0].revents == 0) continue;
    bool changed = false;
    {
      std::lock_guard lock(mu_);
      changed = events_->drain();
    }
    if (changed) check_all();
  }
}

void PathGuard::check_all() {
  // Under the lock: a watch cannot end — and its fd be closed and reused — while its
  // connection is looked at or shut down.
  std::lock_guard lock(mu_);
  for (auto it = watches_.begin(); it != watches_.end();) {
    Watch& w = **it;
    const sys::PathCheck c = sys::check_path(w.fd(), tunnel_interface_);
    if (c.verdict != sys::PathVerdict::kMoved) {
      ++it;
      continue;
    }
    if (c.through_tunnel) w.set_needs_new_routes();
    spdlog::info(
        "the network changed: {}; ending the connection to the server to go on from "
        "the new network{}",
        c.detail, c.through_tunnel ? " with a new session" : "");
    ::shutdown(w.fd(), SHUT_RDWR);
    it = watches_.erase(it);
  }
}

}  // namespace qeli::client
