// The users file (auth.users_file, default /etc/qeli/users.conf): [user:NAME] sections in
// the same INI format as server.conf (reference §5.6). `qeli add-client` appends to it;
// the server reads it at start and on SIGHUP.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/file_replacer.h"
#include "config/server_config.h"

namespace qeli::config {

/// Reads every [user:NAME] of `path`. A missing file is an error finding.
std::vector<UserConfig> read_users_file(const std::string& path, Findings& findings);

struct NewUser {
  std::string name;                   // 1..64 bytes: letters, digits, - _ . @
  std::string password_hash;          // Argon2id PHC (crypto::argon2id_hash)
  std::vector<std::string> profiles;  // empty = all profiles
  std::optional<Ipv4Addr> static_ip;
  std::uint32_t max_sessions = 0;
  std::vector<std::string> reality_short_ids;  // this user's own REALITY short ids
};

/// kInvalid: the edited file was refused (its check, or a value that cannot be a line).
enum class UsersFileError { kBadName, kBadHash, kExists, kNotFound, kInvalid, kIo };

/// Appends one [user:NAME] section under an exclusive flock, creating the file (mode
/// 0600) if needed. Refuses a name already defined in the file. The write is one
/// write(2) of the whole section followed by fsync, so a reader never sees half a user.
/// `via` (here and below): who replaces the file (config/file_replacer.h); null = this
/// process. Through a replacer append_user replaces the whole file too.
Status<Error<UsersFileError>> append_user(const std::string& path, const NewUser& user,
                                          FileReplacer* via = nullptr);

/// Removes the [user:NAME] section (its header up to the next section header; comments
/// and every other section stay as written). kNotFound if the file has no such user.
/// The new file is written next to the old one and renamed over it (atomic: a reader
/// sees the old file or the new one), under the same exclusive flock as append_user.
Status<Error<UsersFileError>> remove_user(const std::string& path, const std::string& name,
                                          FileReplacer* via = nullptr);

/// Replaces the user's password_hash (and drops its password_enc, a reversible copy of
/// the old password written by 0.7.16's panel, which would now be wrong). Same locking
/// and atomic replacement as remove_user.
Status<Error<UsersFileError>> set_user_password(const std::string& path, const std::string& name,
                                                const std::string& password_hash);

/// `qeli set-web-password`: sets `username` and `password_hash` (and `enabled = true`
/// when `enable`) in the server config's [web] section, creating the section when the
/// file has none; every other line stays as written. Same locking and atomic replacement
/// as remove_user.
Status<Error<UsersFileError>> set_web_password(const std::string& path, const std::string& username,
                                               const std::string& password_hash, bool enable);

/// `qeli set-web-totp`: sets [web] `totp_secret` (Base32), or removes it when
/// `totp_secret` is empty; every other line stays as written. Same locking and atomic
/// replacement as remove_user.
Status<Error<UsersFileError>> set_web_totp(const std::string& path, const std::string& totp_secret);

/// One key of a section to set: every line of `key` gives way to one `key = value` line per
/// value, at the place of its first line (else after the section's last key line); no
/// values = the key's lines are removed.
struct KeyLines {
  std::string key;
  std::vector<std::string> values;
};
/// Judges a users file's whole new text before it is written: the refusal's words, or
/// nullopt to write it.
using UsersFileCheck = std::function<std::optional<std::string>(const std::string& text)>;

/// edit-user: sets `keys` in the user's section; its other keys, its comments and every
/// other section stay as written. A value with a control character (a line break would
/// start another key) is kInvalid, as is a text `check` refuses — and then nothing is
/// written. `check` runs under the file's lock, on the exact bytes that would be written.
/// Same locking and atomic replacement as remove_user.
Status<Error<UsersFileError>> set_user_keys(const std::string& path, const std::string& name,
                                            const std::vector<KeyLines>& keys,
                                            const UsersFileCheck& check,
                                            FileReplacer* via = nullptr);

/// Adds `device.<id> = <name> <phc>` to the user's section (add-device). kExists if the
/// user has the id already; kNotFound without the user. Same locking and atomic
/// replacement as remove_user.
Status<Error<UsersFileError>> add_device(const std::string& path, const std::string& user,
                                         const DeviceCredential& device,
                                         FileReplacer* via = nullptr);

/// Removes the user's `device.<id>` line (revoke-device). kNotFound if there is none.
Status<Error<UsersFileError>> remove_device(const std::string& path, const std::string& user,
                                            const std::string& id, FileReplacer* via = nullptr);

}  // namespace qeli::config
