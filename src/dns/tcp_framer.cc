#include "dns/tcp_framer.h"

#include "base/endian.h"

namespace qeli::dns {

bool TcpDeframer::feed(ByteSpan data) {
  if (data.size() > space()) return false;
  buf_.insert(buf_.end(), data.begin(), data.end());
  return true;
}

std::optional<Bytes> TcpDeframer::next() {
  if (bad_ || buf_.size() < 2) return std::nullopt;
  const std::size_t len = load_be16(buf_.data());
  if (len == 0) {
    bad_ = true;
    buf_.clear();
    return std::nullopt;
  }
  if (buf_.size() < 2 + len) return std::nullopt;
  Bytes msg(buf_.begin() + 2, buf_.begin() + 2 + static_cast<std::ptrdiff_t>(len));
  buf_.erase(buf_.begin(), buf_.begin() + 2 + static_cast<std::ptrdiff_t>(len));
  return msg;
}

Bytes tcp_frame(ByteSpan msg) {
  Bytes out(2 + msg.size());
  store_be16(out.data(), static_cast<std::uint16_t>(msg.size()));
  std::copy(msg.begin(), msg.end(), out.begin() + 2);
  return out;
}

}  // namespace qeli::dns
