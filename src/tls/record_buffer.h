// RecordBuffer: deframes TLS records from a byte stream (RFC 8446 §5.1), sans-I/O.
//
// Bytes go in with append() (or, without a copy, write_space()/commit() for a reader
// that reads straight into it); next() hands out each complete record as a mutable view
// of the buffer, so the record can be opened (decrypted) in place. The view stays valid
// until the next call that changes the buffer (append, write_space, next, compact).
//
// Every header is checked before the body is waited for: a known content type, a
// legacy_record_version of 0x03xx, a length within the §5.1/§5.2 limits for that type
// (a plaintext handshake/alert/CCS record ≤ 2^14 and not empty, an application_data
// record ≤ 2^14+256). A bad header fails at once: nothing more is buffered for it.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/constants.h"

namespace qeli::tls {

struct RecordView {
  ContentType type;
  std::uint16_t version;
  MutableByteSpan record;  ///< header + body
  MutableByteSpan body() const { return record.subspan(kRecordHeaderSize); }
};

class RecordBuffer {
 public:
  /// `capacity`: the most bytes held (≥ one largest record). Extra input fails kTooLarge.
  explicit RecordBuffer(std::size_t capacity = 4 * kMaxReceivedRecordSize);

  /// Copies `in` into the buffer. kTooLarge when it does not fit even after compacting.
  Status<TlsError> append(ByteSpan in);
  /// Room to read into directly (at least `min` bytes if the capacity allows; compacts).
  MutableByteSpan write_space(std::size_t min = kMaxReceivedRecordSize);
  /// Marks `n` bytes of write_space() as filled.
  void commit(std::size_t n);

  /// The next complete record, nullopt if it has not fully arrived, or the header error.
  Result<std::optional<RecordView>, TlsError> next();

  /// Bytes buffered and not yet handed out by next().
  std::size_t buffered() const { return end_ - start_; }
  ByteSpan unread() const { return {buf_.data() + start_, end_ - start_}; }
  /// Takes every unread byte out (e.g. leftover handed to another layer).
  Bytes take_unread();

 private:
  void compact();
  Bytes buf_;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
};

/// Checks one record header (the rules above); `header` is 5 bytes.
Status<TlsError> check_record_header(ByteSpan header);

}  // namespace qeli::tls
