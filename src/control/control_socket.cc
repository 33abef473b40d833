#include "control/control_socket.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qeli::control {
namespace {

constexpr std::size_t kMaxRequest = 64 * 1024;

bool fill_addr(const std::string& path, sockaddr_un& sa) {
  sa = {};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) return false;
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  return true;
}

// Reads up to a newline (or EOF) within the deadline; false on timeout/error/oversize.
bool read_line(int fd, std::string& out, int timeout_ms) {
  char buf[4096];
  while (out.find('\n') == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return !out.empty();
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxRequest) return false;
  }
  out.resize(out.find('\n'));
  return true;
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

}  // namespace

ControlServer::~ControlServer() { stop(); }

Status<std::string> ControlServer::start(const std::string& path, Handler handler) {
  path_ = path;
  handler_ = std::move(handler);
  sockaddr_un sa;
  if (!fill_addr(path, sa)) return fail("control socket path too long: " + path);
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return fail("cannot create " + dir + ": " + std::strerror(errno));
    }
  }
  ::unlink(path.c_str());  // a stale socket from a crashed run
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return fail(std::string("socket: ") + std::strerror(errno));
  const mode_t old = ::umask(0177);  // the socket file is created 0600
  const int rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  ::umask(old);
  if (rc != 0 || ::listen(listen_fd_, 16) != 0) {
    const std::string err = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return fail("control socket " + path + ": " + err);
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

void ControlServer::serve() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return;
    if (p[1].revents != 0) return;
    if (p[0].revents == 0) continue;
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::string line;
    nlohmann::json answer;
    if (!read_line(c, line, 2000)) {
      answer = {{"ok", false}, {"error", "request too large, malformed or too slow"}};
    } else {
      const auto req = nlohmann::json::parse(line, nullptr, false);
      if (!req.is_object() || !req.contains("cmd") || !req["cmd"].is_string()) {
        answer = {{"ok", false}, {"error", "expected a JSON object with a string \"cmd\""}};
      } else {
        answer = handler_(req);
      }
    }
    write_all(c, answer.dump() + "\n");
    ::close(c);
  }
}

Result<nlohmann::json, std::string> call(const std::string& path, const nlohmann::json& request,
                                         int timeout_ms) {
  sockaddr_un sa;
  if (!fill_addr(path, sa)) return fail("control socket path too long: " + path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    const std::string err = std::strerror(errno);
    ::close(fd);
    return fail("cannot reach the server at " + path + ": " + err + " (is `qeli server` running?)");
  }
  std::string line;
  const bool ok = write_all(fd, request.dump() + "\n") && read_line(fd, line, timeout_ms);
  ::close(fd);
  if (!ok) return fail("no answer from " + path);
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return fail("malformed answer from " + path);
  return j;
}

}  // namespace qeli::control
