// CaptureStream: the bottom of a transport::Stream stack that never blocks and keeps what
// reaches it — the exact bytes a stack puts on the wire, for tests that compare them with
// a reference — or, with `keep` false, only counts them (a sink for benchmarks of the
// send path without a socket). Reads find nothing (kWouldBlock); fd() is -1.
//
// Keeping appends to a Bytes (allocates); counting allocates nothing. One thread.
#pragma once

#include <cstdint>

#include "transport/stream.h"

namespace qeli::test {

class CaptureStream final : public transport::Stream {
 public:
  explicit CaptureStream(bool keep = true) : keep_(keep) {}

  int fd() const override { return -1; }
  transport::Overhead overhead() const override { return {}; }
  transport::StreamStatus write(std::span<MutableByteSpan> chunks) override {
    ++writes_;
    for (const MutableByteSpan c : chunks) {
      bytes_written_ += c.size();
      if (keep_) wire_.insert(wire_.end(), c.begin(), c.end());
    }
    return transport::StreamStatus::kOk;
  }
  transport::StreamStatus resume() override { return transport::StreamStatus::kOk; }
  bool write_pending() const override { return false; }
  transport::ReadResult read(MutableByteSpan) override {
    return {transport::StreamStatus::kWouldBlock};
  }

  /// Everything written so far, in order (empty unless `keep`).
  const Bytes& wire() const { return wire_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t writes() const { return writes_; }

 private:
  bool keep_;
  Bytes wire_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t writes_ = 0;
};

}  // namespace qeli::test
