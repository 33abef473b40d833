// Bounds-checked cursor over hostile input (ByteReader) and an appending writer with
// length back-patching (ByteWriter), for the handshake message codecs. Every ByteReader
// read checks the remaining length first and fails (returns false, consumes nothing)
// instead of reading past the end; a failed reader stays failed.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "base/bytes.h"
#include "base/endian.h"

namespace qeli::wire {

class ByteReader {
 public:
  explicit ByteReader(ByteSpan in) : in_(in) {}

  bool u8(std::uint8_t& v) {
    if (!need(1)) return false;
    v = in_[pos_++];
    return true;
  }
  bool u16(std::uint16_t& v) {
    if (!need(2)) return false;
    v = load_be16(in_.data() + pos_);
    pos_ += 2;
    return true;
  }
  bool u24(std::uint32_t& v) {
    if (!need(3)) return false;
    v = load_be24(in_.data() + pos_);
    pos_ += 3;
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (!need(4)) return false;
    v = load_be32(in_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool bytes(std::size_t n, ByteSpan& out) {
    if (!need(n)) return false;
    out = in_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  /// A vector with a 1- or 2-byte length prefix (TLS `opaque x<0..2^8-1>` etc.).
  bool vec8(ByteSpan& out) {
    std::uint8_t n = 0;
    return u8(n) && bytes(n, out);
  }
  bool vec16(ByteSpan& out) {
    std::uint16_t n = 0;
    return u16(n) && bytes(n, out);
  }
  bool vec24(ByteSpan& out) {
    std::uint32_t n = 0;
    return u24(n) && bytes(n, out);
  }
  bool skip(std::size_t n) {
    ByteSpan ignored;
    return bytes(n, ignored);
  }
  std::size_t remaining() const { return failed_ ? 0 : in_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  bool failed() const { return failed_; }

 private:
  bool need(std::size_t n) {
    if (failed_ || in_.size() - pos_ < n) {
      failed_ = true;
      return false;
    }
    return true;
  }
  ByteSpan in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) {
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
    out_.push_back(static_cast<std::uint8_t>(v));
  }
  void u24(std::uint32_t v) {
    u8(static_cast<std::uint8_t>(v >> 16));
    u16(static_cast<std::uint16_t>(v));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v >> 16));
    u16(static_cast<std::uint16_t>(v));
  }
  void bytes(ByteSpan b) { append(out_, b); }
  /// length(2) ‖ b: the writer's side of ByteReader::vec16. The caller bounds `b` to
  /// 65535 bytes (only the low 16 bits of a longer length would be written).
  void vec16(ByteSpan b) {
    u16(static_cast<std::uint16_t>(b.size()));
    bytes(b);
  }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }

  /// Reserves a `width`-byte (1, 2 or 3) length field; fill it with close_length().
  std::size_t open_length(int width) {
    const std::size_t at = out_.size();
    out_.insert(out_.end(), static_cast<std::size_t>(width), 0);
    return at;
  }
  /// Writes the number of bytes appended since open_length(at). A length that does not
  /// fit is our bug (we only build bounded messages) and aborts.
  void close_length(std::size_t at, int width) {
    const std::size_t n = out_.size() - at - static_cast<std::size_t>(width);
    if (width == 1) {
      if (n > 0xFF) std::abort();
      out_[at] = static_cast<std::uint8_t>(n);
    } else if (width == 2) {
      if (n > 0xFFFF) std::abort();
      store_be16(out_.data() + at, static_cast<std::uint16_t>(n));
    } else {
      if (n > 0xFFFFFF) std::abort();
      store_be24(out_.data() + at, static_cast<std::uint32_t>(n));
    }
  }
  std::size_t size() const { return out_.size(); }

 private:
  Bytes& out_;
};

}  // namespace qeli::wire
