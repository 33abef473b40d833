// The panel's "Edit user" form (GET /users/edit?user=NAME, POST /users/edit): its fields
// as the admin typed them, filled from the user's current values (list-users) or from a
// refused POST — so a refusal shows the server's words above what the admin entered,
// not the old values. Pure, like panel/pages.h; every value is HTML-escaped.
#pragma once

#include <string>

#include "base/result.h"
#include "control/api.h"
#include "panel/form.h"
#include "panel/pages.h"

namespace qeli::panel {

struct UserEditForm {
  std::string user;
  std::string group, static_ip, max_sessions, profiles;  ///< profiles: comma-separated
  std::string routes;                                    ///< one route per line
  std::string allowed_networks;                          ///< comma-separated
  std::string bandwidth_limit_mbps, data_limit_gb;
  std::string expire_at;  ///< unix seconds; empty = never
  bool enabled = true;
  std::string error;  ///< shown above the fields (the server's refusal); empty = none
};

/// The form over the user's current values.
UserEditForm edit_form_of(const control::UserInfo& u);
/// The form as it was posted (`enabled`: the checkbox, absent when unchecked).
UserEditForm edit_form_posted(const FormFields& form);
/// The request the form asks for (every field given: the server leaves unchanged ones
/// alone), or which field is not a number, in `lang` (text: the form escapes it).
Result<control::EditUser, std::string> edit_request_of(const UserEditForm& f, Lang lang);
/// The page's content.
std::string user_edit_content(const PageContext& c, const UserEditForm& f);

}  // namespace qeli::panel
