#include "wire/record_reader.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/endian.h"

namespace qeli::wire {

const char* to_string(DeframeError e) {
  switch (e) {
    case DeframeError::kNone: return "none";
    case DeframeError::kRecordTooLarge: return "record length over the limit";
    case DeframeError::kBadVersion: return "bad record version";
  }
  return "?";
}

RecordReader::RecordReader(Framing framing, std::size_t max_payload)
    : framing_(framing),
      max_payload_(max_payload),
      capacity_(2 * (header_size(framing) + max_payload)),
      buf_(new std::uint8_t[capacity_]) {}

void RecordReader::compact() {
  if (read_ == 0) return;
  const std::size_t n = write_ - read_;
  if (n != 0) std::memmove(buf_.get(), buf_.get() + read_, n);
  read_ = 0;
  write_ = n;
}

MutableByteSpan RecordReader::write_space() {
  if (error_ != DeframeError::kNone) return {};
  // Move the partial record to the front only when the tail is too short for a whole
  // record, so in steady state most reads need no memmove.
  if (capacity_ - write_ < header_size(framing_) + max_payload_) compact();
  return {buf_.get() + write_, capacity_ - write_};
}

void RecordReader::commit(std::size_t n) {
  if (n > capacity_ - write_) std::abort();  // a caller bug: more than write_space()
  write_ += n;
}

std::size_t RecordReader::feed(ByteSpan in) {
  const MutableByteSpan space = write_space();
  const std::size_t n = std::min(space.size(), in.size());
  if (n != 0) std::memcpy(space.data(), in.data(), n);
  write_ += n;
  return n;
}

RecordReader::Next RecordReader::next() {
  if (error_ != DeframeError::kNone) return {Status::kError, {}};
  const std::size_t hdr = header_size(framing_);
  const std::size_t avail = write_ - read_;
  if (avail < hdr) return {Status::kNeedMore, {}};
  const std::uint8_t* h = buf_.get() + read_;
  std::size_t len = 0;
  if (framing_ == Framing::kTls) {
    if (h[1] != 0x03 || h[2] < 0x01 || h[2] > 0x03) {
      error_ = DeframeError::kBadVersion;
      return {Status::kError, {}};
    }
    len = load_be16(h + 3);
  } else {
    len = load_be16(h);
  }
  if (len > max_payload_) {
    error_ = DeframeError::kRecordTooLarge;
    return {Status::kError, {}};
  }
  if (avail < hdr + len) return {Status::kNeedMore, {}};
  MutableByteSpan rec(buf_.get() + read_, hdr + len);
  read_ += hdr + len;
  if (read_ == write_) read_ = write_ = 0;  // empty: restart at the front for free
  return {Status::kRecord, rec};
}

ByteSpan RecordReader::buffered() const { return {buf_.get() + read_, write_ - read_}; }

RecordReader::Next RecordReader::next_from(ByteSpan& in) {
  for (;;) {
    in = in.subspan(feed(in));
    const Next n = next();
    if (n.status != Status::kNeedMore || in.empty()) return n;
  }
}

}  // namespace qeli::wire
