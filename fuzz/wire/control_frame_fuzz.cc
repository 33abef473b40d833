// Control frames (ours included): parse any plaintext; a valid typed frame must rebuild to
// the same bytes.
#include <cstdlib>
#include <cstring>

#include "wire/control_frame.h"
#include "wire/session_close.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  auto f = wire::parse_control_frame(in);
  if (!f.ok()) return 0;
  const std::size_t frame_len = wire::kCtrlHeaderSize + f->body.size();
  if (frame_len > size) std::abort();
  if (auto info = wire::parse_client_info(*f); info.ok()) {
    const Bytes b = wire::build_client_info(info->version, info->platform);
    if (b.size() != frame_len || std::memcmp(b.data(), data, frame_len) != 0) std::abort();
  }
  if (auto caps = wire::parse_capabilities(*f); caps.ok()) {
    if (wire::build_capabilities(*caps) != Bytes(data, data + frame_len)) std::abort();
  }
  if (auto why = wire::parse_session_close(*f); why.ok()) {
    // The reason is the first body byte (never 0); a 1-byte body rebuilds exactly.
    if (f->body.empty() || static_cast<std::uint8_t>(*why) != f->body[0] || f->body[0] == 0) {
      std::abort();
    }
    const Bytes b = wire::build_session_close(*why);
    if (f->body.size() == 1 && b != Bytes(data, data + frame_len)) std::abort();
    (void)wire::to_string(*why);
  }
  if (auto mtu = wire::parse_mtu_report(*f); mtu.ok()) {
    if (*mtu < wire::kMinTunnelMtu || *mtu > wire::kMaxTunnelMtu) std::abort();
  }
  return 0;
}
