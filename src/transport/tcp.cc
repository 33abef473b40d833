#include "transport/tcp.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace qeli::transport {
namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

void half_close_and_drain(int fd, std::chrono::milliseconds max_wait) {
  if (::shutdown(fd, SHUT_WR) != 0) return;
  const auto until = std::chrono::steady_clock::now() + max_wait;
  std::array<std::uint8_t, 16384> scratch;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    const ssize_t n = ::recv(fd, scratch.data(), scratch.size(), MSG_DONTWAIT);
    if (n == 0) return;  // the peer closed: nothing unread, close() sends no reset
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return;
  }
}

bool set_nonblocking(int fd, bool on) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0) return false;
  return fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK)) == 0;
}

Result<UniqueFd, std::string> tcp_listen(const SockAddr& ep, int backlog) {
  if (!ep.is_set()) return fail(std::string("listen: no address"));
  UniqueFd fd(::socket(ep.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return fail(errno_text("socket"));
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (ep.is_ipv6() && setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) {
    return fail(errno_text("IPV6_V6ONLY"));
  }
  if (::bind(fd.get(), &ep.sa, ep.len) != 0) {
    return fail(errno_text(("bind " + ep.to_string()).c_str()));
  }
  if (::listen(fd.get(), backlog) != 0) return fail(errno_text("listen"));
  return fd;
}

Result<UniqueFd, std::string> tcp_connect(const SockAddr& ep, std::chrono::milliseconds timeout,
                                          int cancel_fd, const SocketHook& protect) {
  if (!ep.is_set()) return fail(std::string("connect: no address"));
  UniqueFd fd(::socket(ep.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return fail(errno_text("socket"));
  if (protect && !protect(fd.get())) return fail("connect " + ep.to_string() + ": not protected");
  if (::connect(fd.get(), &ep.sa, ep.len) != 0) {
    if (errno != EINPROGRESS) return fail(errno_text(("connect " + ep.to_string()).c_str()));
    pollfd p[2] = {{fd.get(), POLLOUT, 0}, {cancel_fd, POLLIN, 0}};  // fd -1: ignored
    const int rc = ::poll(p, 2, static_cast<int>(timeout.count()));
    if (rc == 0) return fail("connect " + ep.to_string() + ": timed out");
    if (rc < 0) return fail(errno_text("poll"));
    if (p[0].revents == 0) return fail("connect " + ep.to_string() + ": cancelled");
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return fail("connect " + ep.to_string() + ": " + std::strerror(err));
  }
  set_nonblocking(fd.get(), false);
  return fd;
}

std::string apply_stream_options(int fd, const StreamOptions& opt) {
  std::string problems;
  const int nodelay = opt.nodelay ? 1 : 0;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof(nodelay)) != 0) {
    problems += errno_text("TCP_NODELAY") + "; ";
  }
  if (opt.keepalive_secs > 0) {
    const int one = 1;
    const int idle = opt.keepalive_secs;
    const int intvl = opt.keepalive_secs / 3 > 0 ? opt.keepalive_secs / 3 : 1;
    const int cnt = 3;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
  }
  if (opt.send_buffer > 0 &&
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &opt.send_buffer, sizeof(opt.send_buffer)) != 0) {
    problems += errno_text("SO_SNDBUF") + "; ";
  }
  if (opt.recv_buffer > 0 &&
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &opt.recv_buffer, sizeof(opt.recv_buffer)) != 0) {
    problems += errno_text("SO_RCVBUF") + "; ";
  }
  return problems;
}

IoResult send_all(int fd, ByteSpan data, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      const int ms = remaining_ms(deadline);
      if (ms == 0) return IoResult::kTimeout;
      const int rc = ::poll(&p, 1, ms);
      if (rc == 0) return IoResult::kTimeout;
      if (rc < 0 && errno != EINTR) return IoResult::kError;
      continue;
    }
    return (n < 0 && (errno == EPIPE || errno == ECONNRESET)) ? IoResult::kClosed
                                                              : IoResult::kError;
  }
  return IoResult::kOk;
}

IoResult recv_some(int fd, MutableByteSpan out, std::chrono::milliseconds timeout,
                   std::size_t& got) {
  got = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const ssize_t n = ::recv(fd, out.data(), out.size(), MSG_DONTWAIT);
    if (n > 0) {
      got = static_cast<std::size_t>(n);
      return IoResult::kOk;
    }
    if (n == 0) return IoResult::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return errno == ECONNRESET ? IoResult::kClosed : IoResult::kError;
    }
    pollfd p{fd, POLLIN, 0};
    const int ms = remaining_ms(deadline);
    if (ms == 0) return IoResult::kTimeout;
    const int rc = ::poll(&p, 1, ms);
    if (rc == 0) return IoResult::kTimeout;
    if (rc < 0 && errno != EINTR) return IoResult::kError;
  }
}

bool is_local_address(const SockAddr& a) {
  // bind() to port 0 succeeds exactly for local addresses (EADDRNOTAVAIL otherwise);
  // a UDP socket sends nothing and needs no cleanup beyond close.
  if (!a.is_set()) return false;
  UniqueFd fd(::socket(a.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return false;
  const SockAddr any_port = a.with_port(0);
  return ::bind(fd.get(), &any_port.sa, any_port.len) == 0;
}

Status<std::string> probe_bind(const SockAddr& a, int socktype) {
  if (!a.is_set()) return fail(std::string("no address"));
  UniqueFd fd(::socket(a.family(), socktype | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(errno_text("socket"));
  const int one = 1;
  // The real listener's options, minus SO_REUSEPORT: TCP's SO_REUSEADDR only skips
  // TIME_WAIT, never an active listener; IPv6 stays IPv6-only beside an IPv4 wildcard.
  if (socktype == SOCK_STREAM) setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (a.is_ipv6()) setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (::bind(fd.get(), &a.sa, a.len) != 0) {
    return fail(errno_text(((socktype == SOCK_DGRAM ? "udp " : "tcp ") + a.to_string()).c_str()));
  }
  return {};
}

}  // namespace qeli::transport
