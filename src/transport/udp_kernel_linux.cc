#include <unistd.h>

#include <cerrno>

#include "transport/udp_kernel.h"

namespace qeli::transport {
namespace {
int ret(int rc) { return rc < 0 ? -errno : rc; }
}  // namespace

int LinuxUdpKernel::socket(int domain, int type, int protocol) {
  return ret(::socket(domain, type, protocol));
}
int LinuxUdpKernel::close(int fd) { return ret(::close(fd)); }
int LinuxUdpKernel::bind(int fd, const sockaddr* sa, socklen_t len) {
  return ret(::bind(fd, sa, len));
}
int LinuxUdpKernel::setsockopt(int fd, int level, int name, const void* value, socklen_t len) {
  return ret(::setsockopt(fd, level, name, value, len));
}
int LinuxUdpKernel::getsockopt(int fd, int level, int name, void* value, socklen_t* len) {
  return ret(::getsockopt(fd, level, name, value, len));
}
int LinuxUdpKernel::getsockname(int fd, sockaddr* sa, socklen_t* len) {
  return ret(::getsockname(fd, sa, len));
}
int LinuxUdpKernel::sendmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) {
  return ret(::sendmmsg(fd, msgs, count, flags));
}
int LinuxUdpKernel::recvmmsg(int fd, mmsghdr* msgs, unsigned count, int flags) {
  return ret(::recvmmsg(fd, msgs, count, flags, nullptr));
}

UdpKernel& linux_udp_kernel() {
  static LinuxUdpKernel k;
  return k;
}

}  // namespace qeli::transport
