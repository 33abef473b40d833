// Anonymous network namespaces for privileged tests and the relay lab: created with
// unshare(CLONE_NEWNET) on the calling thread, held by an fd, entered per thread with
// setns. A namespace (and every TUN/veth in it) disappears when its last fd closes and no
// thread is inside it, so cleanup is just destruction.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace qeli::test {

inline int current_netns_fd() { return ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC); }

class Netns {
 public:
  /// Creates a fresh namespace; the calling thread stays where it was. ok() is false
  /// (and error() says why) without CAP_SYS_ADMIN.
  Netns() {
    const int orig = current_netns_fd();
    if (orig < 0) {
      error_ = std::string("open own netns: ") + std::strerror(errno);
      return;
    }
    if (::unshare(CLONE_NEWNET) != 0) {
      error_ = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    } else {
      fd_ = current_netns_fd();
      if (::setns(orig, CLONE_NEWNET) != 0) std::abort();  // cannot go back: unrecoverable
    }
    ::close(orig);
  }
  /// Joins an existing named namespace (/run/netns/NAME, from `ip netns add`).
  explicit Netns(const std::string& name) {
    fd_ = ::open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) error_ = "open /run/netns/" + name + ": " + std::strerror(errno);
  }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  ~Netns() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string error_;
};

/// Moves the calling thread into `ns` for its lifetime, then back.
class InNetns {
 public:
  explicit InNetns(const Netns& ns) : orig_(current_netns_fd()) {
    ok_ = orig_ >= 0 && ::setns(ns.fd(), CLONE_NEWNET) == 0;
  }
  InNetns(const InNetns&) = delete;
  InNetns& operator=(const InNetns&) = delete;
  ~InNetns() {
    if (ok_ && ::setns(orig_, CLONE_NEWNET) != 0) std::abort();
    if (orig_ >= 0) ::close(orig_);
  }
  bool ok() const { return ok_; }

 private:
  int orig_;
  bool ok_ = false;
};

}  // namespace qeli::test
