#include "control/control_socket.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "control/api_json.h"

namespace qeli::control {
namespace {

bool fill_addr(const std::string& path, sockaddr_un& sa) {
  sa = {};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) return false;
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  return true;
}

using Deadline = std::chrono::steady_clock::time_point;

// How often a connect to a full backlog is tried again (nothing to poll for meanwhile).
constexpr int kBacklogRetryMs = 50;

Deadline deadline_in(int ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

enum class Wait { kReady, kTimeout, kCancelled };

// Waits until `fd` has `events` (fd -1: nothing), the deadline passes or `cancel` is
// stopped, whichever comes first.
Wait wait_for(int fd, short events, Deadline deadline, const StopSignal* cancel) {
  for (;;) {
    if (cancel != nullptr && cancel->stopped()) return Wait::kCancelled;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return Wait::kTimeout;
    pollfd p[2] = {{fd, events, 0}, {cancel != nullptr ? cancel->fd() : -1, POLLIN, 0}};
    const int n = ::poll(p, 2, static_cast<int>(left));
    if (n < 0 && errno != EINTR) return Wait::kTimeout;
    if (n > 0 && p[1].revents != 0) return Wait::kCancelled;
    if (n > 0 && p[0].revents != 0) return Wait::kReady;
  }
}

// Reads up to a newline (or EOF) before `deadline`; false on timeout, error, cancel or
// more than kMaxRequestBytes.
bool read_line(int fd, std::string& out, Deadline deadline, const StopSignal* cancel = nullptr) {
  char buf[16384];
  std::size_t scanned = 0;
  for (;;) {
    const auto nl = out.find('\n', scanned);
    if (nl != std::string::npos) {
      out.resize(nl);
      return true;
    }
    scanned = out.size();
    if (wait_for(fd, POLLIN, deadline, cancel) != Wait::kReady) return false;
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return !out.empty();
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxRequestBytes) return false;
  }
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// write_all for a non-blocking socket: everything before `deadline`, or false.
bool send_all(int fd, const std::string& s, Deadline deadline, const StopSignal* cancel) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (wait_for(fd, POLLOUT, deadline, cancel) != Wait::kReady) return false;
      continue;
    }
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  return path.substr(0, slash);
}

}  // namespace

ControlServer::~ControlServer() { stop(); }

void ControlServer::set_panel_uid(std::optional<std::uint32_t> uid) {
  std::lock_guard lock(policy_mu_);
  policy_.panel_uid = uid;
}

Status<std::string> ControlServer::start(const std::string& path, ControlService& service,
                                         AccessPolicy policy) {
  path_ = path;
  service_ = &service;
  policy_ = std::move(policy);
  sockaddr_un sa;
  if (!fill_addr(path, sa)) return fail("control socket path too long: " + path);
  const bool group = policy_.operator_gid.has_value() && ::geteuid() == 0;
  if (const std::string dir = dir_of(path); !dir.empty()) {
    const bool created = ::mkdir(dir.c_str(), group ? 0750 : 0700) == 0;
    if (!created && errno != EEXIST) {
      return fail("cannot create " + dir + ": " + std::strerror(errno));
    }
    // The directory's group is set only on a directory that is ours: created now, or
    // left by an earlier run (owned by us, mode 0700/0750). A shared directory such as
    // /tmp (1777) or another daemon's is never re-moded.
    struct stat st {};
    const bool ours = created || (::stat(dir.c_str(), &st) == 0 && st.st_uid == ::geteuid() &&
                                  ((st.st_mode & 07777) == 0700 || (st.st_mode & 07777) == 0750));
    if (group && ours && ::chown(dir.c_str(), static_cast<uid_t>(-1), *policy_.operator_gid) == 0) {
      ::chmod(dir.c_str(), 0750);
    }
  }
  ::unlink(path.c_str());  // a stale socket from a crashed run
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return fail(std::string("socket: ") + std::strerror(errno));
  const mode_t old = ::umask(0177);  // the socket file is created 0600
  const int rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  ::umask(old);
  if (rc != 0 || ::listen(listen_fd_, 64) != 0) {
    const std::string err = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return fail("control socket " + path + ": " + err);
  }
  if (group && ::chown(path.c_str(), static_cast<uid_t>(-1), *policy_.operator_gid) == 0) {
    ::chmod(path.c_str(), 0660);
  }
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  thread_ = std::thread([this] { serve(); });
  return {};
}

