// SilentUnixServer: a Unix stream socket that takes connections into its backlog and
// never accepts one — a control server that hangs — for tests of callers that must not
// wait on it longer than they say.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace qeli::test {

class SilentUnixServer {
 public:
  /// `backlog` 0: one connection waits in the backlog, the next connect finds it full.
  SilentUnixServer(const std::string& path, int backlog) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_un sa = address(path);
    ok_ = fd_ >= 0 && path.size() < sizeof(sa.sun_path) &&
          ::bind(fd_, reinterpret_cast<const sockaddr*>(&sa), sizeof(sa)) == 0 &&
          ::listen(fd_, backlog) == 0;
  }
  ~SilentUnixServer() { ::close(fd_); }
  SilentUnixServer(const SilentUnixServer&) = delete;
  SilentUnixServer& operator=(const SilentUnixServer&) = delete;

  bool ok() const { return ok_; }
  /// True once a connection waits in the backlog (within `ms`).
  bool someone_waits(int ms) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) == 1;
  }

  static sockaddr_un address(const std::string& path) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, path.c_str(), std::min(path.size() + 1, sizeof(sa.sun_path) - 1));
    return sa;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

}  // namespace qeli::test
