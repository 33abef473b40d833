// Keys that give whoever sets them the host's privileges: shell hooks and commands the
// server runs as root, and file paths it reads or writes as root. An edit that arrives
// over the control socket (the panel's config editor) may not add, change or remove any
// of them; they are set by editing the file as root (panels.md §5.1: CVE-2026-55477,
// wg-easy's hooks). The one exception is `logging.file` inside /var/log/qeli/.
// Also `[web] totp_secret`: a stolen panel session must not be able to turn the admin's
// second factor off or replace it with one the thief holds.
//
// NOTE: a narrow stand-in until src/config names its host-privileged keys (the DNS/hooks
// work); then this asks that list instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/ini_reader.h"

namespace qeli::server {

/// True if `key` (in section `section`) is host-privileged by the rules above.
bool is_privileged_key(std::string_view section, std::string_view key);

/// One refusal per privileged key whose values differ between `before` and `after`
/// ("[profile:main] routing.post_up: hooks, file paths and the panel owner's credentials cannot
/// be changed from the panel or the control socket; edit <file> as root"). Empty = the
/// edit may be saved.
std::vector<config::Finding> privileged_changes(const config::IniDocument& before,
                                                const config::IniDocument& after);

}  // namespace qeli::server
