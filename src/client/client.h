// The `qeli client` daemon for Linux (qeli 0.7.16 §8). The protocol — connect, set-up,
// handshake, data phase, reconnect with back-off — is client/core's ClientCore; this
// daemon is its host: resolution, known_hosts, the device id, the TUN with routes, DNS
// and the kill switch (client/linux_tunnel.h, journaled), signals, systemd, `qeli status`.
//
//   1. resolve the server ONCE (IPv4) before anything on the host changes, and pin it;
//   2. loop: connect → handshake (the server proves its identity against the pinned key
//      or the TOFU store BEFORE the password is sent) → create the TUN, set address and
//      MTU, install routes (split tunnel: pool + pushed routes; full tunnel: the server
//      pinned via the physical gateway, then 0/1 + 128/1 through the TUN) → carry
//      traffic until the session ends → undo routes and TUN → back off and retry;
//   3. SIGINT / SIGTERM end the loop and undo everything qeli created.
// Host changes (routes, DNS takeover, the kill switch) are journaled before they are made
// (sys::HostChanges), so a run killed with SIGKILL is undone by the next start or by
// `qeli client --cleanup`. With `kill_switch = true` the nftables table is engaged before
// the first connect and stays across reconnects until a clean stop.
// A SERVER KEY MISMATCH is fatal (never retried). SIGHUP reopens the log file. Under
// systemd (Type=notify) READY=1 is sent once the connect loop runs (the kill switch, if
// any, engaged), and STATUS= follows the connection state.
#pragma once

#include <string>

#include "config/client_config.h"

namespace qeli::client {

struct ClientOptions {
  config::ClientConfig config;
  std::string known_hosts_path;    ///< empty = KnownHosts::default_path()
  std::string device_id_path;      ///< empty = default_device_id_path()
  std::string journal_path;        ///< empty = current_state_paths("", dev).journal
  std::string resolv_conf_path;    ///< empty = /etc/resolv.conf
  std::string resolv_backup_path;  ///< empty = current_state_paths("", dev).resolv_backup
  std::string status_socket;       ///< `qeli status` socket (client/status_service.h); empty = none
};

/// Runs until a signal or a fatal error. Exit code: 0 stopped by a signal, 1 fatal error
/// (bad settings, SERVER KEY MISMATCH, retries exhausted).
int run_client(const ClientOptions& options);

// `qeli client --cleanup` is client/host_cleanup.h.

}  // namespace qeli::client
