// LinkNetlink: link state, MTU and addresses of a network interface through rtnetlink
// (libnl-route-3), not `ip` child processes. Used to bring up the TUN created by
// tunio::LinuxTun and by the netns tests/lab.
//
// A LinkNetlink binds to the network namespace of the thread that constructed it
// (netlink sockets are per-namespace). Not thread-safe: one per thread. All calls block
// briefly on the kernel's answer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

struct nl_sock;

namespace qeli::sys {

enum class NetlinkError : std::uint8_t {
  socket_failed,   // could not open/connect the rtnetlink socket
  no_such_link,    // no interface of that name
  bad_address,     // unparseable CIDR
  kernel_refused,  // the kernel answered with an error (detail says which)
};

using NetlinkStatus = Status<Error<NetlinkError>>;

class LinkNetlink {
 public:
  /// Opens an rtnetlink socket in the calling thread's network namespace.
  static Result<LinkNetlink, Error<NetlinkError>> open();
  LinkNetlink(LinkNetlink&&) noexcept;
  LinkNetlink& operator=(LinkNetlink&&) noexcept;
  ~LinkNetlink();

  /// Sets IFF_UP (RTM_NEWLINK).
  NetlinkStatus set_link_up(std::string_view name);
  /// Sets the MTU in bytes.
  NetlinkStatus set_mtu(std::string_view name, std::uint32_t mtu);
  /// Sets the transmit queue length in packets (IFLA_TXQLEN). A TUN's queue is where the
  /// kernel holds packets until the VPN reads them; the kernel default (500) overflows
  /// under bursts when the reader is descheduled.
  NetlinkStatus set_tx_queue_len(std::string_view name, std::uint32_t packets);
  /// Adds an address, "10.1.2.3/24" or "fd00::1/64" (RTM_NEWADDR). `skip_dad` sets
  /// IFA_F_NODAD on an IPv6 address so it is usable at once instead of staying tentative
  /// during duplicate address detection (pointless on a point-to-point TUN).
  NetlinkStatus add_address(std::string_view name, std::string_view cidr, bool skip_dad = false);
  /// Deletes the interface (RTM_DELLINK).
  NetlinkStatus delete_link(std::string_view name);
  /// True if the link is administratively up and running (IFF_UP and IFF_RUNNING); the
  /// source of truth for TUN link state (never zero-length writes).
  Result<bool, Error<NetlinkError>> is_link_running(std::string_view name);
  /// The interface's MTU in bytes.
  Result<std::uint32_t, Error<NetlinkError>> mtu(std::string_view name);

 private:
  struct SockDeleter {
    void operator()(nl_sock* s) const;
  };
  explicit LinkNetlink(nl_sock* s) : sock_(s) {}
  std::unique_ptr<nl_sock, SockDeleter> sock_;
};

}  // namespace qeli::sys
