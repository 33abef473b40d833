// The obfs WebSocket upgrade parsers (wire/ws_handshake.h) on any bytes: the server's
// request check and the client's response check. A 101 is only ever given to a GET of
// the secret path, and its accept key is the one for the request's key. nginx's answer
// (wire/nginx_decoy.h) to the same head is one of its four pages, with a Content-Length
// that matches the body it carries (none for HEAD), and says close whenever it means it.
#include <cstdlib>
#include <string>

#include "wire/nginx_decoy.h"
#include "wire/udp_obfs.h"
#include "wire/ws_handshake.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const crypto::Key32 key = wire::derive_obfs_key("fuzz");
  static const std::string path = wire::ws_path(key);
  const ByteSpan in(data, size);
  const std::size_t end = wire::ws_head_end(in);
  if (end > size || (end != 0 && end < 4)) std::abort();
  const ByteSpan head = end != 0 ? in.first(end) : in;
  const auto v = wire::check_ws_request(head, key);
  if (v.response) {
    const std::string text(reinterpret_cast<const char*>(head.data()), head.size());
    if (!text.starts_with("GET " + path)) std::abort();
    if (!v.response->starts_with("HTTP/1.1 101 Switching Protocols\r\n")) std::abort();
  }
  (void)wire::ws_response_ok(head, "dGhlIHNhbXBsZSBub25jZQ==");
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  const auto a = wire::nginx_answer(text, 1, 0);
  if (a.status != 400 && a.status != 404 && a.status != 405 && a.status != 505) std::abort();
  const auto split = a.bytes.find("\r\n\r\n");
  if (split == std::string::npos) std::abort();
  const std::string_view response_head(a.bytes.data(), split + 4);
  const std::size_t body = a.bytes.size() - split - 4;
  if (body != 0 && response_head.find("\r\nContent-Length: " + std::to_string(body) + "\r\n") ==
                       std::string_view::npos) {
    std::abort();
  }
  const bool says_close = response_head.find("\r\nConnection: close\r\n") != std::string_view::npos;
  if (says_close == a.keep_alive) std::abort();
  return 0;
}
