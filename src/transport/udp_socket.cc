#include "transport/udp_socket.h"

#include <linux/sock_diag.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace qeli::transport {
namespace {

/// Datagrams planned per sendmmsg round (each is one iovec).
constexpr std::size_t kSendIovecs = 1024;
/// Control bytes per received message: UDP_GRO (int), SO_RXQ_OVFL (u32) and IP_PKTINFO.
constexpr std::size_t kRecvControl = 96;
static_assert(kRecvControl >= CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(std::uint32_t)) +
                                  CMSG_SPACE(sizeof(in6_pktinfo)));

struct alignas(cmsghdr) SendControl {
  std::uint8_t b[CMSG_SPACE(sizeof(std::uint16_t)) + CMSG_SPACE(sizeof(in6_pktinfo))];
};

// Appends one cmsg (level, type, the bytes of `value`) at `control + used`; returns the new
// used length.
template <typename T>
std::size_t add_cmsg(std::uint8_t* control, std::size_t used, int level, int type, const T& value) {
  auto* c = reinterpret_cast<cmsghdr*>(control + used);
  std::memset(c, 0, CMSG_SPACE(sizeof(T)));
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = CMSG_LEN(sizeof(T));
  std::memcpy(CMSG_DATA(c), &value, sizeof(T));
  return used + CMSG_SPACE(sizeof(T));
}

// The source address a reply leaves from: IP_PKTINFO (`local` in network order) or
// IPV6_PKTINFO (RFC 3542 §6.1).
std::size_t add_pktinfo_cmsg(std::uint8_t* control, std::size_t used, std::uint32_t local) {
  in_pktinfo pi{};
  pi.ipi_spec_dst.s_addr = local;
  return add_cmsg(control, used, IPPROTO_IP, IP_PKTINFO, pi);
}
std::size_t add_pktinfo6_cmsg(std::uint8_t* control, std::size_t used, const in6_addr& local) {
  in6_pktinfo pi{};
  pi.ipi6_addr = local;
  return add_cmsg(control, used, IPPROTO_IPV6, IPV6_PKTINFO, pi);
}

struct alignas(cmsghdr) RecvControl {
  std::uint8_t b[kRecvControl];
};

std::string errno_text(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

int pmtu_value(PmtuMode m) {
  switch (m) {
    case PmtuMode::kDont: return IP_PMTUDISC_DONT;
    case PmtuMode::kWant: return IP_PMTUDISC_WANT;
    case PmtuMode::kDo: return IP_PMTUDISC_DO;
    case PmtuMode::kProbe: return IP_PMTUDISC_PROBE;
  }
  return IP_PMTUDISC_WANT;
}

}  // namespace

struct UdpSocket::Arrays {
  explicit Arrays(std::size_t batch)
      : mm(batch),
        recv_mm(batch),
        plan(batch),
        send_iov(kSendIovecs),
        send_ctl(batch),
        recv_iov(batch),
        names(batch),
        recv_ctl(batch) {}
  // Separate message arrays per direction: one sending and one receiving thread may use
  // the socket at the same time (the client's send thread and its receive loop).
  std::vector<mmsghdr> mm;  // send
  std::vector<mmsghdr> recv_mm;
  std::vector<GsoMessage> plan;
  std::vector<iovec> send_iov;
  std::vector<SendControl> send_ctl;
  std::vector<iovec> recv_iov;
  std::vector<sockaddr_in6> names;
  std::vector<RecvControl> recv_ctl;
};

std::string_view to_string(UdpError e) {
  switch (e) {
    case UdpError::kWouldBlock: return "would block";
    case UdpError::kBadConfig: return "bad UDP socket option";
    case UdpError::kSocket: return "UDP socket set-up failed";
    case UdpError::kSlotsTooSmall: return "receive slots too few or too small for UDP GRO";
    case UdpError::kIo: return "UDP receive failed";
  }
  return "?";
}

std::string UdpCapabilities::describe() const {
  char line[200];
  std::snprintf(line, sizeof(line),
                "udp: tx gso %s, rx gro %s, rxq_ovfl %s, rcvbuf %zu, sndbuf %zu",
                tx_gso ? "on" : "off", rx_gro ? "on" : "off", rxq_ovfl ? "on" : "off", recv_buffer,
                send_buffer);
  return line;
}

