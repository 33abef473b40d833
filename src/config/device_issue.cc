#include "config/device_issue.h"

#include "config/device_credential.h"
#include "config/users_file.h"
#include "config/values.h"
#include "crypto/argon2id.h"

namespace qeli::config {

namespace {

Unexpected<Error<DeviceIssueError>> refuse(DeviceIssueError code, std::string detail) {
  return fail(Error<DeviceIssueError>{code, std::move(detail)});
}

}  // namespace

Result<IssuedDevice, Error<DeviceIssueError>> issue_device(const std::string& users_file,
                                                           const UserConfig& user,
                                                           const std::string& name,
                                                           crypto::Rng& rng, FileReplacer* via) {
  if (!is_valid_object_name(name)) {
    return refuse(DeviceIssueError::kBadName, "device names are 1..64 of letters, digits, - _ . @");
  }
  for (const auto& d : user.devices) {
    if (d.name == name) {
      return refuse(DeviceIssueError::kExists, user.name + " already has a device named " + name +
                                                   " (id " + d.id +
                                                   "); revoke it first or choose another name");
    }
  }
  IssuedDevice out{new_device_id(rng), name, {}};
  while (user.find_device(out.id) != nullptr) out.id = new_device_id(rng);
  out.credential = new_device_secret(out.id, rng);
  const auto hash = crypto::argon2id_hash(out.credential);
  if (!hash) return refuse(DeviceIssueError::kHash, "Argon2id hashing failed (out of memory?)");
  if (auto st = add_device(users_file, user.name, {out.id, name, *hash}, via); !st.ok()) {
    return refuse(DeviceIssueError::kFile, st.error().detail);
  }
  return out;
}

}  // namespace qeli::config
