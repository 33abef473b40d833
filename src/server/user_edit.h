// edit-user's request as users-file lines: which keys of the user's section change, and
// to what. Pure (no file, no config loading): UserAdmin::edit_user writes the lines
// through config::set_user_keys and judges the result as start-up would.
//
// A field equal to the user's current value (control::UserInfo, as list-users shows it)
// yields no line, so a form that sends every field leaves the untouched keys as written.
// A default value (0, "", an empty list, enabled = true) removes the key: the file states
// only what differs from the default. Values are written as given (trimmed): whether
// they are valid is the config loader's call, with its own words.
#pragma once

#include <vector>

#include "base/result.h"
#include "config/users_file.h"
#include "control/api.h"

namespace qeli::server {

/// The lines to set for `edit` on a user that is `now`. kInvalid: a list element that is
/// empty or holds a ',' (it would read back as other elements), or a number that is not
/// finite.
Result<std::vector<config::KeyLines>, control::ControlError> user_key_lines(
    const control::EditUser& edit, const control::UserInfo& now);

}  // namespace qeli::server
