// Which DNS path the client uses, and the per-link DNS interface.
//
// With systemd-resolved running and /etc/resolv.conf pointing at its stub, qeli sets DNS
// on the tunnel link only (`resolvectl dns <tun> ...`, `resolvectl domain <tun> ~.` in
// full tunnel so every query goes there, `resolvectl revert <tun>` on stop). resolved
// forgets a link's settings when the link disappears, so even a kill -9 leaves no DNS
// state behind once the TUN is gone. Otherwise qeli takes over resolv.conf (ResolvConf).
//
// The resolved path is an interface (LinkDns) with two implementations: D-Bus
// (sys/resolved_bus.h, sd-bus; what the client uses) and resolvectl(1) (commands built by
// a pure function). Neither is exercised against a live resolved in our tests (the
// sandbox has none; see docs/OPERATIONS.md).
#pragma once

#include <string>
#include <vector>

#include "sys/host_error.h"
#include "sys/resolv_conf.h"

namespace qeli::sys {

struct ResolvedProbePaths {
  std::string runtime_dir = "/run/systemd/resolve";  ///< holds resolved's varlink socket
  std::string resolv_conf = "/etc/resolv.conf";
};

struct ResolvedStatus {
  bool running = false;              ///< resolved's varlink socket accepts a connection
  bool resolv_conf_is_stub = false;  ///< resolv.conf links to / lists resolved's stub
};

/// Probes without side effects (connect + close; readlink/read of resolv.conf).
ResolvedStatus probe_resolved(const ResolvedProbePaths& paths = {});

enum class DnsBackend { kResolved, kResolvConf };

/// resolved only if it runs AND the host's resolv.conf goes through it; otherwise the
/// libc resolver reads resolv.conf and per-link settings would be ignored.
DnsBackend choose_dns_backend(const ResolvedStatus& status);

/// DNS for one tunnel link.
class LinkDns {
 public:
  virtual ~LinkDns() = default;
  /// Points DNS at `dns.servers` through `dev`; `default_route` = every query (full
  /// tunnel) rather than only the search domains.
  virtual HostStatus apply(const std::string& dev, const DnsSettings& dns, bool default_route) = 0;
  /// Undoes apply().
  virtual HostStatus revert(const std::string& dev) = 0;
};

/// The resolvectl(1) argument vectors that ResolvectlLinkDns runs for apply() (pure).
HostResult<std::vector<std::vector<std::string>>> resolvectl_apply_commands(const std::string& dev,
                                                                            const DnsSettings& dns,
                                                                            bool default_route);

/// LinkDns through resolvectl(1), run with posix_spawn (argument vector, no shell).
class ResolvectlLinkDns final : public LinkDns {
 public:
  explicit ResolvectlLinkDns(std::string resolvectl = "resolvectl");
  HostStatus apply(const std::string& dev, const DnsSettings& dns, bool default_route) override;
  HostStatus revert(const std::string& dev) override;

 private:
  std::string exe_;
};

/// LinkDns by taking over resolv.conf (the fallback; host-wide, not per link).
class ResolvConfLinkDns final : public LinkDns {
 public:
  explicit ResolvConfLinkDns(ResolvConfPaths paths = {});
  HostStatus apply(const std::string& dev, const DnsSettings& dns, bool default_route) override;
  HostStatus revert(const std::string& dev) override;
  ResolvConf& resolv_conf() { return rc_; }

 private:
  ResolvConf rc_;
};

}  // namespace qeli::sys
