// How the client sets DNS for a session (qeli 0.7.16 §8, docs/OPERATIONS.md "DNS"):
//
//   1. `dns = off`                        → the host's DNS is left alone;
//   2. resolvers: the client's own `dns_servers` outrank the pushed resolvers (AUTH OK
//      `dns`, then `x_dns6` when the session carries IPv6, docs/PROTOCOL.md §21); with
//      neither, the host's DNS is left alone (no silent public fallback);
//   3. systemd-resolved running AND /etc/resolv.conf going through its stub
//      (sys::choose_dns_backend)          → per-link DNS on the TUN over D-Bus
//                                           (sys::ResolvedBusLinkDns), `~.` in a full
//                                           tunnel so every query uses the tunnel;
//   4. otherwise                          → take over /etc/resolv.conf (journaled backup).
//
// Pure: the caller probes resolved and hands the result in.
#pragma once

#include <string>
#include <string_view>

#include "config/client_config.h"
#include "sys/resolved_dns.h"

namespace qeli::client {

enum class DnsPath { kLeaveAlone, kResolvedLink, kResolvConf };

struct DnsChoice {
  DnsPath path = DnsPath::kLeaveAlone;
  sys::DnsSettings dns;  ///< the resolvers, when path != kLeaveAlone
  std::string why;       ///< one line for the log
};

/// `pushed` is the AUTH OK `dns` field, `pushed6` its `x_dns6` when the session carries
/// IPv6 (else empty). Either may be empty or garbage (then it is ignored); `pushed6` is
/// taken only as an IPv6 address, after `pushed`.
DnsChoice choose_dns(const config::ClientConfig& cfg, std::string_view pushed,
                     std::string_view pushed6, const sys::ResolvedStatus& resolved);

const char* to_string(DnsPath p);

}  // namespace qeli::client
