// Shared by the commands that change the host's service setup (set-service-user,
// install-polkit): the --root prefix every path goes through (like `systemctl --root`:
// for tests and image builders), the root check, and `systemctl daemon-reload` when
// systemd runs.
#pragma once

#include <string>
#include <string_view>

#include "cli/cli.h"

namespace qeli::cli {

/// `path` (absolute) inside `root`; `root` empty or "/" is the running system.
std::string under_root(const std::string& root, std::string_view path);

/// True when `root` names the running system (empty or "/").
bool is_live_root(const std::string& root);

/// False, with the reason and the command to retry on ctx.err, when the process is not
/// root (ctx.euid, else geteuid()). `retry` is the command line to suggest after `sudo`.
bool running_as_root(Context& ctx, std::string_view command, std::string_view retry);

/// After a unit file or drop-in changed: `systemctl daemon-reload` when the live system
/// runs systemd (/run/systemd/system exists), else a line saying why it is not needed.
/// False, with systemctl's failure on ctx.err, when the reload failed.
bool reload_systemd(const std::string& root, Context& ctx);

/// The help text of the hidden --root option.
inline constexpr const char* kRootOptionHelp =
    "Prefix of every path read and written (an image being built); no daemon-reload";

}  // namespace qeli::cli
