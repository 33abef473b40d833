// Helpers shared by the provisioning commands (show-identity, rotate-identity,
// add-client): load the server config they edit around, refusing a broken one.
#pragma once

#include <optional>
#include <string>

#include "cli/cli.h"
#include "config/server_config.h"

namespace qeli::cli {

/// Loads `path`; on any error prints the findings to ctx.err and returns nullopt.
/// Warnings and unknown keys are not printed here (check-config reports them).
/// With `create_users_file` (add-client), an `[auth] users_file` that does not exist yet
/// is created empty with mode 0600 (its directory must exist) and the config reloaded, so
/// the first user of a fresh setup can be added; the note goes to ctx.err.
std::optional<config::ServerConfig> load_server_for_provisioning(const std::string& path,
                                                                 Context& ctx,
                                                                 bool create_users_file = false);

/// The identity directory a command uses: `--identity-dir` when given, else the config's
/// `auth.identity_dir` — the one the server uses, so the keys shown are the keys served.
std::string identity_dir_for(const std::string& flag, const config::ServerConfig& cfg);
inline constexpr const char* kIdentityDirHelp =
    "Directory of <profile>.key files (default: the config's auth.identity_dir, "
    "/etc/qeli/identity)";

/// 20 characters from a 32-letter alphabet without look-alikes (100 bits).
std::string generate_password(crypto::Rng& rng);

/// A new password for add-client, passwd and set-web-password: `given` (-p/--password,
/// 0.7.16's flag: visible to every local user in /proc, so a note says so), else the first
/// line of standard input when `from_stdin`, else generated (`generated` = true). nullopt,
/// with the reason printed, when standard input holds no password.
std::optional<std::string> choose_password(const std::string& given, bool from_stdin, Context& ctx,
                                           bool& generated);
inline constexpr const char* kPasswordFlagHelp =
    "The password (visible to other local users in the process list and kept in shell "
    "history: prefer --password-stdin)";

}  // namespace qeli::cli
