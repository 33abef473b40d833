// The `qeli server` daemon: loads and validates the config (refusing to start on any
// error finding, each naming file, section and key), loads or creates each profile's
// identity key, starts every enabled profile, and then waits for signals:
//   SIGINT / SIGTERM  stop every profile cleanly (sessions, threads, TUNs) and return;
//   SIGHUP            re-read the config; on any error finding keep the running one;
//                     otherwise replace the users (live sessions are not dropped) and
//                     apply [logging] (the log file is reopened: logrotate).
// Under systemd (Type=notify) it reports READY=1 once every profile serves, RELOADING=1
// around a reload, and pings the watchdog from this loop.
#pragma once

#include <string>

namespace qeli::server {

struct ServerOptions {
  std::string config_path = "/etc/qeli/server.conf";
  std::string identity_dir;  ///< empty = the config's auth.identity_dir
  /// The local control socket (`qeli list-clients`, `qeli kick`); empty = none.
  std::string control_socket = "/var/run/qeli/control.sock";
  /// After start-up (TUNs, sockets, keys, log file open), become this user keeping only
  /// CAP_NET_ADMIN (sys/privilege.h); empty = stay as started. The systemd unit sets it.
  std::string run_as;
  /// Per-user traffic totals (data_limit_gb, `qeli usage`) persist in this SQLite file.
  /// Empty = in memory only. A missing directory of the default path is a warning (totals
  /// in memory); any other failure to open it refuses to start.
  std::string usage_db = kDefaultUsageDb;
  static constexpr const char* kDefaultUsageDb = "/var/lib/qeli/server/usage.db";
};

/// Runs until SIGINT/SIGTERM. Returns the process exit code (0 clean stop, 1 failure).
int run_server(const ServerOptions& options);

}  // namespace qeli::server
