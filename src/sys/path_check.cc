#include "sys/path_check.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace qeli::sys {
namespace {

// An IP address of either family, IPv4-mapped IPv6 taken as IPv4.
struct Ip {
  int family = AF_UNSPEC;
  unsigned char bytes[16] = {};

  static std::optional<Ip> of(const sockaddr* sa) {
    Ip ip;
    if (sa == nullptr) return std::nullopt;
    if (sa->sa_family == AF_INET) {
      ip.family = AF_INET;
      std::memcpy(ip.bytes, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
      return ip;
    }
    if (sa->sa_family == AF_INET6) {
      const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
      if (IN6_IS_ADDR_V4MAPPED(&a)) {
        ip.family = AF_INET;
        std::memcpy(ip.bytes, a.s6_addr + 12, 4);
      } else {
        ip.family = AF_INET6;
        std::memcpy(ip.bytes, a.s6_addr, 16);
      }
      return ip;
    }
    return std::nullopt;
  }
  bool operator==(const Ip& o) const {
    return family == o.family && std::memcmp(bytes, o.bytes, family == AF_INET ? 4 : 16) == 0;
  }
  bool loopback() const {
    if (family == AF_INET) return bytes[0] == 127;
    static const unsigned char kLo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::memcmp(bytes, kLo, 16) == 0;
  }
  std::string text() const {
    char buf[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(family, bytes, buf, sizeof buf);
    return buf;
  }
};

std::optional<Ip> local_of(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return std::nullopt;
  return Ip::of(reinterpret_cast<const sockaddr*>(&ss));
}

// The interface that holds `ip` now (an empty string: none does; nullopt: the host's
// addresses could not be read).
std::optional<std::string> interface_of(const Ip& ip) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return std::nullopt;
  std::string name;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    const auto a = Ip::of(i->ifa_addr);
    if (a && *a == ip) {
      name = i->ifa_name;
      break;
    }
  }
  ::freeifaddrs(list);
  return name;
}

// The source address the kernel picks for `peer` now, routed as `fd` is (mark, device).
std::optional<Ip> source_for(int fd, const sockaddr_storage& peer, socklen_t peer_len,
                             std::string& why) {
  const int probe = ::socket(peer.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (probe < 0) {
    why = std::string("socket: ") + std::strerror(errno);
    return std::nullopt;
  }
  // A connection routed by a mark (a kill switch's or an app's policy routing) or pinned
  // to a device is asked about along the same route.
  std::uint32_t mark = 0;
  socklen_t ml = sizeof mark;
  if (::getsockopt(fd, SOL_SOCKET, SO_MARK, &mark, &ml) == 0 && mark != 0) {
    (void)::setsockopt(probe, SOL_SOCKET, SO_MARK, &mark, sizeof mark);
  }
  char dev[64] = {};
  socklen_t dl = sizeof dev;
  if (::getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl) == 0 && dl > 0 && dev[0] != 0) {
    (void)::setsockopt(probe, SOL_SOCKET, SO_BINDTODEVICE, dev, dl);
  }
  std::optional<Ip> src;
  if (::connect(probe, reinterpret_cast<const sockaddr*>(&peer), peer_len) != 0) {
    why = std::string("no route to the server now (") + std::strerror(errno) + ")";
  } else {
    src = local_of(probe);
  }
  ::close(probe);
  return src;
}

}  // namespace

PathCheck check_path(int fd, std::string_view tunnel_interface) {
  PathCheck out;
  tcp_info ti{};
  socklen_t til = sizeof ti;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &til) == 0 && ti.tcpi_state != TCP_ESTABLISHED) {
    out.detail = "not an established connection";
    return out;
  }
  sockaddr_storage peer{};
  socklen_t peer_len = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
    out.detail = std::string("getpeername: ") + std::strerror(errno);
    return out;
  }
  const auto peer_ip = Ip::of(reinterpret_cast<const sockaddr*>(&peer));
  const auto local = local_of(fd);
  if (!peer_ip || !local) {
    out.detail = "not an IP connection";
    return out;
  }
  if (peer_ip->loopback()) {
    out.verdict = PathVerdict::kSame;
    return out;
  }
  const auto local_if = interface_of(*local);
  if (!local_if) {
    out.detail = std::string("getifaddrs: ") + std::strerror(errno);
    return out;
  }
  std::string no_route;
  const auto src = source_for(fd, peer, peer_len, no_route);
  std::optional<std::string> src_if;
  if (src) {
    src_if = interface_of(*src);
    if (!src_if) {
      out.detail = std::string("getifaddrs: ") + std::strerror(errno);
      return out;
    }
  }
  const bool via_tunnel = src_if && !tunnel_interface.empty() && *src_if == tunnel_interface;
  if (local_if->empty()) {
    out.verdict = PathVerdict::kMoved;
    out.through_tunnel = via_tunnel;
    out.detail = local->text() + " is no longer on this host";
    if (via_tunnel) {
      out.detail +=
          ", and the route to " + peer_ip->text() + " went with it (now through the tunnel)";
    }
    return out;
  }
  if (!src) {  // no route now: wait for one
    out.detail = no_route;
    return out;
  }
  if (via_tunnel) {
    out.detail = "the route to " + peer_ip->text() + " now goes through the tunnel";
    return out;
  }
  if (*src == *local || *src_if == *local_if) {
    out.verdict = PathVerdict::kSame;
    return out;
  }
  out.verdict = PathVerdict::kMoved;
  out.detail = "the route to " + peer_ip->text() + " now leaves through " +
               (src_if->empty() ? std::string("?") : *src_if) + " (" + src->text() + "), not " +
               *local_if + " (" + local->text() + ")";
  return out;
}

}  // namespace qeli::sys
