// The WebSocket frame header parser (wire/ws_frame.h) on any bytes, both directions: a
// header that parses is within the front's limits, and re-encoding it gives the same
// bytes (for the minimal length forms our encoder writes).
#include <cstdlib>
#include <cstring>

#include "wire/ws_frame.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (bool from_client : {false, true}) {
    auto h = wire::parse_ws_header(ByteSpan(data, size), from_client);
    if (!h || !h->has_value()) continue;
    const wire::WsFrameHeader& f = **h;
    if (f.header_size > wire::kWsMaxHeader || f.header_size > size) std::abort();
    if (f.length > wire::kWsMaxPayload) std::abort();
    if (static_cast<std::uint8_t>(f.opcode) >= 0x8 && (f.length > 125 || !f.fin)) std::abort();
    if (f.masked != from_client) std::abort();
    if (!f.fin || f.header_size != wire::ws_header_size(f.length, f.masked)) continue;
    std::uint8_t again[wire::kWsMaxHeader];
    const std::size_t n =
        wire::write_ws_header(again, f.opcode, f.length, f.masked ? &f.mask : nullptr);
    if (n != f.header_size || std::memcmp(again, data, n) != 0) std::abort();
  }
  return 0;
}
