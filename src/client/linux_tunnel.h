// The Linux daemon's tunnel for one session (ClientEnv::open_tunnel, client/core/
// client_env.h): a TUN created through the kernel with the pushed address and the MTU,
// IPv6 off on it, the routes (split tunnel: pool + pushed routes; full tunnel: the server
// pinned via the physical gateway, then 0/1 + 128/1 through the TUN, IPv6 blackholed)
// and DNS (client/dns_choice.h), every host change journaled before it is made
// (sys::HostChanges). started()/ended() report to `qeli status` and systemd and run the
// post_up/post_down hooks; destroying it reverts DNS, then the routes, then closes the
// TUN (which removes its address and every route through it, even if we are killed).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "client/client_status.h"
#include "client/core/client_env.h"
#include "config/client_config.h"
#include "sys/host_undo.h"
#include "sys/resolv_conf.h"
#include "sys/resolved_bus.h"
#include "sys/route_table.h"
#include "sys/service_notify.h"

namespace qeli::client {

/// What the daemon holds for the whole run; must outlive every tunnel opened with it.
struct LinuxHost {
  const config::ClientConfig& cfg;
  std::string resolv_conf_path;  ///< empty = /etc/resolv.conf
  std::string endpoint_name;     ///< "host:port" as configured
  sys::HostChanges& host;
  sys::RouteTable& routes;
  sys::ResolvConf& resolv;
  sys::ResolvedBusLinkDns& resolved;
  ClientStatus& status;
  sys::ServiceNotifier& notifier;
};

/// Creates and configures the TUN, routes and DNS for `tc`; an error text (fatal to the
/// client) when the TUN, its addresses or the full-tunnel routes cannot be set up.
Result<std::unique_ptr<Tunnel>, std::string> open_linux_tunnel(LinuxHost& host,
                                                               const TunnelConfig& tc);

}  // namespace qeli::client
