// The panel's page bodies, rendered from the control API's answers (control/api.h): pure
// functions of their inputs, so a page is unit-tested from a fake server's answer. Every
// value from the answers is escaped (panel/html.h); buttons that change something are
// POST forms that carry the session's CSRF token.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "control/api.h"
#include "panel/i18n.h"
#include "panel/session_rates.h"
#include "sys/host_load.h"

namespace qeli::panel {

struct PageContext {
  std::string base;     ///< base_path
  std::string csrf;     ///< the session's CSRF token
  std::string message;  ///< a one-line result of the last action ("" = none), escaped
  Lang lang = Lang::kEn;
};

/// A user's state as the users table and the user's page say it (English: tr() it).
std::string_view user_state(const control::UserInfo& u);

/// The login form; `totp` adds the one-time code field (autocomplete one-time-code),
/// `totp_required` makes the browser insist on it (the config's owner has a second factor;
/// when only some further admins do, the others leave it empty).
std::string login_content(Lang lang, const std::string& base, const std::string& error,
                          bool totp = false, bool totp_required = true);
/// The dashboard; the live sessions with their `rates` (panel/session_pages.h).
std::string dashboard_content(const PageContext& c, const control::StatsSnapshot& stats,
                              const control::SessionList& sessions,
                              const std::vector<std::optional<SessionRate>>& rates,
                              const control::EventList& events);
/// The dashboard's host cards: CPU busy share, load averages, memory in use.
std::string host_content(Lang lang, const sys::HostLoad& host);
std::string users_content(const PageContext& c, const control::UserList& users,
                          const control::UsageList& usage);
std::string blocked_content(const PageContext& c, const control::BlockedList& blocked);
std::string events_content(const PageContext& c, const control::EventList& events);

/// The raw config editor: `text` in a textarea (the file's, or the admin's own edit
/// after a refused save), `base_sha256` of the file it started from, the findings of the
/// last validation (empty: none shown), and the saved versions with a view link each.
struct ConfigEditor {
  std::string path;
  std::string text;
  std::string base_sha256;
  std::vector<control::ConfigFinding> findings;
  bool validated = false;  ///< findings come from a validation (show "no findings" too)
  std::string error;       ///< why a save was refused ("" = none)
};
std::string config_content(const PageContext& c, const ConfigEditor& e,
                           const control::ConfigHistory& history);
/// One saved version, read-only, with a button that restores it.
std::string config_version_content(const PageContext& c, const control::ConfigText& version,
                                   const std::string& id, const std::string& current_sha256);

}  // namespace qeli::panel
