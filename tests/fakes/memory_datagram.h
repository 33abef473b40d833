// MemoryNet: an in-memory datagram network behind transport::UdpKernel, so real
// transport::UdpSockets (and everything above them: the UDP handshake driver, the
// DatagramFramer) run without a network. Each socket gets a real eventfd, readable while
// datagrams wait for it, so the engine's poll() loops work unchanged. No UDP GSO/GRO (the
// options are refused as by an old kernel: plain datagrams, one per message).
//
//   test::MemoryNet net;
//   auto [a, b] = test::memory_datagram_pair(net);   // two sockets, 10.99.0.1/2:port
//   net.add(std::make_unique<test::DropEvery>(7));   // impairments, in order
//
// Impairments (DatagramLink decorators) see every datagram in send order and decide what
// reaches the receiver and when: DropEvery / DropRandom, Reorder (swaps neighbours),
// Delay (holds each for a while; a pump thread delivers it), MtuLimit (a datagram above
// the path MTU fails with EMSGSIZE at send, as with DF set). Thread-safe.
#pragma once

#include <netinet/in.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/bytes.h"
#include "crypto/random.h"
#include "transport/udp_gso.h"
#include "transport/udp_socket.h"

namespace qeli::test {

struct Datagram {
  transport::SockAddr from, to;
  Bytes bytes;
  std::chrono::steady_clock::time_point due{};  ///< not before (Delay)
};

/// One impairment: takes a datagram, emits zero or more (possibly later ones first).
class DatagramLink {
 public:
  virtual ~DatagramLink() = default;
  virtual void pass(Datagram d, std::vector<Datagram>& out) = 0;
  /// A datagram larger than this is refused at send with EMSGSIZE (0 = no limit).
  virtual std::size_t mtu() const { return 0; }
};

class DropEvery final : public DatagramLink {
 public:
  explicit DropEvery(std::size_t n, std::size_t skip_first = 0) : n_(n), skip_(skip_first) {}
  void pass(Datagram d, std::vector<Datagram>& out) override {
    if (++seen_ > skip_ && (seen_ - skip_) % n_ == 0) {
      ++dropped;
      return;
    }
    out.push_back(std::move(d));
  }
  std::size_t dropped = 0;

 private:
  std::size_t n_, skip_, seen_ = 0;
};

class DropRandom final : public DatagramLink {
 public:
  /// Drops each datagram with probability `percent` / 100 (deterministic for `seed`).
  DropRandom(unsigned percent, std::uint64_t seed) : percent_(percent), rng_(seed) {}
  void pass(Datagram d, std::vector<Datagram>& out) override {
    if (rng_.uniform(0, 99) < percent_) {
      ++dropped;
      return;
    }
    out.push_back(std::move(d));
  }
  std::size_t dropped = 0;

 private:
  unsigned percent_;
  crypto::DeterministicRng rng_;
};

/// Holds every `every`-th datagram back and releases it after the next one (swaps
/// neighbours). A held datagram with no successor is released by flush_held().
class Reorder final : public DatagramLink {
 public:
  explicit Reorder(std::size_t every) : every_(every) {}
  void pass(Datagram d, std::vector<Datagram>& out) override {
    if (held_) {
      out.push_back(std::move(d));
      out.push_back(std::move(*held_));
      held_.reset();
      ++reordered;
      return;
    }
    if (++seen_ % every_ == 0) {
      held_ = std::move(d);
      return;
    }
    out.push_back(std::move(d));
  }
  std::size_t reordered = 0;

 private:
  std::size_t every_, seen_ = 0;
  std::optional<Datagram> held_;
};

class Delay final : public DatagramLink {
 public:
  explicit Delay(std::chrono::milliseconds d) : d_(d) {}
  void pass(Datagram d, std::vector<Datagram>& out) override {
    d.due = std::max(d.due, std::chrono::steady_clock::now() + d_);
    out.push_back(std::move(d));
  }

 private:
  std::chrono::milliseconds d_;
};

class MtuLimit final : public DatagramLink {
 public:
  explicit MtuLimit(std::size_t mtu) : mtu_(mtu) {}
  void pass(Datagram d, std::vector<Datagram>& out) override { out.push_back(std::move(d)); }
  std::size_t mtu() const override { return mtu_; }

