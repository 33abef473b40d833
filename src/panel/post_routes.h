// Every state-changing (POST) route of the panel in one table. PanelApp::route() answers
// 404 to a POST whose path is not in it before any handler runs, so a handler added
// without an entry here is unreachable — and the table-driven security test
// (tests/unit/panel/panel_post_routes_test.cc) walks this table, so no entry escapes its
// CSRF and stale-session checks.
#pragma once

#include <span>
#include <string_view>

namespace qeli::panel {

struct PostRoute {
  std::string_view path;  ///< without base_path
  /// false only for /login: no session yet (its defences are the Origin check, the
  /// lockout and the password); every other route needs the session and its CSRF token.
  bool needs_session = true;
};

/// The table, forms first, then the JSON API (/api/v1/…).
std::span<const PostRoute> post_routes();

/// Whether `path` is one of post_routes().
bool is_post_route(std::string_view path);

}  // namespace qeli::panel