UdpSocket::UdpSocket(UdpKernel& kernel, UdpOptions options)
    : kernel_(&kernel), options_(std::move(options)) {}

UdpSocket::UdpSocket(UdpSocket&& o) noexcept
    : kernel_(o.kernel_),
      options_(std::move(o.options_)),
      fd_(std::exchange(o.fd_, -1)),
      max_batch_(o.max_batch_),
      caps_(o.caps_),
      counters_(o.counters_),
      last_ovfl_(o.last_ovfl_),
      rcv_asked_(o.rcv_asked_),
      a_(std::move(o.a_)),
      rx_stats_(std::move(o.rx_stats_)) {}

UdpSocket& UdpSocket::operator=(UdpSocket&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) kernel_->close(fd_);
    kernel_ = o.kernel_;
    options_ = std::move(o.options_);
    fd_ = std::exchange(o.fd_, -1);
    max_batch_ = o.max_batch_;
    caps_ = o.caps_;
    counters_ = o.counters_;
    last_ovfl_ = o.last_ovfl_;
    rcv_asked_ = o.rcv_asked_;
    a_ = std::move(o.a_);
    rx_stats_ = std::move(o.rx_stats_);
  }
  return *this;
}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) kernel_->close(fd_);
}

void UdpSocket::log(std::string_view line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  }
}

Result<UdpSocket, Error<UdpError>> UdpSocket::open(const UdpOptions& options, UdpKernel& kernel) {
  using E = Error<UdpError>;
  if (options.max_batch < 1 || options.max_batch > 1024) {
    return fail(E{UdpError::kBadConfig, "max_batch must be 1..1024"});
  }
  if (options.recv_buffer > kUdpMaxBuffer || options.send_buffer > kUdpMaxBuffer) {
    return fail(E{UdpError::kBadConfig, "socket buffers must be at most 64 MiB"});
  }
  if (options.gso.max_segments < 1 || options.gso.max_segments > 128) {
    return fail(E{UdpError::kBadConfig, "gso max_segments must be 1..128"});
  }
  UdpSocket s(kernel, options);
  s.max_batch_ = options.max_batch;
  SockAddr local = options.bind;
  if (!local.is_set()) local = SockAddr::ipv4(0, 0);
  const int fd = kernel.socket(local.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(E{UdpError::kSocket, errno_text("socket", -fd)});
  s.fd_ = fd;
  if (options.protect && !options.protect(fd)) {
    return fail(E{UdpError::kSocket, "the socket could not be protected"});
  }
  const int one = 1;
  // An IPv6 socket takes IPv6 only (no IPv4-mapped peers): `::` and `0.0.0.0` on one port
  // are two sockets, as for TCP listeners.
  if (local.family() == AF_INET6) {
    const int rc = kernel.setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (rc < 0) return fail(E{UdpError::kSocket, errno_text("IPV6_V6ONLY", -rc)});
  }
  if (options.reuse_port) {
    const int rc = kernel.setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    if (rc < 0) return fail(E{UdpError::kSocket, errno_text("SO_REUSEPORT", -rc)});
  }
  if (const int rc = kernel.bind(fd, &local.sa, local.len); rc < 0) {
    return fail(E{UdpError::kSocket, errno_text(("bind " + local.to_string()).c_str(), -rc)});
  }
  s.rcv_asked_ = options.recv_buffer != 0 ? options.recv_buffer : kUdpAutoBuffer;
  s.set_buffer(SO_RCVBUF, SO_RCVBUFFORCE, s.rcv_asked_);
  s.set_buffer(SO_SNDBUF, SO_SNDBUFFORCE,
               options.send_buffer != 0 ? options.send_buffer : kUdpAutoBuffer);
  s.caps_.rxq_ovfl = kernel.setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) == 0;
  if (options.pktinfo && local.family() == AF_INET) {
    s.caps_.pktinfo = kernel.setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) == 0;
  } else if (options.pktinfo && local.family() == AF_INET6) {
    s.caps_.pktinfo = kernel.setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) == 0;
  }
  if (options.tx_offload) {
    int v = 0;
    socklen_t len = sizeof(v);
    s.caps_.tx_gso = kernel.getsockopt(fd, kSolUdp, kUdpSegment, &v, &len) == 0;
  }
  // GRO needs two receive slots of kGroReadSize bytes at the end of every batch.
  if (options.rx_offload && options.max_batch >= kGroRecvSlots) {
    s.caps_.rx_gro = kernel.setsockopt(fd, kSolUdp, kUdpGro, &one, sizeof(one)) == 0;
  }
  s.a_ = std::make_unique<Arrays>(options.max_batch);
  s.log(s.caps_.describe());
  return s;
}