 private:
  std::size_t mtu_;
};

class MemoryNet final : public transport::UdpKernel {
 public:
  MemoryNet() = default;
  ~MemoryNet() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (pump_.joinable()) pump_.join();
    for (auto& [fd, s] : sockets_) ::close(fd);
  }
  MemoryNet(const MemoryNet&) = delete;
  MemoryNet& operator=(const MemoryNet&) = delete;

  /// Appends an impairment (applied to every datagram, in the order added). Add them
  /// before traffic flows.
  template <typename L>
  L& add(std::unique_ptr<L> link) {
    L& ref = *link;
    std::lock_guard lock(mu_);
    links_.push_back(std::move(link));
    return ref;
  }
  /// Datagrams delivered / refused so far.
  std::size_t delivered() const {
    std::lock_guard lock(mu_);
    return delivered_;
  }

  // --- transport::UdpKernel
  int socket(int domain, int, int) override {
    if (domain != AF_INET) return -EAFNOSUPPORT;
    const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return -errno;
    std::lock_guard lock(mu_);
    sockets_[fd] = Socket{};
    return fd;
  }
  int close(int fd) override {
    std::lock_guard lock(mu_);
    if (sockets_.erase(fd) == 0) return -EBADF;
    ::close(fd);
    return 0;
  }
  int bind(int fd, const sockaddr* sa, socklen_t len) override {
    std::lock_guard lock(mu_);
    auto it = sockets_.find(fd);
    if (it == sockets_.end()) return -EBADF;
    transport::SockAddr a = transport::SockAddr::from_sockaddr(sa, len);
    if (!a.is_set()) return -EINVAL;
    if (a.v4.sin_addr.s_addr == htonl(INADDR_ANY))
      a.v4.sin_addr.s_addr = htonl(0x0a630000U + ++hosts_);
    if (a.v4.sin_port == 0) a.v4.sin_port = htons(static_cast<std::uint16_t>(40000 + ++ports_));
    for (const auto& [other, s] : sockets_) {
      if (other != fd && s.bound && s.addr == a) return -EADDRINUSE;
    }
    it->second.addr = a;
    it->second.bound = true;
    return 0;
  }
  int setsockopt(int fd, int level, int, const void*, socklen_t) override {
    if (level == transport::kSolUdp) return -ENOPROTOOPT;  // no UDP GSO/GRO here
    std::lock_guard lock(mu_);
    return sockets_.count(fd) != 0 ? 0 : -EBADF;
  }
  int getsockopt(int fd, int level, int name, void* value, socklen_t* len) override {
    if (level == transport::kSolUdp) return -ENOPROTOOPT;
    if (level == SOL_SOCKET && (name == SO_RCVBUF || name == SO_SNDBUF) && *len >= sizeof(int)) {
      const int v = 4 << 20;
      std::memcpy(value, &v, sizeof v);
      return 0;
    }
    (void)fd;
    return -ENOPROTOOPT;
  }
  int getsockname(int fd, sockaddr* sa, socklen_t* len) override {
    std::lock_guard lock(mu_);
    auto it = sockets_.find(fd);
    if (it == sockets_.end()) return -EBADF;
    const transport::SockAddr& a = it->second.addr;
    std::memcpy(sa, &a.sa, std::min<socklen_t>(*len, a.len));
    *len = a.len;
    return 0;
  }
  int sendmmsg(int fd, mmsghdr* msgs, unsigned count, int) override {
    std::vector<Datagram> out;
    std::unique_lock lock(mu_);
    auto it = sockets_.find(fd);
    if (it == sockets_.end()) return -EBADF;
    const transport::SockAddr from = it->second.addr;
    std::size_t mtu = 0;
    for (const auto& l : links_) {
      if (l->mtu() != 0) mtu = mtu == 0 ? l->mtu() : std::min(mtu, l->mtu());
    }
    unsigned sent = 0;
    for (; sent < count; ++sent) {
      const msghdr& m = msgs[sent].msg_hdr;
      Datagram d;
      d.from = from;
      d.to = transport::SockAddr::from_sockaddr(static_cast<const sockaddr*>(m.msg_name),
                                                m.msg_namelen);
      for (std::size_t i = 0; i < m.msg_iovlen; ++i) {
        const auto* p = static_cast<const std::uint8_t*>(m.msg_iov[i].iov_base);
        d.bytes.insert(d.bytes.end(), p, p + m.msg_iov[i].iov_len);
      }
      if (mtu != 0 && d.bytes.size() + 28 > mtu) {  // + IPv4 and UDP headers
        if (sent == 0) return -EMSGSIZE;
        break;
      }
      msgs[sent].msg_len = static_cast<unsigned>(d.bytes.size());
      std::vector<Datagram> stage{std::move(d)};
      for (const auto& l : links_) {
        std::vector<Datagram> next;
        for (Datagram& x : stage) l->pass(std::move(x), next);
        stage = std::move(next);
      }
      for (Datagram& x : stage) deliver(std::move(x));
    }
    lock.unlock();
    cv_.notify_all();
    return static_cast<int>(sent);
  }
  int recvmmsg(int fd, mmsghdr* msgs, unsigned count, int) override {
    std::lock_guard lock(mu_);
    auto it = sockets_.find(fd);
    if (it == sockets_.end()) return -EBADF;
    Socket& s = it->second;
    unsigned got = 0;
    while (got < count && !s.ready.empty()) {
      Datagram d = std::move(s.ready.front());
      s.ready.pop_front();
      msghdr& m = msgs[got].msg_hdr;
      const std::size_t cap = m.msg_iovlen > 0 ? m.msg_iov[0].iov_len : 0;
      const std::size_t n = std::min(cap, d.bytes.size());
      if (n > 0) std::memcpy(m.msg_iov[0].iov_base, d.bytes.data(), n);
      msgs[got].msg_len = static_cast<unsigned>(n);
      m.msg_flags = d.bytes.size() > cap ? MSG_TRUNC : 0;
      m.msg_controllen = 0;
      if (m.msg_name != nullptr) {
        std::memcpy(m.msg_name, &d.from.sa, std::min<socklen_t>(m.msg_namelen, d.from.len));
        m.msg_namelen = d.from.len;
      }
      ++got;
    }
    if (s.ready.empty()) unsignal(fd, s);
    return got == 0 ? -EAGAIN : static_cast<int>(got);
  }

