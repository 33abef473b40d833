// The panel's user and device pages (pure, like panel/pages.h): one user's details and
// devices, the form that adds a user, and the page that shows a new device's link and
// QR code — the only time its credential is ever shown.
#pragma once

#include <string>
#include <vector>

#include "control/api.h"
#include "panel/pages.h"

namespace qeli::panel {

/// The "New user" form under the users table; `profiles`: the server's profile names.
std::string new_user_form(const PageContext& c, const std::vector<std::string>& profiles);

/// One user: properties, traffic (totals, and `traffic_chart`: HTML, the last day's chart),
/// devices (each with Revoke), the "Add a device" form (its profile list: the ones the user
/// may use; `default_host`: [web] public_host) and "Remove user". `usage` may be null (no
/// traffic yet).
std::string user_content(const PageContext& c, const control::UserInfo& user,
                         const control::UserUsage* usage, const std::vector<std::string>& profiles,
                         const std::string& default_host, const std::string& traffic_chart = {});

/// A device just issued: its link as text and as a QR code (an SVG image embedded as a
/// data: URI, allowed by the panel's CSP `img-src data:`), with the warning that this is
/// the only time it is shown.
std::string device_issued_content(const PageContext& c, const control::DeviceIssued& device);

}  // namespace qeli::panel
