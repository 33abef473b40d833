// How list-users shows a configured user (control::UserInfo): the config's fields only —
// the live ones (sessions, disable-user) are the caller's to fill. Shared by list-users
// and edit-user, which compares a request against it to leave unchanged keys alone.
#pragma once

#include "config/server_config.h"
#include "control/api.h"

namespace qeli::server {

/// `u` as list-users shows it; `disabled_live` and `sessions` stay at their defaults.
control::UserInfo user_info(const config::UserConfig& u);

}  // namespace qeli::server
