// Device credentials (docs/OPERATIONS.md "Device links"): a password generated for ONE
// device of a user, so a link can be handed out without the user's password and revoked
// alone. It travels where 0.7.16 puts a password (the link's `PASS`, AUTH's password, inside
// the encrypted channel), so any 0.7.16 client uses such a link unchanged:
//
//   qd1.<id: 8 hex digits>.<secret: 32 base64url characters (24 random bytes)>
//
// The server keeps only an Argon2id hash of the whole credential, under the user:
// `device.<id> = <name> <PHC>` in the [user:NAME] section. The id in the credential picks
// the one hash to check, so a login costs one Argon2id however many devices a user has.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "crypto/random.h"

namespace qeli::config {

inline constexpr std::string_view kDeviceCredentialPrefix = "qd1.";

struct DeviceCredential {
  std::string id;    ///< 8 lowercase hex digits
  std::string name;  ///< what the operator called it ("alice-phone"), an object name
  std::string phc;   ///< Argon2id PHC of the whole credential string
  friend bool operator==(const DeviceCredential&, const DeviceCredential&) = default;
};

/// The device id a password names, if it has the credential's exact form; nullopt for any
/// other password (which is then checked as the user's own).
std::optional<std::string> device_id_of(std::string_view password);

/// A fresh credential string for device `id` (ids: new_device_id).
std::string new_device_secret(std::string_view id, crypto::Rng& rng);
std::string new_device_id(crypto::Rng& rng);

/// True for 8 lowercase hex digits.
bool is_device_id(std::string_view id);

}  // namespace qeli::config