void UdpSocket::set_buffer(int opt, int force_opt, std::size_t bytes) {
  const int v = static_cast<int>(bytes);
  // FORCE ignores net.core.{r,w}mem_max but needs CAP_NET_ADMIN; without it, the plain
  // option is capped by the sysctl (the kernel then keeps what it can).
  if (kernel_->setsockopt(fd_, SOL_SOCKET, force_opt, &v, sizeof(v)) != 0) {
    kernel_->setsockopt(fd_, SOL_SOCKET, opt, &v, sizeof(v));
  }
  int got = 0;
  socklen_t len = sizeof(got);
  if (kernel_->getsockopt(fd_, SOL_SOCKET, opt, &got, &len) != 0 || got <= 0) return;
  if (opt == SO_RCVBUF) {
    caps_.recv_buffer = static_cast<std::size_t>(got);
    rx_stats_->recv_buffer_bytes.store(caps_.recv_buffer, std::memory_order_relaxed);
  } else {
    caps_.send_buffer = static_cast<std::size_t>(got);
  }
}

SockAddr UdpSocket::local_address() const {
  sockaddr_in6 sa{};
  socklen_t len = sizeof(sa);
  if (kernel_->getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return {};
  return SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&sa), len);
}

bool UdpSocket::set_pmtu_mode(PmtuMode mode) {
  const int v = pmtu_value(mode);
  const bool v6 = options_.bind.family() == AF_INET6;
  // The IPv6 constants have the same values as the IPv4 ones (IPV6_PMTUDISC_*).
  return kernel_->setsockopt(fd_, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
                             v6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &v, sizeof(v)) == 0;
}

void UdpSocket::disable_tx_offload() { caps_.tx_gso = false; }

void UdpSocket::disable_gso_after_error(int err) {
  if (!caps_.tx_gso) return;
  caps_.tx_gso = false;
  ++counters_.gso_fallbacks;
  log(
      errno_text("udp: GSO send refused, UDP segmentation offload disabled for this socket "
                 "(NIC without checksum offload?)",
                 err));
}

void UdpSocket::sample_drops() {
  std::uint32_t info[SK_MEMINFO_VARS] = {};
  socklen_t len = sizeof(info);
  if (kernel_->getsockopt(fd_, SOL_SOCKET, SO_MEMINFO, info, &len) == 0 &&
      len > SK_MEMINFO_DROPS * sizeof(std::uint32_t)) {
    note_rx_drops(info[SK_MEMINFO_DROPS]);
  }
}

void UdpSocket::note_rx_drops(std::uint32_t cumulative) {
  const std::uint32_t new_drops = cumulative - last_ovfl_;  // the kernel's counter wraps
  last_ovfl_ = cumulative;
  if (new_drops == 0) return;
  rx_stats_->kernel_drops.fetch_add(new_drops, std::memory_order_relaxed);
  if (options_.recv_buffer != 0) return;  // explicit sizes stay fixed
  // Auto: 4 -> 8 -> 16 MiB, at most two steps (what the kernel grants is read back; the
  // step counts what was asked, so a capped unprivileged socket does not log forever).
  if (rcv_asked_ >= kUdpAutoBufferMax) return;
  rcv_asked_ = std::min(kUdpAutoBufferMax, rcv_asked_ * 2);
  set_buffer(SO_RCVBUF, SO_RCVBUFFORCE, rcv_asked_);
  rx_stats_->buffer_grows.fetch_add(1, std::memory_order_relaxed);
  log("udp: receive queue overflowed; receive buffer now " + std::to_string(caps_.recv_buffer) +
      " bytes");
}

