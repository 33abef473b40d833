// Where a path key of a config file points: a relative path is taken from the directory of
// the file that holds the key, never from the working directory (`/` under systemd), so a
// config means the same wherever the daemon or check-config runs. Every path key goes
// through here (auth.users_file, auth.identity_dir, profile identity_key, [logging] file,
// [webhooks], [web] files, the client's password_file).
#pragma once

#include <string>
#include <string_view>

namespace qeli::config {

/// `path` as it is when absolute or when `config_file` is empty (a config given as text),
/// else `config_file`'s directory / `path`. Pure (no file system access).
std::string beside_config(std::string_view config_file, std::string_view path);

}  // namespace qeli::config
