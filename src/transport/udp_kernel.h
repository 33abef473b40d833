// UdpKernel: the syscalls UdpSocket makes, behind an interface so that the offload
// fallbacks (EIO on a GSO send, the receive slot layout) are unit-tested with a fake
// (STYLE.md practice 14). LinuxUdpKernel forwards to the real syscalls.
//
// Every method returns the syscall's result, or -errno on failure (never leaves errno for
// the caller to read). The real implementation is stateless and thread-safe.
#pragma once

#include <sys/socket.h>

namespace qeli::transport {

class UdpKernel {
 public:
  virtual ~UdpKernel() = default;
  virtual int socket(int domain, int type, int protocol) = 0;
  virtual int close(int fd) = 0;
  virtual int bind(int fd, const sockaddr* sa, socklen_t len) = 0;
  virtual int setsockopt(int fd, int level, int name, const void* value, socklen_t len) = 0;
  virtual int getsockopt(int fd, int level, int name, void* value, socklen_t* len) = 0;
  virtual int getsockname(int fd, sockaddr* sa, socklen_t* len) = 0;
  /// sendmmsg(2): number of messages sent, or -errno.
  virtual int sendmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) = 0;
  /// recvmmsg(2) with no timeout: number of messages received, or -errno.
  virtual int recvmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) = 0;
};

class LinuxUdpKernel : public UdpKernel {
 public:
  int socket(int domain, int type, int protocol) override;
  int close(int fd) override;
  int bind(int fd, const sockaddr* sa, socklen_t len) override;
  int setsockopt(int fd, int level, int name, const void* value, socklen_t len) override;
  int getsockopt(int fd, int level, int name, void* value, socklen_t* len) override;
  int getsockname(int fd, sockaddr* sa, socklen_t* len) override;
  int sendmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) override;
  int recvmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) override;
};

/// A process-wide LinuxUdpKernel.
UdpKernel& linux_udp_kernel();

}  // namespace qeli::transport