UdpSendReport UdpSocket::send(std::span<const OutDatagram> in) {
  UdpSendReport rep;
  std::size_t done = 0;
  std::size_t plain_until = 0;  // datagrams before this index go out without GSO
  while (done < in.size()) {
    const bool gso = caps_.tx_gso && done >= plain_until;
    std::size_t end = std::min(in.size(), done + kSendIovecs);
    if (caps_.tx_gso && !gso) end = std::min(end, plain_until);
    const std::size_t base = done;
    const GsoPlan plan = plan_gso(in.subspan(base, end - base), gso, options_.gso,
                                  std::span<GsoMessage>(a_->plan.data(), max_batch_));
    std::size_t iv = 0;
    for (std::size_t k = 0; k < plan.messages; ++k) {
      const GsoMessage& m = a_->plan[k];
      mmsghdr& h = a_->mm[k];
      h = mmsghdr{};
      h.msg_hdr.msg_iov = &a_->send_iov[iv];
      h.msg_hdr.msg_iovlen = m.count;
      for (std::size_t d = 0; d < m.count; ++d) {
        const OutDatagram& od = in[base + m.first + d];
        a_->send_iov[iv++] = {const_cast<std::uint8_t*>(od.data), od.len};
      }
      if (const SockAddr* to = in[base + m.first].to; to != nullptr && to->is_set()) {
        h.msg_hdr.msg_name = const_cast<sockaddr*>(&to->sa);
        h.msg_hdr.msg_namelen = to->len;
      }
      std::size_t ctl = 0;
      if (m.gso_size != 0) ctl = write_segment_cmsg(a_->send_ctl[k].b, m.gso_size);
      if (const SockAddr* to = in[base + m.first].to; caps_.pktinfo && to != nullptr) {
        if (to->local_v4 != 0 && to->family() == AF_INET) {
          ctl = add_pktinfo_cmsg(a_->send_ctl[k].b, ctl, to->local_v4);
        } else if (to->local_v6_set && to->family() == AF_INET6) {
          ctl = add_pktinfo6_cmsg(a_->send_ctl[k].b, ctl, to->local_v6);
        }
      }
      if (ctl != 0) {
        h.msg_hdr.msg_control = a_->send_ctl[k].b;
        h.msg_hdr.msg_controllen = ctl;
      }
    }
    std::size_t k = 0;
    while (k < plan.messages) {
      const int r = kernel_->sendmmsg(fd_, &a_->mm[k], static_cast<unsigned>(plan.messages - k),
                                      MSG_DONTWAIT);
      ++rep.syscalls;
      ++counters_.send_syscalls;
      if (r > 0) {
        for (std::size_t j = k; j < k + static_cast<std::size_t>(r); ++j) {
          const GsoMessage& m = a_->plan[j];
          ++counters_.send_messages;
          if (m.gso_size != 0) ++counters_.send_gso_messages;
          counters_.send_datagrams += m.count;
          done += m.count;
        }
        k += static_cast<std::size_t>(r);
        rep.sent = done;
        continue;
      }
      const int err = r == 0 ? EAGAIN : -r;
      if (err == EINTR) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) {
        rep.would_block = true;
        return rep;
      }
      const GsoMessage& m = a_->plan[k];
      if (m.gso_size != 0) {
        // Resend this message's datagrams one per message: for good after EIO/EINVAL,
        // for this message only after anything else (EMSGSIZE: a datagram too big).
        if (err == EIO || err == EINVAL) {
          disable_gso_after_error(err);
          rep.gso_disabled = true;
        } else {
          plain_until = done + m.count;
        }
        break;
      }
      ++rep.dropped;
      rep.last_errno = err;
      if (err == EMSGSIZE) {
        ++rep.emsgsize;
        ++counters_.drop_emsgsize;
      } else {
        ++counters_.drop_send_error;
      }
      ++done;
      ++k;
      rep.sent = done;
    }
  }
  return rep;
}