void ControlServer::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof(one));
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_fd_);
  ::unlink(path_.c_str());
}

nlohmann::json ControlServer::answer(const std::string& line, const PeerCred& peer) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  auto req = decode_request(j);
  if (!req.ok()) return encode_error(req.error());
  Caller caller{peer.uid, peer.gid, peer.pid, 0};
  {
    std::lock_guard lock(policy_mu_);
    caller.permissions = permissions_for(peer, policy_);
  }
  if (!allows(caller.permissions, needs(*req))) {
    return encode_error(
        {ErrorCode::kForbidden, "uid " + std::to_string(peer.uid) + " may not use '" +
                                    std::string(name_of(*req)) +
                                    "' (root, the panel's account or, for reading and operating, "
                                    "the '" +
                                    kOperatorGroup + "' group)"});
  }
  auto r = service_->handle(*req, caller);
  return r.ok() ? encode_reply(*r) : encode_error(r.error());
}

void ControlServer::serve() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents != 0) return;
    if (p[0].revents == 0) continue;
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    ucred cred{};
    socklen_t len = sizeof(cred);
    nlohmann::json out;
    std::string line;
    if (::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      out = encode_error({ErrorCode::kForbidden, "cannot read the caller's credentials"});
    } else if (!read_line(c, line, deadline_in(2000))) {
      out = encode_error({ErrorCode::kBadRequest, "request too large, malformed or too slow"});
    } else {
      out = answer(line, PeerCred{cred.uid, cred.gid, cred.pid});
    }
    write_all(c, out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    ::close(c);
  }
}

Result<nlohmann::json, std::string> call(const std::string& path, const nlohmann::json& request,
                                         int timeout_ms, const StopSignal* cancel) {
  sockaddr_un sa;
  if (!fill_addr(path, sa)) return fail("control socket path too long: " + path);
  const Deadline deadline = deadline_in(timeout_ms);
  const std::string cancelled = "the call to " + path + " was cancelled (stopping)";
  if (cancel != nullptr && cancel->stopped()) return fail(cancelled);
  // Non-blocking throughout, so that a server that accepts nothing (its backlog full) or
  // reads nothing holds a caller no longer than the deadline or a cancel.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return fail(std::string("socket: ") + std::strerror(errno));
  int e = 0;
  for (;;) {
    e = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 ? 0 : errno;
    if (e != EAGAIN && e != EINTR) break;
    // A Unix socket's backlog is full: nothing to poll for but the time, so try again.
    if (wait_for(-1, 0, std::min(deadline, deadline_in(kBacklogRetryMs)), cancel) ==
            Wait::kCancelled ||
        std::chrono::steady_clock::now() >= deadline) {
      break;
    }
  }
  if (e != 0) {
    ::close(fd);
    if (cancel != nullptr && cancel->stopped()) return fail(cancelled);
    if (e == EAGAIN || e == EINTR) return fail("no answer from " + path + " (its backlog is full)");
    if (e == EACCES || e == EPERM) {
      // Not "is it running?": it is, and this user may not talk to it.
      return fail("cannot reach the server at " + path + ": " + std::strerror(e) +
                  " — the control socket is only for root and the server's own user (mode 0600 "
                  "in a 0700 directory): run this command as root (sudo)");
    }
    return fail("cannot reach the server at " + path + ": " + std::strerror(e) +
                " (is `qeli server` running?)");
  }
  std::string line;
  const bool ok =
      send_all(fd, request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
               deadline, cancel) &&
      read_line(fd, line, deadline, cancel);
  ::close(fd);
  if (cancel != nullptr && cancel->stopped()) return fail(cancelled);
  if (!ok) return fail("no answer from " + path);
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return fail("malformed answer from " + path);
  return j;
}

Result<Response, ControlError> SocketClient::handle(const Request& request, const Caller&) {
  auto j = call(path_, encode_request(request), timeout_ms_, &cancel_);
  if (!j.ok()) return fail(ControlError{ErrorCode::kUnavailable, j.error()});
  return decode_reply(request, *j);
}

}  // namespace qeli::control
