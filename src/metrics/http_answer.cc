#include "metrics/http_answer.h"

#include "metrics/exposition.h"

namespace qeli::metrics {
namespace {

constexpr std::string_view kText = "text/plain; charset=utf-8";

// A token character of RFC 9110 §5.6.2 (methods are tokens).
bool tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

struct RequestLine {
  std::string_view method, path;
};

// `METHOD SP TARGET SP HTTP/1.x`; false if it is not that.
bool parse_request_line(std::string_view line, RequestLine& out) {
  const auto sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return false;
  const auto sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return false;
  out.method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  for (char c : out.method) {
    if (!tchar(c)) return false;
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  if (target.front() != '/') return false;  // origin-form only: no proxying, no `*`
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return false;
  }
  out.path = target.substr(0, target.find('?'));
  return true;
}

}  // namespace

HeadScan scan_head(std::string_view received) {
  const auto end = received.find("\r\n\r\n");
  if (end != std::string_view::npos && end + 4 <= kMaxRequestHead) return HeadScan::kComplete;
  // Some clients end lines with a bare LF (RFC 9112 §2.2 allows accepting that).
  const auto lf = received.find("\n\n");
  if (lf != std::string_view::npos && lf + 2 <= kMaxRequestHead) return HeadScan::kComplete;
  return received.size() >= kMaxRequestHead ? HeadScan::kTooLarge : HeadScan::kIncomplete;
}

std::string http_response(std::string_view status, std::string_view content_type,
                          std::string_view body, bool head_only, std::string_view extra_headers) {
  std::string out = "HTTP/1.1 " + std::string(status) + "\r\n";
  out += "Content-Type: " + std::string(content_type) + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\n";
  out += "X-Content-Type-Options: nosniff\r\n";
  out += extra_headers;
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += body;
  return out;
}

std::string answer(std::string_view received,
                   const std::function<bool(std::string& body, std::string& error)>& render) {
  const auto eol = received.find('\n');
  std::string_view line = received.substr(0, eol);
  if (line.ends_with('\r')) line.remove_suffix(1);
  RequestLine req;
  if (eol == std::string_view::npos || !parse_request_line(line, req)) {
    return http_response("400 Bad Request", kText, "bad request\n");
  }
  const bool head = req.method == "HEAD";
  if (req.method != "GET" && !head) {
    return http_response("405 Method Not Allowed", kText, "only GET and HEAD\n", false,
                         "Allow: GET, HEAD\r\n");
  }
  if (req.path != "/metrics") {
    return http_response("404 Not Found", kText, "not found: try /metrics\n", head);
  }
  std::string body, error;
  if (!render(body, error)) {
    return http_response("503 Service Unavailable", kText, error + "\n", head);
  }
  return http_response("200 OK", kContentType, body, head);
}

}  // namespace qeli::metrics