Result<std::size_t, UdpError> UdpSocket::recv(std::span<RecvSlot> slots) {
  const std::size_t n = std::min(slots.size(), max_batch_);
  std::size_t first = 0;
  if (caps_.rx_gro) {
    if (n < kGroRecvSlots) return fail(UdpError::kSlotsTooSmall);
    first = n - kGroRecvSlots;
    for (std::size_t i = first; i < n; ++i) {
      if (slots[i].capacity < kGroReadSize) return fail(UdpError::kSlotsTooSmall);
    }
  } else if (n == 0) {
    return fail(UdpError::kSlotsTooSmall);
  }
  const std::size_t want = n - first;
  for (std::size_t j = 0; j < want; ++j) {
    RecvSlot& s = slots[first + j];
    a_->recv_iov[j] = {s.data, s.capacity};
    mmsghdr& h = a_->recv_mm[j];
    h = mmsghdr{};
    h.msg_hdr.msg_iov = &a_->recv_iov[j];
    h.msg_hdr.msg_iovlen = 1;
    h.msg_hdr.msg_name = &a_->names[j];
    h.msg_hdr.msg_namelen = sizeof(sockaddr_in6);
    h.msg_hdr.msg_control = a_->recv_ctl[j].b;
    h.msg_hdr.msg_controllen = sizeof(a_->recv_ctl[j].b);
  }
  int r;
  do {
    r = kernel_->recvmmsg(fd_, a_->recv_mm.data(), static_cast<unsigned>(want), MSG_DONTWAIT);
    ++counters_.recv_syscalls;
  } while (r == -EINTR);
  if (r < 0) {
    // ICMP errors queued on the socket surface here; they are not data and not fatal.
    if (r == -EAGAIN || r == -EWOULDBLOCK || r == -ECONNREFUSED || r == -EHOSTUNREACH ||
        r == -ENETUNREACH) {
      return fail(UdpError::kWouldBlock);
    }
    return fail(UdpError::kIo);
  }
  std::uint32_t ovfl = last_ovfl_;
  bool saw_ovfl = false;
  for (std::size_t j = 0; j < static_cast<std::size_t>(r); ++j) {
    const msghdr& m = a_->recv_mm[j].msg_hdr;
    RecvSlot& s = slots[first + j];
    s.len = std::min<std::uint32_t>(a_->recv_mm[j].msg_len, s.capacity);
    s.truncated = (m.msg_flags & MSG_TRUNC) != 0;
    s.from = SockAddr::from_sockaddr(static_cast<const sockaddr*>(m.msg_name), m.msg_namelen);
    const std::size_t gso = parse_gro_size(m);
    s.gso_size = gso < s.len ? static_cast<std::uint16_t>(gso) : 0;
    if (s.gso_size != 0) ++counters_.recv_gro_reads;
    if ((caps_.rxq_ovfl || caps_.pktinfo) && (m.msg_flags & MSG_CTRUNC) == 0) {
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr;
           c = CMSG_NXTHDR(const_cast<msghdr*>(&m), c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
            c->cmsg_len == CMSG_LEN(sizeof(std::uint32_t))) {
          std::memcpy(&ovfl, CMSG_DATA(c), sizeof(ovfl));
          saw_ovfl = true;
        } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
                   c->cmsg_len == CMSG_LEN(sizeof(in_pktinfo))) {
          in_pktinfo pi{};
          std::memcpy(&pi, CMSG_DATA(c), sizeof(pi));
          s.from.local_v4 = pi.ipi_addr.s_addr;  // the address the peer sent to
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
                   c->cmsg_len == CMSG_LEN(sizeof(in6_pktinfo))) {
          in6_pktinfo pi{};
          std::memcpy(&pi, CMSG_DATA(c), sizeof(pi));
          s.from.local_v6 = pi.ipi6_addr;
          s.from.local_v6_set = true;
        }
      }
    }
  }
  if (saw_ovfl) {
    note_rx_drops(ovfl);
  } else if (static_cast<std::size_t>(r) == want || counters_.recv_syscalls % 256 == 0) {
    // Linux 6.18 no longer stamps SO_RXQ_OVFL on UDP datagrams (verified), so the drop
    // counter is also sampled with SO_MEMINFO — when a read came back full (the queue is
    // backing up) and now and then.
    sample_drops();
  }
  const SplitResult split = split_gro(slots.first(n), first, static_cast<std::size_t>(r));
  counters_.drop_truncated += split.truncated;
  if (!split.ok) ++counters_.drop_split;
  counters_.recv_datagrams += split.datagrams;
  return split.datagrams;
}

}  // namespace qeli::transport
