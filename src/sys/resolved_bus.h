// Per-link DNS through systemd-resolved's D-Bus API (org.freedesktop.resolve1.Manager,
// documented in org.freedesktop.resolve1(5)), the path qeli 0.7.16 §8 takes with
// `resolvectl` when resolved runs:
//
//   apply():  SetLinkDNS(i ifindex, a(iay) servers)           the tunnel's resolvers
//             SetLinkDomains(i ifindex, a(sb) domains)        "~." (routing-only ".") in a
//                                                             full tunnel, then the search
//                                                             domains (not routing-only)
//             SetLinkDefaultRoute(i ifindex, b default_route) every query may use the link
//   revert(): RevertLink(i ifindex)
//
// resolved drops a link's settings when the link disappears, so a kill -9 (the TUN goes
// with the process) leaves nothing behind and nothing needs journaling. What calls are
// made is decided by resolved_link_plan() (pure, unit-tested); ResolvedBusLinkDns only
// marshals the plan onto the system bus (sd-bus from libsystemd).
//
// Thread-safety: one owner. The bus connection is opened per call sequence and closed
// again (a session changes DNS twice in its life).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sys/resolved_dns.h"

namespace qeli::sys {

/// What apply() sends for one link.
struct ResolvedLinkPlan {
  int ifindex = 0;
  std::vector<IpAddress> servers;                     ///< SetLinkDNS, in order
  std::vector<std::pair<std::string, bool>> domains;  ///< SetLinkDomains (name, routing-only)
  bool default_route = false;                         ///< SetLinkDefaultRoute
};

/// The plan for `dns` on link `ifindex` (pure). kInvalidArgument for ifindex <= 0, no
/// servers, or a search domain render_resolv_conf() would refuse.
HostResult<ResolvedLinkPlan> resolved_link_plan(int ifindex, const DnsSettings& dns,
                                                bool default_route);

/// LinkDns over D-Bus. `dev` is resolved to its ifindex at each call (kNotFound if the
/// link does not exist). Bus errors come back as kIo with the D-Bus error name and
/// message (kPermission for org.freedesktop.DBus.Error.AccessDenied).
class ResolvedBusLinkDns final : public LinkDns {
 public:
  HostStatus apply(const std::string& dev, const DnsSettings& dns, bool default_route) override;
  HostStatus revert(const std::string& dev) override;
};

}  // namespace qeli::sys
