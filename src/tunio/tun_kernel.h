// TunKernel: the handful of syscalls LinuxTun makes, behind an interface so that device
// set-up, offload negotiation, fallbacks and partial writes are unit-tested without root
// (STYLE.md practice 14). LinuxTunKernel forwards to the real syscalls.
//
// Every method returns the syscall's result, or -errno on failure (never sets errno for
// the caller to read). Thread-safety: the real implementation is stateless; fakes say.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>

namespace qeli::tunio {

class TunKernel {
 public:
  virtual ~TunKernel() = default;
  /// open(2). Returns the fd or -errno.
  virtual int open(const char* path, int flags) = 0;
  virtual int close(int fd) = 0;
  /// ioctl(2) whose argument is a pointer (TUNSETIFF, TUNGETIFF with struct ifreq*).
  virtual int ioctl_ptr(int fd, unsigned long request, void* arg) = 0;
  /// ioctl(2) whose argument is a value (TUNSETOFFLOAD takes the flags themselves).
  virtual int ioctl_val(int fd, unsigned long request, unsigned long arg) = 0;
  virtual ssize_t readv(int fd, const struct iovec* iov, int iovcnt) = 0;
  virtual ssize_t writev(int fd, const struct iovec* iov, int iovcnt) = 0;
};

/// The real syscalls. Stateless and thread-safe.
class LinuxTunKernel final : public TunKernel {
 public:
  int open(const char* path, int flags) override;
  int close(int fd) override;
  int ioctl_ptr(int fd, unsigned long request, void* arg) override;
  int ioctl_val(int fd, unsigned long request, unsigned long arg) override;
  ssize_t readv(int fd, const struct iovec* iov, int iovcnt) override;
  ssize_t writev(int fd, const struct iovec* iov, int iovcnt) override;
};

/// A process-wide LinuxTunKernel.
TunKernel& linux_tun_kernel();

}  // namespace qeli::tunio
