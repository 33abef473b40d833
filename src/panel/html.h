// HTML for the panel's server-rendered pages: escaping and the page frame. Every value
// that did not come from this file goes through escape() — user names, metadata, event
// reasons, addresses — so a stored value is text, never markup (the CSP forbids scripts
// besides: panel/security_headers.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "panel/i18n.h"

namespace qeli::panel {

/// Escapes & < > " ' for text and double- or single-quoted attribute values (HTML
/// Living Standard §13.1.2.6 ambiguous ampersands included).
std::string escape(std::string_view text);

enum class NavItem {
  kDashboard,
  kSessions,
  kUsers,
  kBlocked,
  kEvents,
  kConfig,
  kTokens,
  kAudit,
  kWebhooks,
  kLogs,
  kAdmins,
  kAccount,
  kNone
};

struct PageFrame {
  std::string title;
  std::string base;   ///< base_path ("" or "/panel"): every link and form starts with it
  std::string admin;  ///< shown in the header; empty on the login page (no navigation)
  std::string csrf;   ///< the session's CSRF token (for the logout form)
  NavItem active = NavItem::kNone;
  int refresh_secs = 0;  ///< > 0: the page reloads itself (no script needed)
  Lang lang = Lang::kEn;
  /// Where the header's language switch returns to (a path without base_path, with its
  /// query); empty: no switch (the 502 page).
  std::string here;
};

/// A whole document: doctype, head (the embedded stylesheet), header and navigation,
/// `content` (already HTML), footer.
std::string render_page(const PageFrame& frame, std::string_view content);

/// A POST form with one button and hidden fields (CSRF token first). Values escaped.
std::string post_button(
    const std::string& base, std::string_view action, std::string_view csrf, std::string_view label,
    std::initializer_list<std::pair<std::string_view, std::string_view>> fields = {},
    bool danger = false);

/// A table cell of `text` (escaped); td_num: right-aligned, `text` already HTML-safe.
std::string td(std::string_view text);
std::string td_num(std::string_view text);
/// A table's header row of `labels` translated; a label that starts with '#' is a number
/// column (right-aligned, the '#' not shown); "" is an empty cell.
std::string th_row(Lang lang, std::initializer_list<std::string_view> labels);
/// `<p class="msg">message</p>` (escaped), or nothing for an empty message.
std::string message_paragraph(std::string_view message);
/// "2026-12-07 01:02:03" for a UNIX time (UTC).
std::string human_time_utc(std::int64_t unix_secs);

/// The stylesheet served at <base>/assets/panel.css (embedded: no CDN, no file on disk).
std::string_view stylesheet();

}  // namespace qeli::panel
