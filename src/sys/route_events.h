// RouteEvents: "the host's addresses, routes or links changed" — a subscription to the
// rtnetlink multicast groups RTNLGRP_{IPV4,IPV6}_IFADDR, RTNLGRP_{IPV4,IPV6}_ROUTE and
// RTNLGRP_LINK (rtnetlink(7)) through libnl-route-3. It says only that something changed:
// the reader asks the kernel afresh what the path is now (sys/path_check.h), so a
// message lost to a full socket buffer (ENOBUFS) loses nothing.
//
// Bound to the network namespace of the thread that opens it. One reader thread.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"

struct nl_sock;

namespace qeli::sys {

class RouteEvents {
 public:
  /// Error: the socket could not be opened or subscribed (text names the call).
  static Result<RouteEvents, std::string> open();
  RouteEvents(RouteEvents&&) noexcept;
  RouteEvents& operator=(RouteEvents&&) noexcept;
  ~RouteEvents();

  /// Readable (POLLIN) when a change is pending.
  int fd() const;
  /// Reads every pending message without blocking; true when any arrived (or some were
  /// lost to an overrun).
  bool drain();

 private:
  explicit RouteEvents(nl_sock* sk) : sk_(sk) {}
  nl_sock* sk_ = nullptr;
};

}  // namespace qeli::sys
