#include "panel/answers.h"

#include <charconv>

#include "panel/html.h"

namespace qeli::panel {

using nlohmann::json;

HttpResponse problem(int status, std::string_view title, std::string_view detail) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/problem+json";
  json j = {{"type", "about:blank"}, {"title", title}, {"status", status}};
  if (!detail.empty()) j["detail"] = detail;
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

int http_status_of(control::ErrorCode code) {
  using control::ErrorCode;
  switch (code) {
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kConflict: return 409;
    case ErrorCode::kInvalid: return 422;
    case ErrorCode::kBadRequest: return 400;
    case ErrorCode::kForbidden: return 403;
    case ErrorCode::kUnavailable: return 503;
    case ErrorCode::kUnknownCommand:
    case ErrorCode::kInternal: break;
  }
  return 502;
}

HttpResponse refusal(control::ErrorCode code, std::string_view detail) {
  const int status = http_status_of(code);
  std::string_view title = "Bad Gateway";
  switch (status) {
    case 400: title = "Bad Request"; break;
    case 403: title = "Forbidden"; break;
    case 404: title = "Not Found"; break;
    case 409: title = "Conflict"; break;
    case 422: title = "Unprocessable Content"; break;
    case 503: title = "Service Unavailable"; break;
    default: break;
  }
  return problem(status, title, detail);
}

HttpResponse plain(int status, std::string_view text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::string(text) + "\n";
  return r;
}

HttpResponse redirect(const std::string& to) {
  HttpResponse r;
  r.status = 303;
  r.add("Location", to);
  return r;
}

HttpResponse json_answer(const json& j) {
  HttpResponse r;
  r.content_type = "application/json";
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

HttpResponse server_unavailable(const std::string& base, const std::string& error, Lang lang) {
  HttpResponse r;
  r.status = 502;
  r.body = render_page(
      {tr(lang, "Server unavailable"), base, "", "", NavItem::kNone, 0, lang, ""},
      "<p class=\"err\">" +
          tr_html(lang, "The VPN server did not answer: {error}", {{"error", error}}) + "</p>");
  return r;
}

std::string unexpected_value(Lang lang, std::string_view field) {
  return tr_html(lang, "The form's field {field} has a value no page of this panel offers.",
                 {{"field", field}});
}

std::string state_off_reason(Lang lang, std::string_view why) {
  return why == kNoStateDb ? tr(lang, kNoStateDb) : std::string(why);
}

std::string loggable(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 64)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u == 0x7f ? '?' : c);
  }
  if (s.size() > 64) out += "...";
  return out;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace qeli::panel
