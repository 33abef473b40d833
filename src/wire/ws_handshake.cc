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
#include "wire/http_head.h"

namespace qeli::wire {
namespace {

constexpr std::array<std::string_view, 3> kUserAgents = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
};

std::string_view as_text(ByteSpan b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

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
  const auto up = header_value(head, "upgrade");
  if (!up || !iequals(*up, "websocket")) {
    v.reject = WsReject::kNoUpgrade;
    return v;
  }
  const auto conn = header_value(head, "connection");
  if (!conn || !lists_token(*conn, "upgrade")) {
    v.reject = WsReject::kNoConnectionUpgrade;
    return v;
  }
  const auto key = header_value(head, "sec-websocket-key");
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

bool ws_response_ok(ByteSpan head_bytes, std::string_view client_key) {
  const std::string_view head = as_text(head_bytes);
  if (!head.starts_with("HTTP/1.1 101")) return false;
  const auto accept = header_value(head, "sec-websocket-accept");
  return !accept || *accept == ws_accept(client_key);
}

std::string ws_request_key(std::string_view request) {
  const auto k = header_value(request, "sec-websocket-key");
  return k ? std::string(*k) : std::string();
}

}  // namespace qeli::wire
