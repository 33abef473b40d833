// DNS over TCP framing (RFC 1035 §4.2.2, RFC 7766 §8): every message is preceded by its
// length as two bytes, big-endian. Sans-I/O: the caller feeds what it read and pops whole
// messages; the buffer never holds more than kCapacity bytes.
#pragma once

#include <cstddef>
#include <optional>

#include "base/bytes.h"
#include "dns/limits.h"

namespace qeli::dns {

class TcpDeframer {
 public:
  /// Two whole maximum-size messages: a reader may stop reading when space() is 0.
  static constexpr std::size_t kCapacity = 2 * (kMaxMessage + 2);

  /// How many more bytes feed() accepts.
  std::size_t space() const { return kCapacity - buf_.size(); }
  /// Appends `data`; false (and nothing appended) if it exceeds space().
  bool feed(ByteSpan data);
  /// The next whole message, or nullopt until one is complete. A zero-length message is
  /// a framing error: bad() turns true and nothing more comes out.
  std::optional<Bytes> next();
  bool bad() const { return bad_; }
  /// Bytes of an incomplete message are waiting.
  bool partial() const { return !buf_.empty(); }

 private:
  Bytes buf_;
  bool bad_ = false;
};

/// `msg` with its two-byte length in front. Precondition: msg.size() <= kMaxMessage.
Bytes tcp_frame(ByteSpan msg);

}  // namespace qeli::dns
