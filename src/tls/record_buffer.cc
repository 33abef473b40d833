#include "tls/record_buffer.h"

#include <cstring>

#include "base/endian.h"

namespace qeli::tls {

Status<TlsError> check_record_header(ByteSpan h) {
  if (h.size() < kRecordHeaderSize) return fail(TlsError::kDecode);
  if (h[1] != 0x03) return fail(TlsError::kProtocolVersion);
  const std::size_t len = load_be16(h.data() + 3);
  switch (static_cast<ContentType>(h[0])) {
    case ContentType::kHandshake:
    case ContentType::kAlert:
    case ContentType::kChangeCipherSpec:
      if (len == 0) return fail(TlsError::kDecode);
      if (len > kMaxPlaintext) return fail(TlsError::kRecordOverflow);
      return {};
    case ContentType::kApplicationData:
      if (len > kMaxCiphertext) return fail(TlsError::kRecordOverflow);
      return {};
    default: return fail(TlsError::kUnexpectedMessage);
  }
}

RecordBuffer::RecordBuffer(std::size_t capacity)
    : buf_(capacity < kMaxReceivedRecordSize ? kMaxReceivedRecordSize : capacity) {}

void RecordBuffer::compact() {
  if (start_ == 0) return;
  const std::size_t n = end_ - start_;
  if (n != 0) std::memmove(buf_.data(), buf_.data() + start_, n);
  start_ = 0;
  end_ = n;
}

Status<TlsError> RecordBuffer::append(ByteSpan in) {
  if (in.empty()) return {};
  if (buf_.size() - end_ < in.size()) compact();
  if (buf_.size() - end_ < in.size()) return fail(TlsError::kTooLarge);
  std::memcpy(buf_.data() + end_, in.data(), in.size());
  end_ += in.size();
  return {};
}

MutableByteSpan RecordBuffer::write_space(std::size_t min) {
  if (buf_.size() - end_ < min) compact();
  return {buf_.data() + end_, buf_.size() - end_};
}

void RecordBuffer::commit(std::size_t n) { end_ += n; }

Result<std::optional<RecordView>, TlsError> RecordBuffer::next() {
  const std::size_t have = end_ - start_;
  if (have < kRecordHeaderSize) return std::optional<RecordView>{};
  const std::uint8_t* h = buf_.data() + start_;
  auto s = check_record_header({h, kRecordHeaderSize});
  if (!s.ok()) return fail(s.error());
  const std::size_t total = kRecordHeaderSize + load_be16(h + 3);
  if (have < total) return std::optional<RecordView>{};
  RecordView v{static_cast<ContentType>(h[0]), load_be16(h + 1),
               MutableByteSpan(buf_.data() + start_, total)};
  start_ += total;
  if (start_ == end_) start_ = end_ = 0;  // cheap reset; the view's bytes are untouched
  return std::optional<RecordView>{v};
}

Bytes RecordBuffer::take_unread() {
  Bytes out(buf_.begin() + static_cast<std::ptrdiff_t>(start_),
            buf_.begin() + static_cast<std::ptrdiff_t>(end_));
  start_ = end_ = 0;
  return out;
}

}  // namespace qeli::tls
