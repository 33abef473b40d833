// What a reload (SIGHUP, `systemctl reload`, the control API) does to a live session whose
// user changed in the config (docs/OPERATIONS.md "Reload"): a session authenticated
// with credentials the new config no longer accepts must not outlive the reload (the
// trial: a user removed from the users file, or set to `enabled = false`, kept a live
// session after SIGHUP).
//
//   user gone                          → ended, "the user was removed" (kDisabled:
//                                        a client that understands it does not come back)
//   enabled = false                    → ended, kDisabled
//   password_hash changed              → ended, kKicked (the client reconnects and has to
//                                        log in with the new password) — for a session
//                                        that logged in with the password
//   its device credential revoked      → ended, kDisabled (a device session: the user's
//   or replaced                          password and other devices do not matter to it)
//   no longer allowed on this profile  → ended, kDisabled
//   anything else (limits, routes, …)  → the session stays
//
// Pure.
#pragma once

#include <optional>
#include <string>

#include "config/server_config.h"
#include "wire/session_close.h"

namespace qeli::server {

struct ReloadVerdict {
  wire::CloseReason close;
  std::string why;  ///< for the log: "removed from the config", …
};

/// `before`/`after`: the user in the old and the new config (null = absent); `device`: the
/// id of the device credential the session used (empty = the password). nullopt: the
/// session may stay.
std::optional<ReloadVerdict> reload_verdict(const config::UserConfig* before,
                                            const config::UserConfig* after,
                                            const std::string& profile,
                                            const std::string& device = {});

}  // namespace qeli::server
