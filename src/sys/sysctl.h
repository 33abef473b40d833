// Kernel parameters through /proc/sys (sysctl(8) without the child process). Network
// sysctls (net.*) belong to the network namespace of the thread that opens the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/host_error.h"
#include "sys/ip_prefix.h"

namespace qeli::sys {

/// "net.ipv4.ip_forward" or "net/ipv4/ip_forward" -> "/proc/sys/net/ipv4/ip_forward".
/// kInvalidArgument for an empty key, "..", or characters outside [A-Za-z0-9_./-].
HostResult<std::string> sysctl_path(std::string_view key);

/// The value with the trailing newline removed. kNotFound if the key does not exist.
HostResult<std::string> read_sysctl(std::string_view key);

/// Writes `value` (a newline is appended). kPermission when not allowed.
HostStatus write_sysctl(std::string_view key, std::string_view value);

/// The forwarding switch of one family: net.ipv4.ip_forward or
/// net.ipv6.conf.all.forwarding.
std::string forwarding_key(IpFamily family);

/// Sets forwarding to "1" and returns the previous value (so that a journal can put it
/// back if nobody changed it since).
HostResult<std::string> enable_forwarding(IpFamily family);
/// The interfaces whose net.ipv6.conf.<if>.accept_ra is 1: Linux ignores their router
/// advertisements once IPv6 forwarding is on (accept_ra = 2 takes them anyway; ip-sysctl
/// .rst). "all", "default" and `except` are left out; empty without IPv6.
std::vector<std::string> ipv6_ra_lost_by_forwarding(std::string_view except);

}  // namespace qeli::sys
