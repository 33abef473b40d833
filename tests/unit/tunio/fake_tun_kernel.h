// An in-memory TunKernel: scripted TUN set-up answers, per-fd read queues, and recorded
// writes with injectable errors. Emulates the kernel's TUNSETOFFLOAD rules (TSO/USO need
// CSUM; USO4 and USO6 only together) and the all-or-nothing USO support of old kernels.
#pragma once

#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "tunio/tun_kernel.h"

namespace qeli::tunio::test {

class FakeTunKernel : public TunKernel {
 public:
  // Knobs.
  bool offload_supported = true;            // TUNSETOFFLOAD accepted at all
  bool uso_supported = true;                // kernel >= 6.2
  int open_error = 0;                       // -errno for open()
  std::map<std::size_t, int> write_errors;  // writev call number (0-based) -> -errno

  // Observations.
  struct SetIff {
    int fd;
    std::string name;
    short flags;
  };
  std::vector<SetIff> setiffs;
  std::vector<unsigned long> offload_calls;
  std::vector<int> closed;
  std::vector<std::vector<std::uint8_t>> writes;  // gathered bytes of each accepted writev
  std::vector<std::vector<std::size_t>> write_iov_lens;
  std::size_t writev_calls = 0;
  std::map<int, std::deque<std::vector<std::uint8_t>>> reads;  // per fd: header+packet

  int open(const char*, int) override {
    if (open_error) return open_error;
    return next_fd_++;
  }
  int close(int fd) override {
    closed.push_back(fd);
    return 0;
  }
  int ioctl_ptr(int fd, unsigned long request, void* arg) override {
    if (request != TUNSETIFF) return -ENOTTY;
    auto* ifr = static_cast<struct ifreq*>(arg);
    std::string name = ifr->ifr_name;
    if (auto pos = name.find("%d"); pos != std::string::npos) name.replace(pos, 2, "7");
    std::memset(ifr->ifr_name, 0, IFNAMSIZ);
    std::memcpy(ifr->ifr_name, name.data(), name.size());
    setiffs.push_back({fd, name, ifr->ifr_flags});
    return 0;
  }
  int ioctl_val(int, unsigned long request, unsigned long arg) override {
    if (request != TUNSETOFFLOAD) return -ENOTTY;
    offload_calls.push_back(arg);
    if (!offload_supported) return -EINVAL;
    const unsigned long csum = 0x01, tso = 0x06, uso4 = 0x20, uso6 = 0x40;
    if ((arg & (tso | uso4 | uso6)) && !(arg & csum)) return -EINVAL;
    if (((arg & uso4) != 0) != ((arg & uso6) != 0)) return -EINVAL;
    if ((arg & (uso4 | uso6)) && !uso_supported) return -EINVAL;
    return 0;
  }
  ssize_t readv(int fd, const struct iovec* iov, int iovcnt) override {
    auto& q = reads[fd];
    if (q.empty()) return -EAGAIN;
    auto data = std::move(q.front());
    q.pop_front();
    std::size_t off = 0;
    for (int i = 0; i < iovcnt && off < data.size(); ++i) {
      const std::size_t n = std::min(iov[i].iov_len, data.size() - off);
      std::memcpy(iov[i].iov_base, data.data() + off, n);
      off += n;
    }
    return static_cast<ssize_t>(off);  // truncated like the kernel if iovs are short
  }
  ssize_t writev(int, const struct iovec* iov, int iovcnt) override {
    const std::size_t call = writev_calls++;
    if (auto it = write_errors.find(call); it != write_errors.end()) return it->second;
    std::vector<std::uint8_t> all;
    std::vector<std::size_t> lens;
    for (int i = 0; i < iovcnt; ++i) {
      const auto* p = static_cast<const std::uint8_t*>(iov[i].iov_base);
      all.insert(all.end(), p, p + iov[i].iov_len);
      lens.push_back(iov[i].iov_len);
    }
    writes.push_back(all);
    write_iov_lens.push_back(lens);
    return static_cast<ssize_t>(all.size());
  }

 private:
  int next_fd_ = 100;
};

}  // namespace qeli::tunio::test
