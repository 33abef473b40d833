// The obfs WebSocket upgrade parsers (wire/ws_handshake.h) on any bytes: the server's
// request check and the client's response check. A 101 is only ever given to a GET of
// the secret path, and its accept key is the one for the request's key.
#include <cstdlib>
#include <string>

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
  return 0;
}
