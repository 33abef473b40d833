// Secrets in the server config that no reader through the control socket may see: the
// panel admin's `[web] totp_secret` (a stolen panel session, an admin-scope API token or
// a local user with read permission must not be able to copy the second factor). The
// config text and its history versions go out with the value replaced by kHiddenSecret,
// and an edit that comes back with kHiddenSecret gets the file's value again before it is
// validated and saved (so the editor round-trips, and the privileged-key rule still
// refuses any other value).
#pragma once

#include <string>
#include <string_view>

namespace qeli::server {

inline constexpr std::string_view kHiddenSecret = "(hidden)";

/// `text` with every [web] totp_secret line (as the config's INI reader finds them: any
/// spelling of the header or separator) written as `totp_secret = (hidden)`.
std::string hide_secrets(std::string_view text);

/// True if a [web] totp_secret of `text` is the placeholder itself (the file steward
/// refuses to write such a file: the server must have restored it).
bool has_hidden_secret(std::string_view text);

/// `edited` with every [web] totp_secret line whose value is kHiddenSecret given the
/// value that `current` (the file as it is) has; lines with another value stay as they are.
std::string restore_secrets(std::string_view edited, std::string_view current);

}  // namespace qeli::server
