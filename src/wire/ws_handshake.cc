#include "wire/ws_handshake.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "crypto/base64.h"
#include "crypto/ct.h"
#include "crypto/hkdf.h"
#include "crypto/sha1.h"
#include "wire/faketls_client_hello.h"

namespace qeli::wire {
namespace {

constexpr std::array<std::string_view, 3> kUserAgents = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
};

constexpr std::string_view kNginx404Body =
    "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
    "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view as_text(ByteSpan b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// The first line of `head` and the value of the first header named `name` (0.7.16
// header_value: every CRLF-separated line split at its first ':', both sides trimmed).
std::string_view first_line(std::string_view head) { return head.substr(0, head.find("\r\n")); }

std::optional<std::string_view> header(std::string_view head, std::string_view name) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = head.substr(pos, end - pos);
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
      if (iequals(trim(line.substr(0, colon)), name)) return trim(line.substr(colon + 1));
    }
    pos = end + 2;
  }
  return std::nullopt;
}

}  // namespace

std::string ws_path(const crypto::Key32& obfs_key) {
  const auto prk = crypto::hkdf_extract({}, obfs_key.span());
  std::array<std::uint8_t, 18> out{};
  (void)crypto::hkdf_expand(prk.span(), as_bytes("qeli-ws-path-v1"), out);
  return "/" + crypto::base64url_encode(out);
}

std::string ws_accept(std::string_view client_key) {
  std::string s(client_key);
  s += kWsGuid;
  const auto d = crypto::sha1(as_bytes(s));
  return crypto::base64_encode(d);
}

std::string build_ws_request(std::string_view host, const crypto::Key32& obfs_key,
                             crypto::Rng& rng) {
  std::string h(host);
  if (h.empty()) h = kDecoySniPool[rng.uniform(0, kDecoySniPool.size() - 1)];
  const std::string_view ua = kUserAgents[rng.uniform(0, kUserAgents.size() - 1)];
  std::array<std::uint8_t, 16> nonce{};
  rng.fill(nonce);
  std::string r;
  r.reserve(400);
  r += "GET " + ws_path(obfs_key) + " HTTP/1.1\r\n";
  r += "Host: " + h + "\r\n";
  r += "User-Agent: " + std::string(ua) + "\r\n";
  r += "Accept: */*\r\n";
  r += "Upgrade: websocket\r\n";
  r += "Connection: Upgrade\r\n";
  r += "Sec-WebSocket-Key: " + crypto::base64_encode(nonce) + "\r\n";
  r += "Sec-WebSocket-Version: 13\r\n\r\n";
  return r;
}

std::size_t ws_head_end(ByteSpan buf) {
  const std::string_view t = as_text(buf);
  const auto p = t.find("\r\n\r\n");
  return p == std::string_view::npos ? 0 : p + 4;
}

const char* to_string(WsReject r) {
  switch (r) {
    case WsReject::kNotGet: return "not a GET request";
    case WsReject::kWrongPath: return "not the WebSocket path";
    case WsReject::kNoUpgrade: return "no Upgrade: websocket";
    case WsReject::kNoConnectionUpgrade: return "Connection does not list upgrade";
    case WsReject::kBadKey: return "Sec-WebSocket-Key missing or not 16 bytes";
  }
  return "?";
}

WsVerdict check_ws_request(ByteSpan head_bytes, const crypto::Key32& obfs_key) {
  const std::string_view head = as_text(head_bytes);
  WsVerdict v;
  const std::string_view line = first_line(head);
  if (!line.starts_with("GET ")) return v;  // kNotGet
  std::string_view target = line.substr(4);
  target = target.substr(0, target.find_first_of(" \t"));
  const std::string expected = ws_path(obfs_key);
  // Constant time over the secret (only the length may leak, and it is fixed: 25).
  if (target.size() != expected.size() || !crypto::ct_equal(as_bytes(target), as_bytes(expected))) {
    v.reject = WsReject::kWrongPath;
    return v;
  }
  const auto up = header(head, "upgrade");
  if (!up || !iequals(*up, "websocket")) {
    v.reject = WsReject::kNoUpgrade;
    return v;
  }
  const auto conn = header(head, "connection");
  bool conn_ok = false;
  if (conn) {
    std::string_view rest = *conn;
    while (!conn_ok) {
      const auto comma = rest.find(',');
      conn_ok = iequals(trim(rest.substr(0, comma)), "upgrade");
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (!conn_ok) {
    v.reject = WsReject::kNoConnectionUpgrade;
    return v;
  }
  const auto key = header(head, "sec-websocket-key");
  const auto decoded = key ? crypto::base64_decode(*key) : std::nullopt;
  if (!decoded || decoded->size() != 16) {
    v.reject = WsReject::kBadKey;
    return v;
  }
  v.response =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Accept: " +
      ws_accept(*key) + "\r\n\r\n";
  return v;
}

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

std::string nginx_404(std::uint64_t unix_secs) {
  std::string r =
      "HTTP/1.1 404 Not Found\r\nServer: nginx\r\nDate: " + http_date(unix_secs) +
      "\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(kNginx404Body.size()) +
      "\r\nConnection: close\r\n\r\n";
  r += kNginx404Body;
  return r;
}

bool ws_response_ok(ByteSpan head_bytes, std::string_view client_key) {
  const std::string_view head = as_text(head_bytes);
  if (!head.starts_with("HTTP/1.1 101")) return false;
  const auto accept = header(head, "sec-websocket-accept");
  return !accept || *accept == ws_accept(client_key);
}

std::string ws_request_key(std::string_view request) {
  const auto k = header(request, "sec-websocket-key");
  return k ? std::string(*k) : std::string();
}

}  // namespace qeli::wire
