// What a reload can not take from a changed `[auth]`: AuthGuard (brute_force.*), every
// ProfileRuntime (require_client_key_proof, bind_static_to_session) and the identity keys
// (identity_dir) are built from it once, at start-up. users_file is not among them: a
// reload reads the users from the new file.
//
// The server logs these keys with "needs a restart" (docs/OPERATIONS.md "Reload") instead
// of keeping the old values silently. Pure.
#pragma once

#include <string>
#include <vector>

#include "config/server_config.h"

namespace qeli::config {

/// The `[auth]` keys whose value differs between `running` and `next` and that only a
/// restart applies, as written in the file (`brute_force.max_attempts`, …), in page order.
std::vector<std::string> auth_keys_needing_restart(const AuthConfig& running,
                                                   const AuthConfig& next);

}  // namespace qeli::config
