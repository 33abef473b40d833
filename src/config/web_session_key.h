// The web panel's session key (panel/admin_sessions.h) on disk, so that a restart of the
// panel or the server does not log the admins out ([web] persist_session_key = true):
// 32 random bytes in a 0600 file, created with O_EXCL on first use. A file of another
// size is an error (never silently replaced: it may be another tool's file).
#pragma once

#include <string>

#include <array>
#include <cstdint>

#include "base/result.h"

namespace qeli::config {

using WebSessionKey = std::array<std::uint8_t, 32>;

/// The key in `path`, creating the file (0600) with a fresh key if it does not exist.
/// Errors name the path and the reason.
Result<WebSessionKey, std::string> load_or_create_session_key(const std::string& path);

/// A fresh random key (persist_session_key = false: sessions end with the process).
WebSessionKey random_session_key();

/// Where the key lives for a config: <identity dir>/web-session.key (the directory of the
/// server's other secrets, created 0700 by the server).
std::string session_key_path(const std::string& identity_dir);

}  // namespace qeli::config