 private:
  struct Socket {
    transport::SockAddr addr;
    bool bound = false;
    bool signaled = false;
    std::deque<Datagram> ready;
  };

  // Under mu_.
  void deliver(Datagram d) {
    if (d.due > std::chrono::steady_clock::now()) {
      delayed_.push_back(std::move(d));
      if (!pump_.joinable()) pump_ = std::thread([this] { pump(); });
      return;
    }
    for (auto& [fd, s] : sockets_) {
      if (s.bound && s.addr == d.to) {
        s.ready.push_back(std::move(d));
        ++delivered_;
        if (!s.signaled) {
          const std::uint64_t one = 1;
          (void)!::write(fd, &one, sizeof one);
          s.signaled = true;
        }
        return;
      }
    }
  }
  static void unsignal(int fd, Socket& s) {
    if (s.signaled) {
      std::uint64_t v = 0;
      (void)!::read(fd, &v, sizeof v);
      s.signaled = false;
    }
  }
  // Delivers delayed datagrams when they are due.
  void pump() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      const auto now = std::chrono::steady_clock::now();
      auto next = now + std::chrono::milliseconds(50);
      for (auto it = delayed_.begin(); it != delayed_.end();) {
        if (it->due <= now) {
          Datagram d = std::move(*it);
          it = delayed_.erase(it);
          d.due = {};
          deliver(std::move(d));
        } else {
          next = std::min(next, it->due);
          ++it;
        }
      }
      cv_.wait_until(lock, next);
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, Socket> sockets_;
  std::vector<std::unique_ptr<DatagramLink>> links_;
  std::deque<Datagram> delayed_;
  std::thread pump_;
  bool stopping_ = false;
  std::size_t delivered_ = 0;
  std::uint32_t hosts_ = 0;
  std::uint16_t ports_ = 0;
};

/// A UdpSocket on `net` bound to `bind` (unset: a fresh address).
inline transport::UdpSocket memory_udp(MemoryNet& net, transport::SockAddr bind = {}) {
  transport::UdpOptions o;
  o.bind = bind.is_set() ? bind : transport::SockAddr::ipv4(0, 0);
  o.log = [](std::string_view) {};
  auto s = transport::UdpSocket::open(o, net);
  if (!s.ok()) std::abort();
  return std::move(*s);
}

struct MemoryDatagramPair {
  transport::UdpSocket a, b;
};

/// Two sockets on `net` that can reach each other (at a.local_address(), b.local_address()).
inline MemoryDatagramPair memory_datagram_pair(MemoryNet& net) {
  return {memory_udp(net), memory_udp(net)};
}

}  // namespace qeli::test
