// The panel's page bodies, rendered from the control API's answers (control/api.h): pure
// functions of their inputs, so a page is unit-tested from a fake server's answer. Every
// value from the answers is escaped (panel/html.h); buttons that change something are
// POST forms that carry the session's CSRF token.
#pragma once

#include <string>

#include "control/api.h"

namespace qeli::panel {

struct PageContext {
  std::string base;     ///< base_path
  std::string csrf;     ///< the session's CSRF token
  std::string message;  ///< a one-line result of the last action ("" = none), escaped
  std::int64_t now_unix = 0;
};

std::string login_content(const std::string& base, const std::string& error);
std::string dashboard_content(const PageContext& c, const control::StatsSnapshot& stats,
                              const control::SessionList& sessions,
                              const control::EventList& events);
std::string sessions_content(const PageContext& c, const control::SessionList& sessions);
std::string users_content(const PageContext& c, const control::UserList& users,
                          const control::UsageList& usage);
std::string blocked_content(const PageContext& c, const control::BlockedList& blocked);
std::string events_content(const PageContext& c, const control::EventList& events);

}  // namespace qeli::panel
