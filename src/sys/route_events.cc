#include "sys/route_events.h"

#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include <cerrno>
#include <utility>

namespace qeli::sys {

Result<RouteEvents, std::string> RouteEvents::open() {
  nl_sock* sk = nl_socket_alloc();
  if (sk == nullptr) return fail(std::string("nl_socket_alloc failed"));
  // Multicast only: no requests of ours, so no sequence numbers to match.
  nl_socket_disable_seq_check(sk);
  int rc = nl_connect(sk, NETLINK_ROUTE);
  if (rc == 0) {
    rc = nl_socket_add_memberships(sk, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
                                   RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK, 0);
  }
  if (rc == 0) rc = nl_socket_set_nonblocking(sk);
  if (rc != 0) {
    nl_socket_free(sk);
    return fail(std::string("rtnetlink subscription failed: ") + nl_geterror(rc));
  }
  return RouteEvents(sk);
}

RouteEvents::RouteEvents(RouteEvents&& o) noexcept : sk_(std::exchange(o.sk_, nullptr)) {}

RouteEvents& RouteEvents::operator=(RouteEvents&& o) noexcept {
  if (this != &o) {
    if (sk_ != nullptr) nl_socket_free(sk_);
    sk_ = std::exchange(o.sk_, nullptr);
  }
  return *this;
}

RouteEvents::~RouteEvents() {
  if (sk_ != nullptr) nl_socket_free(sk_);
}

int RouteEvents::fd() const { return nl_socket_get_fd(sk_); }

bool RouteEvents::drain() {
  // The messages themselves are not parsed (the header says why): read and drop them.
  alignas(nlmsghdr) char buf[16384];
  bool any = false;
  for (;;) {
    const ssize_t n = ::recv(fd(), buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      any = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // ENOBUFS: the kernel dropped messages for us — still a change.
    if (n < 0 && errno == ENOBUFS) {
      any = true;
      continue;
    }
    return any;
  }
}

}  // namespace qeli::sys
