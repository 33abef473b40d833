// The panel's HTTP answers and its one way of asking the server: shared by the page,
// action and API routes (panel_app.cc, panel_users.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "control/api.h"
#include "panel/http_message.h"
#include "panel/i18n.h"

namespace qeli::panel {

/// RFC 9457 problem details (`application/problem+json`).
HttpResponse problem(int status, std::string_view title, std::string_view detail = {});
/// The HTTP status for a refused control request: not_found 404, conflict 409, invalid
/// 422, bad_request 400, forbidden 403, unavailable 503, anything else 502.
int http_status_of(control::ErrorCode code);
/// The server's refusal as problem details: http_status_of(code), that status's reason
/// phrase as the title, the server's message as the detail (never a secret: api.h).
HttpResponse refusal(control::ErrorCode code, std::string_view detail);
HttpResponse plain(int status, std::string_view text);
/// 303 See Other to `to` (a path this panel built, never one from the request).
HttpResponse redirect(const std::string& to);
HttpResponse json_answer(const nlohmann::json& j);
/// The sentence (HTML) for a form field whose value no page of the panel offers (a hand-made
/// or damaged request): `field` is the field's name.
std::string unexpected_value(Lang lang, std::string_view field);
/// Why a store of the state_db is missing (PanelApp's set_tokens, set_admins,
/// set_traffic): no file configured, or the database's own error after "[web] state_db: ".
inline constexpr std::string_view kNoStateDb = "[web] state_db is empty";
/// That reason for a page in `lang`: kNoStateDb in the page's words, the database's error
/// (SQLite's words) as it is. Text (the caller escapes).
std::string state_off_reason(Lang lang, std::string_view why);
/// The 502 page when the VPN server does not answer.
HttpResponse server_unavailable(const std::string& base, const std::string& error, Lang lang);

/// A value from a request for the log: control characters shown as '?', at most 64
/// characters (a user name with a newline must not forge log lines).
std::string loggable(std::string_view s);
/// A whole decimal number, or nullopt.
std::optional<std::uint64_t> parse_u64(std::string_view s);

/// Calls the server; on a refusal `error` gets its message (and `code` its code).
template <class Req>
std::optional<typename Req::Reply> ask(control::ControlService& server, const Req& req,
                                       std::string& error, control::ErrorCode* code = nullptr) {
  auto r = control::call(server, req);
  if (!r.ok()) {
    error = r.error().message;
    if (code != nullptr) *code = r.error().code;
    return std::nullopt;
  }
  return std::move(*r);
}

}  // namespace qeli::panel
