// What `qeli set-service-user` and `qeli install-polkit` need to know about a systemd
// unit, as pure functions over its text: strict unit and account names (they end up in
// paths and in a polkit rule's JavaScript string literals), the effective ExecStart= of
// the [Service] section, whether it runs `qeli server`, that line without `--user X`,
// and the unit's Alias= names. No file system here (cmd_set_service_user.cc reads).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qeli::cli {

/// A `*.service` name of ASCII letters, digits and `_ - . @ :` (at most 255 bytes, no
/// `..`): safe as a path component and inside a JavaScript string (0.7.16's rule).
bool valid_service_unit(std::string_view unit);

/// An account name: ASCII letters, digits, `_ - .`, the first a letter, digit or `_`,
/// at most 32 bytes (useradd's limit; 0.7.16 allowed 64).
bool valid_account_name(std::string_view user);

/// The ExecStart= that systemd would run for a unit file's [Service] section: the
/// assignments in order, an empty one clearing the list, `\`-continued lines joined.
/// nullopt when none is left or several are (only Type=oneshot may have several, and a
/// server unit is not one).
std::optional<std::string> effective_exec_start(std::string_view unit_text);

/// True when `exec` (an ExecStart= value) runs `qeli server`: the program (after the
/// `@ - : + !` prefixes systemd allows) is named `qeli` and its first argument is
/// `server`.
bool runs_qeli_server(std::string_view exec);

/// `exec` without its `--user NAME` / `--user=NAME` arguments; the other words keep
/// their own spelling (quotes included), joined by one space.
std::string without_user_option(std::string_view exec);

/// The names listed by Alias= in the unit's [Install] section.
std::vector<std::string> unit_aliases(std::string_view unit_text);

}  // namespace qeli::cli
