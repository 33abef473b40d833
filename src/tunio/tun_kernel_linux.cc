#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "tunio/tun_kernel.h"

namespace qeli::tunio {

int LinuxTunKernel::open(const char* path, int flags) {
  const int fd = ::open(path, flags);
  return fd < 0 ? -errno : fd;
}
int LinuxTunKernel::close(int fd) { return ::close(fd) < 0 ? -errno : 0; }
int LinuxTunKernel::ioctl_ptr(int fd, unsigned long request, void* arg) {
  return ::ioctl(fd, request, arg) < 0 ? -errno : 0;
}
int LinuxTunKernel::ioctl_val(int fd, unsigned long request, unsigned long arg) {
  return ::ioctl(fd, request, arg) < 0 ? -errno : 0;
}
ssize_t LinuxTunKernel::readv(int fd, const struct iovec* iov, int iovcnt) {
  const ssize_t n = ::readv(fd, iov, iovcnt);
  return n < 0 ? -errno : n;
}
ssize_t LinuxTunKernel::writev(int fd, const struct iovec* iov, int iovcnt) {
  const ssize_t n = ::writev(fd, iov, iovcnt);
  return n < 0 ? -errno : n;
}

TunKernel& linux_tun_kernel() {
  static LinuxTunKernel k;
  return k;
}

}  // namespace qeli::tunio
