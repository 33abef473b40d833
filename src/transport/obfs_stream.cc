#include "transport/obfs_stream.h"

#include <algorithm>
#include <cstring>

namespace qeli::transport {

ObfsXorStream::ObfsXorStream(std::unique_ptr<Stream> lower, const crypto::Key32& key,
                             const ObfsNonce& send_nonce, const ObfsNonce& recv_nonce,
                             Bytes leftover, std::uint64_t limit)
    : StreamLayer(std::move(lower)),
      send_(key.span(), send_nonce, limit),
      recv_(key.span(), recv_nonce, limit),
      leftover_(std::move(leftover)) {}

StreamStatus ObfsXorStream::write(std::span<MutableByteSpan> chunks) {
  if (lower_->write_pending()) return StreamStatus::kError;  // caller bug: resume() first
  for (const MutableByteSpan c : chunks) {
    if (!send_.apply(c)) {
      send_exhausted_ = true;
      return StreamStatus::kError;
    }
  }
  return lower_->write(chunks);
}

ReadResult ObfsXorStream::read(MutableByteSpan out) {
  if (out.empty()) return {StreamStatus::kOk, 0};
  ReadResult r;
  if (leftover_at_ < leftover_.size()) {
    const std::size_t n = std::min(out.size(), leftover_.size() - leftover_at_);
    std::memcpy(out.data(), leftover_.data() + leftover_at_, n);
    leftover_at_ += n;
    if (leftover_at_ == leftover_.size()) {
      Bytes().swap(leftover_);
      leftover_at_ = 0;
    }
    r = {StreamStatus::kOk, n};
  } else {
    r = lower_->read(out);
    if (r.status != StreamStatus::kOk) return r;
  }
  if (!recv_.apply(out.first(r.bytes))) {
    recv_exhausted_ = true;
    return {StreamStatus::kError};
  }
  return r;
}

std::string ObfsXorStream::failure() const {
  if (send_exhausted_ || recv_exhausted_) {
    return "obfs keystream limit (256 GiB in one direction) reached";
  }
  return lower_->failure();
}

}  // namespace qeli::transport
