// RecordReader: a streaming deframer for TCP. Bytes arrive split at ANY boundary; whole
// records (header included) come out. docs/PROTOCOL.md "Record deframing".
//
// Framing::kTls: header = type(1) ‖ 03 0x(2) ‖ len_be16, x ∈ {1,2,3} (the content type is
// the consumer's business: the handshake expects 16/14/17, PacketCodec::open only 17).
// Framing::kRaw: header = len_be16.
// A header whose length exceeds `max_payload` is a hostile or broken peer: the reader
// enters a sticky error state with a reason and the connection must be closed.
//
// Buffer ownership: the reader owns a fixed buffer (2 × the largest record) allocated
// once in the constructor. Use either
//   * feed(bytes) — copies what fits and returns how much it took; or
//   * write_space() + commit(n) — recv() straight into the reader (no extra copy).
// next() returns a span INTO the reader's buffer, valid until the next non-const call;
// open it in place with PacketCodec::open_in_place.
#pragma once

#include <cstdint>
#include <memory>

#include "base/bytes.h"
#include "wire/limits.h"
#include "wire/packet_codec.h"

namespace qeli::wire {

enum class DeframeError : std::uint8_t {
  kNone,
  kRecordTooLarge,  ///< header length > max_payload
  kBadVersion,      ///< Tls framing: record version byte is not 03 01..03 03
};
const char* to_string(DeframeError e);

class RecordReader {
 public:
  /// `max_payload` is the largest header length accepted (kMaxRecordPayload for data
  /// records, kMaxHandshakeRecordPayload for the handshake flight).
  RecordReader(Framing framing, std::size_t max_payload);

  enum class Status : std::uint8_t { kRecord, kNeedMore, kError };
  struct Next {
    Status status;
    MutableByteSpan record;  ///< one whole record when status == kRecord
  };

  /// Copies as many bytes of `in` as fit and returns that count. Call next() until it
  /// says kNeedMore before feeding the rest. Returns 0 once in the error state.
  std::size_t feed(ByteSpan in);
  /// Free space to receive into (never empty unless the reader is in the error state or
  /// a whole record is waiting to be taken by next()).
  MutableByteSpan write_space();
  /// Marks `n` bytes of write_space() as received (n ≤ write_space().size()).
  void commit(std::size_t n);

  Next next();
  /// feed() and next() in one: feeds from `in`, advancing it past what was taken, until a
  /// whole record is ready (kRecord), the framing is bad (kError) or `in` is used up
  /// without completing one (kNeedMore). The record is valid until the next feed.
  Next next_from(ByteSpan& in);

  DeframeError error() const { return error_; }
  /// Bytes received but not yet returned as a record (e.g. to hand to the next stage).
  ByteSpan buffered() const;
  Framing framing() const { return framing_; }

 private:
  void compact();

  Framing framing_;
  std::size_t max_payload_;
  std::size_t capacity_;
  std::unique_ptr<std::uint8_t[]> buf_;
  std::size_t read_ = 0;   // start of unconsumed bytes
  std::size_t write_ = 0;  // end of received bytes
  DeframeError error_ = DeframeError::kNone;
};

}  // namespace qeli::wire
