// `qeli panel`: the web panel as its own process. It binds its listener, then gives up
// every capability (and, with --user, becomes that user) before it answers anyone, and
// reaches the VPN server only through the control socket (control/control_socket.h),
// where the server's peer-credential check decides what it may do. `qeli server` with
// [web] enabled = true starts it this way (panel/panel_child.h); it can also run on its
// own beside a server.
#pragma once

#include <string>

#include "control/control_socket.h"

namespace qeli::panel {

struct PanelOptions {
  std::string config_path = "/etc/qeli/server.conf";
  std::string control_socket = control::kDefaultSocketPath;
  std::string identity_dir;  ///< empty: the config's auth.identity_dir (the session key's home)
  int session_key_fd = -1;   ///< >= 0: read the 32-byte session key from this fd (the server's)
  std::string run_as;        ///< become this user after binding (empty: keep the uid)
};

/// Runs until SIGINT/SIGTERM. Returns the process exit code (0 clean stop, 1 failure:
/// the reason is logged — no password_hash, a listener that cannot bind, TLS files that
/// do not load, a privilege drop that failed).
int run_panel(const PanelOptions& options);

}  // namespace qeli::panel
