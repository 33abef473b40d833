// The panel's live-session views (pure, like panel/pages.h): the sessions table (the
// Sessions page and the dashboard's list) with each session's current rates, and one
// session's page — its packets and bytes each way, its drop reasons and every counter
// the server reports for it (control::SessionInfo).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "control/api.h"
#include "panel/pages.h"
#include "panel/session_rates.h"

namespace qeli::panel {

/// A rate for a table cell: "1.5 MiB/s", or "–" without one (a session's first sample).
std::string human_rate(Lang lang, const std::optional<double>& bytes_per_sec);

/// The live sessions as a table, `rates` in the list's order (SessionRates::observe; a
/// shorter vector leaves the rest "–"); each session links to its own page.
std::string session_table(const PageContext& c, const control::SessionList& sessions,
                          const std::vector<std::optional<SessionRate>>& rates);

/// The Sessions page: the last action's message and session_table().
std::string sessions_content(const PageContext& c, const control::SessionList& sessions,
                             const std::vector<std::optional<SessionRate>>& rates);

/// One session: who and where, packets, bytes and rates each way, the drop reasons
/// (drop_* with what each means) and the server's full counter list; a Kick button.
std::string session_content(const PageContext& c, const control::SessionInfo& session,
                            const std::optional<SessionRate>& rate);

/// The address of a session's page: "/sessions/view?profile=…&id=…" (without base_path).
std::string session_path(const control::SessionInfo& session);

}  // namespace qeli::panel
