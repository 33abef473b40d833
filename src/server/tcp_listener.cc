#include "server/tcp_listener.h"

#include <poll.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>

#include "engine/session_loop.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

/// Accepts per listener per round (see the header).
constexpr int kAcceptBatch = 64;

}  // namespace

TcpListener::TcpListener(std::string name, std::vector<transport::UniqueFd> listeners,
                         ProfileCounters& counters)
    : name_(std::move(name)), counters_(counters), listeners_(std::move(listeners)) {}

std::vector<transport::SockAddr> TcpListener::local_addresses() const {
  std::vector<transport::SockAddr> out;
  out.reserve(listeners_.size());
  for (const auto& l : listeners_) out.push_back(transport::SockAddr::local_of(l.get()));
  return out;
}

void TcpListener::run(const engine::StopSignal& stop, const OnAccept& on_accept,
                      const std::function<void()>& on_round) {
  Duration wait = Duration::zero();  // > 0: accept() ran out of resources, wait first
  std::vector<pollfd> p(1 + listeners_.size());
  p[0] = {stop.fd(), POLLIN, 0};
  for (std::size_t i = 0; i < listeners_.size(); ++i) p[1 + i] = {listeners_[i].get(), POLLIN, 0};
  while (!stop.stopped()) {
    // While backing off, only the stop signal is watched (the listeners stay readable).
    const int timeout = wait > Duration::zero() ? engine::ms_until(Clock::now() + wait) : 1000;
    const nfds_t n = wait > Duration::zero() ? 1 : static_cast<nfds_t>(p.size());
    for (auto& f : p) f.revents = 0;
    if (::poll(p.data(), n, timeout) < 0 && errno != EINTR) break;
    if (on_round) on_round();
    if (p[0].revents != 0) break;
    const bool backed_off = wait > Duration::zero();
    wait = Duration::zero();
    for (std::size_t i = 0; i < listeners_.size() && wait == Duration::zero(); ++i) {
      if (backed_off || p[1 + i].revents != 0) wait = accept_ready(listeners_[i], on_accept);
    }
  }
}

Duration TcpListener::accept_ready(const transport::UniqueFd& listener, const OnAccept& on_accept) {
  for (int n = 0; n < kAcceptBatch; ++n) {
    sockaddr_storage from{};
    socklen_t from_len = sizeof(from);
    const int fd =
        ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&from), &from_len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (!AcceptBackoff::is_resource_error(errno)) return Duration::zero();
      counters_.accept_no_resources++;
      auto d = backoff_.on_failure(errno, Clock::now());
      if (d.log) spdlog::warn("[{}] {}", name_, *d.log);
      return d.wait;
    }
    backoff_.on_success();
    const auto peer =
        transport::SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&from), from_len);
    counters_.accepted++;
    on_accept(transport::UniqueFd(fd), peer);
  }
  return Duration::zero();
}

}  // namespace qeli::server
