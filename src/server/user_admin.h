// UserAdmin: the control API's changes to users and devices (add-user, remove-user,
// edit-user, add-device, revoke-device), which the panel uses. The same edits as the `qeli`
// commands (config/users_file.h: locked, atomic, 0.7.16's format), made by the server so
// that the panel — unprivileged, with no access to the users file — never writes a file:
//
//   1. the config is read again from disk (the file is the truth; a config with errors
//      refuses the change, as check-config would);
//   2. the users file is edited (only users that live there: inline users are refused);
//      edit-user first judges the new file as start-up would (nothing is written when the
//      loader finds an error);
//   3. the server reloads, as SIGHUP does — which ends the sessions of a removed user or a
//      revoked device (server/reload_verdict.h).
//
// A device's link is built from the running profile's identity key, so it pins the key
// the server actually serves. The credential is in the answer only (the file keeps its
// Argon2id hash). One change at a time (a mutex): two admins adding the same name get
// one success and one kConflict.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/users_file.h"
#include "control/api.h"
#include "crypto/random.h"
#include "server/profile_runtime.h"

namespace qeli::server {

class UserAdmin {
 public:
  using Reload = std::function<control::ValidationResult()>;
  /// `via`: who replaces the users file (the file steward after a privilege drop); null =
  /// this process.
  UserAdmin(std::string config_path, const std::vector<std::unique_ptr<ProfileRuntime>>* profiles,
            Reload reload, crypto::Rng& rng = crypto::system_rng(),
            config::FileReplacer* via = nullptr);

  Result<control::UserChanged, control::ControlError> add_user(const control::AddUser& r);
  Result<control::UserChanged, control::ControlError> remove_user(const control::RemoveUser& r);
  Result<control::UserChanged, control::ControlError> edit_user(const control::EditUser& r);
  Result<control::DeviceIssued, control::ControlError> add_device(const control::AddDevice& r);
  Result<control::UserChanged, control::ControlError> revoke_device(const control::RevokeDevice& r);

 private:
  using FileEdit = std::function<Status<Error<config::UsersFileError>>(
      const std::string& path, const config::UserConfig& user)>;
  /// remove-user, edit-user, revoke-device: `edit` on the users file of a user that lives
  /// there, then the reload.
  Result<control::UserChanged, control::ControlError> edit_file_user(const std::string& name,
                                                                     const FileEdit& edit);

  std::string config_path_;
  const std::vector<std::unique_ptr<ProfileRuntime>>* profiles_;
  Reload reload_;
  crypto::Rng& rng_;
  config::FileReplacer* via_;
  std::mutex mu_;
};

}  // namespace qeli::server
