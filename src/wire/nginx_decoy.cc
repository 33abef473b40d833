#include "wire/nginx_decoy.h"

#include <array>
#include <charconv>
#include <cstdio>

#include "wire/http_head.h"

namespace qeli::wire {
namespace {

std::string_view reason(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Not Allowed";
    default: return "HTTP Version Not Supported";  // 505
  }
}

// nginx's built-in error page (ngx_http_special_response.c with server_tokens off).
std::string page(int status) {
  const std::string title = std::to_string(status) + " " + std::string(reason(status));
  return "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n<center><h1>" + title +
         "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
}

std::string response(int status, bool keep_alive, bool head_only, std::uint64_t unix_secs) {
  const std::string body = page(status);
  std::string r = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason(status)) +
                  "\r\nServer: nginx\r\nDate: " + http_date(unix_secs) +
                  "\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") + "\r\n\r\n";
  if (!head_only) r += body;
  return r;
}

// nginx's method token: upper-case letters, '_' and '-' (ngx_http_parse_request_line).
bool method_ok(std::string_view m) {
  if (m.empty() || m.size() > 32) return false;
  for (const char c : m) {
    if (!((c >= 'A' && c <= 'Z') || c == '_' || c == '-')) return false;
  }
  return true;
}

// An origin-form ("/…") or absolute-form ("http://…") request target (RFC 9112 §3.2).
bool target_ok(std::string_view t) {
  return t.starts_with('/') || t.starts_with("http://") || t.starts_with("https://");
}

struct Version {
  int major = 0, minor = 0;
};

// "HTTP/d.d" with up to 3 digits each, as nginx accepts.
bool parse_version(std::string_view v, Version& out) {
  if (!v.starts_with("HTTP/")) return false;
  v.remove_prefix(5);
  const auto dot = v.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 3 || v.size() - dot - 1 == 0 ||
      v.size() - dot - 1 > 3) {
    return false;
  }
  const auto a = std::from_chars(v.data(), v.data() + dot, out.major);
  const auto b = std::from_chars(v.data() + dot + 1, v.data() + v.size(), out.minor);
  return a.ec == std::errc{} && a.ptr == v.data() + dot && b.ec == std::errc{} &&
         b.ptr == v.data() + v.size();
}

// Every header line has a name and a ':'; nginx refuses the head otherwise.
bool header_lines_ok(std::string_view head) {
  std::size_t pos = head.find("\r\n");
  if (pos == std::string_view::npos) return false;
  pos += 2;
  while (pos + 2 <= head.size()) {
    const std::size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos || end == pos) return true;  // the blank line
    const std::string_view line = head.substr(pos, end - pos);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    pos = end + 2;
  }
  return true;
}

DecoyAnswer closing(int status, bool head_only, std::uint64_t unix_secs) {
  return DecoyAnswer{response(status, false, head_only, unix_secs), false, 0, false, status};
}

}  // namespace

DecoyAnswer nginx_answer(std::string_view head, std::uint32_t request_no, std::uint64_t unix_secs) {
  // METHOD SP+ target SP+ HTTP/d.d (nginx takes several spaces between the parts).
  std::string_view rest = first_line(head);
  const auto next_word = [&rest] {
    while (rest.starts_with(' ')) rest.remove_prefix(1);
    const std::string_view w = rest.substr(0, rest.find(' '));
    rest.remove_prefix(w.size());
    return w;
  };
  const std::string_view method = rest.substr(0, rest.find(' '));
  rest.remove_prefix(method.size());
  const std::string_view target = next_word();
  const std::string_view version = next_word();
  Version v;
  if (!method_ok(method) || !target_ok(target) || !parse_version(version, v) || v.major < 1 ||
      !next_word().empty()) {
    return closing(400, false, unix_secs);
  }
  const bool head_only = method == "HEAD";
  if (v.major > 1) return closing(505, head_only, unix_secs);
  if (!header_lines_ok(head)) return closing(400, head_only, unix_secs);
  const std::size_t hosts = header_count(head, "host");
  if (hosts > 1 || (hosts == 0 && v.minor >= 1)) return closing(400, head_only, unix_secs);

  DecoyAnswer a;
  if (const auto te = header_value(head, "transfer-encoding")) {
    if (header_count(head, "content-length") > 0) return closing(400, head_only, unix_secs);
    a.chunked_body = true;
  } else if (const auto cl = header_value(head, "content-length")) {
    std::uint64_t n = 0;
    const auto r = std::from_chars(cl->data(), cl->data() + cl->size(), n);
    if (cl->empty() || r.ec != std::errc{} || r.ptr != cl->data() + cl->size() ||
        header_count(head, "content-length") > 1) {
      return closing(400, head_only, unix_secs);
    }
    a.body_bytes = n;
  }
  const auto conn = header_value(head, "connection");
  a.keep_alive = v.minor >= 1 ? !(conn && lists_token(*conn, "close"))
                              : (conn && lists_token(*conn, "keep-alive"));
  if (request_no >= kNginxKeepaliveRequests) a.keep_alive = false;
  a.status = (method == "GET" || method == "HEAD" || method == "POST") ? 404 : 405;
  a.bytes = response(a.status, a.keep_alive, head_only, unix_secs);
  return a;
}

std::string nginx_404(std::uint64_t unix_secs) { return response(404, false, false, unix_secs); }

std::string http_date(std::uint64_t unix_secs) {
  static constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::int64_t days = static_cast<std::int64_t>(unix_secs / 86400);
  const std::int64_t tod = static_cast<std::int64_t>(unix_secs % 86400);
  // civil_from_days (H. Hinnant): March-based years put the leap day last.
  const std::int64_t z = days + 719468;
  const std::int64_t era = z / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kDays[static_cast<std::size_t>((days + 4) % 7)], static_cast<int>(d),
                kMonths[static_cast<std::size_t>(m - 1)], static_cast<int>(y),
                static_cast<int>(tod / 3600), static_cast<int>((tod % 3600) / 60),
                static_cast<int>(tod % 60));
  return buf;
}

}  // namespace qeli::wire
