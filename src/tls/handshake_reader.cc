#include "tls/handshake_reader.h"

#include "base/endian.h"

namespace qeli::tls {

Status<TlsError> HandshakeReader::add(ByteSpan content) {
  if (pos_ != 0) {  // drop what next() handed out (its views end here)
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
  }
  if (buf_.size() - pos_ + content.size() > kMaxHandshakeBuffer) return fail(TlsError::kTooLarge);
  append(buf_, content);
  return {};
}

Result<std::optional<HandshakeMessage>, TlsError> HandshakeReader::next() {
  const std::size_t have = buf_.size() - pos_;
  if (have < kHandshakeHeaderSize) return std::optional<HandshakeMessage>{};
  const std::uint8_t* p = buf_.data() + pos_;
  const std::size_t len = load_be24(p + 1);
  if (len > kMaxHandshakeMessage) return fail(TlsError::kTooLarge);
  if (have < kHandshakeHeaderSize + len) return std::optional<HandshakeMessage>{};
  HandshakeMessage m{static_cast<HandshakeType>(p[0]), ByteSpan(p + kHandshakeHeaderSize, len),
                     ByteSpan(p, kHandshakeHeaderSize + len)};
  pos_ += kHandshakeHeaderSize + len;
  return std::optional<HandshakeMessage>{m};
}

void append_handshake(Bytes& out, HandshakeType type, ByteSpan body) {
  out.push_back(static_cast<std::uint8_t>(type));
  out.push_back(static_cast<std::uint8_t>(body.size() >> 16));
  out.push_back(static_cast<std::uint8_t>(body.size() >> 8));
  out.push_back(static_cast<std::uint8_t>(body.size()));
  append(out, body);
}

}  // namespace qeli::tls
