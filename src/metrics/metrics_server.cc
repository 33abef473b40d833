#include "metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "metrics/http_answer.h"

namespace qeli::metrics {
namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  Clock::time_point deadline;
  std::string in;
  std::string out;
  std::size_t sent = 0;
  bool answering = false;  ///< the head is in: now writing `out`
};

std::string endpoint(std::uint32_t ip, std::uint16_t port) {
  in_addr a{htonl(ip)};
  char buf[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a, buf, sizeof(buf));
  return std::string(buf) + ":" + std::to_string(port);
}

// Reads what is there; false when the connection is done for (EOF before a whole head,
// an error). Switches `c` to answering once the head is complete or too large.
bool on_readable(Conn& c, const MetricsServer::Render& render) {
  char buf[4096];
  const ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0) return false;
  c.in.append(buf, static_cast<std::size_t>(n));
  switch (scan_head(c.in)) {
    case HeadScan::kIncomplete: return true;
    case HeadScan::kTooLarge:
      c.out = http_response("431 Request Header Fields Too Large", "text/plain; charset=utf-8",
                            "request head too large\n");
      break;
    case HeadScan::kComplete: c.out = answer(c.in, render); break;
  }
  c.in.clear();
  c.answering = true;
  return true;
}

// Writes what the socket takes; false when done (all sent, or an error).
bool on_writable(Conn& c) {
  const ssize_t n =
      ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  c.sent += static_cast<std::size_t>(n);
  return c.sent < c.out.size();
}

}  // namespace

MetricsServer::~MetricsServer() { stop(); }

Status<std::string> MetricsServer::start(std::uint32_t ipv4, std::uint16_t port, Render render) {
  render_ = std::move(render);
  const std::string where = endpoint(ipv4, port);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return fail(where + ": socket: " + std::strerror(errno));
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(ipv4);
  socklen_t len = sizeof(sa);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
      ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const std::string err = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return fail(where + ": " + err);
  }
  port_ = ntohs(sa.sin_port);
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    const std::string err = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return fail(where + ": eventfd: " + err);
  }
  thread_ = std::thread([this] { serve(); });
  return {};
}

void MetricsServer::stop() {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
  listen_fd_ = stop_fd_ = -1;
}

void MetricsServer::serve() {
  std::vector<Conn> conns;
  std::vector<pollfd> fds;
  for (;;) {
    const auto now = Clock::now();
    // Past their deadline: closed, whatever they were doing (a slow or silent client
    // holds a slot for kConnectionTimeout at most).
    std::erase_if(conns, [&](Conn& c) {
      if (now < c.deadline) return false;
      ::close(c.fd);
      return true;
    });
    fds.clear();
    fds.push_back({stop_fd_, POLLIN, 0});
    // At the bound, the listening socket is not polled: new connections wait in the
    // backlog until a slot frees.
    fds.push_back({listen_fd_, static_cast<short>(conns.size() < kMaxConnections ? POLLIN : 0), 0});
    Clock::time_point next = now + kConnectionTimeout;
    for (const auto& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait)) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) break;
    // Connections first (their pollfd order matches `conns`), then new ones.
    std::size_t i = 2;
    std::erase_if(conns, [&](Conn& c) {
      const short ev = fds[i++].revents;
      if (ev == 0) return false;
      const bool keep = c.answering                                ? on_writable(c)
                        : (ev & (POLLIN | POLLHUP | POLLERR)) != 0 ? on_readable(c, render_)
                                                                   : true;
      if (keep && !(ev & POLLERR)) return false;
      ::close(c.fd);
      return true;
    });
    if ((fds[1].revents & POLLIN) != 0) {
      while (conns.size() < kMaxConnections) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        conns.push_back(Conn{fd, Clock::now() + kConnectionTimeout, {}, {}, 0, false});
      }
    }
  }
  for (auto& c : conns) ::close(c.fd);
}

}  // namespace qeli::metrics
