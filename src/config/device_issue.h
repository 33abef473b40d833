// Issuing a device credential (config/device_credential.h) into the users file: the one
// path for `qeli add-device` and the control API's add-device (the panel).
#pragma once

#include <string>

#include "base/result.h"
#include "config/file_replacer.h"
#include "config/server_config.h"
#include "crypto/random.h"

namespace qeli::config {

struct IssuedDevice {
  std::string id;          ///< 8 hex digits, new among the user's devices
  std::string name;        ///< as asked
  std::string credential;  ///< qd1.<id>.<secret>: shown once, never stored
};

enum class DeviceIssueError {
  kBadName,  ///< not 1..64 of letters, digits, - _ . @
  kExists,   ///< the user has a device of that name
  kHash,     ///< Argon2id failed (memory)
  kFile,     ///< the users file refused (config::UsersFileError in the detail)
};

/// Adds a device called `name` to `user` (who lives in `users_file`): a fresh id and
/// secret, the Argon2id hash of the credential written under the user's section
/// (config::add_device: locked, atomic). Error: one sentence — a name that is not an
/// object name or that the user already has, a failed hash, the file's error.
Result<IssuedDevice, Error<DeviceIssueError>> issue_device(const std::string& users_file,
                                                           const UserConfig& user,
                                                           const std::string& name,
                                                           crypto::Rng& rng,
                                                           FileReplacer* via = nullptr);

}  // namespace qeli::config
