// `qeli client --cleanup`: undoes what crashed clients left on this host, in this network
// namespace — however they were started (a config, a link, a systemd unit, any `dev`,
// any `--state-dir`):
//
//   1. the journals to look at: every journal a client registered when it started (the
//      registry below: <run dir>/client-state/journal-<dev><ns>.path holds its journal's
//      path, so a custom --state-dir is found too), every journal-*<ns>.log in the
//      default state dir and in the --state-dir given, and the one of a config/link given;
//   2. a journal still locked belongs to a running client: left alone (reported);
//      any other is replayed backwards (routes, DNS, kill switch, sysctls) and emptied;
//   3. a kill-switch table (`inet qeli_ks_<dev>`) whose client is not running is removed
//      even without a journal entry (a state dir deleted by hand);
//   4. verified: if a kill-switch table of a client that is not running is still there,
//      the host is still offline — exit 1 with the nft command that removes it.
// Exit 0 when nothing is left to undo (also when there was nothing to begin with).
#pragma once

#include <string>
#include <vector>

namespace qeli::client {

/// Where running clients register their journal: $QELI_RUN_DIR/client-state, default
/// /run/qeli/client-state (tmpfs: a reboot, which also undoes every host change, clears it).
std::string state_registry_dir();

/// Registers `journal_path` for `dev` in this namespace (best effort: a warning on failure).
void register_journal(const std::string& dev, const std::string& journal_path);
/// Removes the registration (a clean stop, or a cleanup that emptied the journal).
void unregister_journal(const std::string& dev);

struct CleanupOptions {
  std::vector<std::string> state_dirs;  ///< scanned for journal-*<ns>.log (the default is added)
  std::vector<std::string> journals;    ///< explicit journals (a config or link was given)
};

/// Runs steps 1–4 above, logging what it did. Returns the exit code.
int cleanup_host(const CleanupOptions& options);

}  // namespace qeli::client
