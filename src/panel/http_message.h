// The panel's view of one HTTP exchange, independent of the HTTP library that carried it
// (panel/http_listener.h is the only file that sees cpp-httplib). Everything the panel
// decides — routing, authentication, CSRF, pages — is a function of an HttpRequest and
// returns an HttpResponse, so it is unit-tested and fuzzed without sockets.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qeli::panel {

struct HttpRequest {
  std::string method;  ///< "GET", "POST", … (as sent)
  std::string path;    ///< the request target's path, percent-decoded, without the query
  std::string query;   ///< the raw query string (after '?'), empty if none
  /// Header fields with lower-case names, in arrival order (RFC 9110 §5.1: names are
  /// case-insensitive). A repeated field appears once per line.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;       ///< at most the listener's kMaxBody bytes
  std::string remote_ip;  ///< the TCP peer's address ("127.0.0.1", "::1")
  bool tls = false;       ///< the request came over the panel's TLS listener

  /// The first value of header `lower_name`, or empty.
  std::string_view header(std::string_view lower_name) const {
    for (const auto& [k, v] : headers)
      if (k == lower_name) return v;
    return {};
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides Content-Type
  std::string body;

  void add(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
};

}  // namespace qeli::panel
