#include "transport/obfs_stream.h"

#include <algorithm>
#include <cstring>

namespace qeli::transport {

void ObfsRecordWalker::header_done() {
  in_header_ = 0;
  // TLS record versions are 03 01..03 03: anything else means these are not the records
  // we think (never between two of ours). Stop following; every byte keeps the keystream.
  if (hdr_[1] != 0x03) {
    mode_ = Mode::kUntracked;
    switching_ = false;
    return;
  }
  body_left_ = (std::size_t{hdr_[3]} << 8) | hdr_[4];
  if (switching_) {
    mode_ = Mode::kHeadersOnly;  // this record's body already skips the keystream
    switching_ = false;
  }
}

bool ObfsRecordWalker::seal(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data,
                            bool switch_now, bool& switched) {
  return walk(ks, data, true, switch_now, switched);
}

bool ObfsRecordWalker::open(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data,
                            bool accept_switch, bool& switched) {
  return walk(ks, data, false, accept_switch, switched);
}

// One loop for both directions: they differ only in whether the header bytes are
// plaintext before the keystream (sealing) or after it (opening), and in which way the
// switch type is swapped.
bool ObfsRecordWalker::walk(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data, bool sealing,
                            bool allow_switch, bool& switched) {
  std::size_t i = 0;
  while (i < data.size()) {
    if (mode_ == Mode::kUntracked) return ks.apply(data.subspan(i));
    if (body_left_ > 0) {
      const std::size_t n = std::min(body_left_, data.size() - i);
      if (mode_ == Mode::kEveryByte && !ks.apply(data.subspan(i, n))) return false;
      body_left_ -= n;
      i += n;
      continue;
    }
    const bool may_switch = in_header_ == 0 && allow_switch && mode_ == Mode::kEveryByte;
    const std::uint8_t from = sealing ? kDataType : kSwitchType;
    const auto swap_type = [&] {
      if (may_switch && data[i] == from) {
        data[i] = sealing ? kSwitchType : kDataType;  // the codec above sees a data record
        switching_ = true;
        switched = true;
      }
    };
    const std::size_t n = std::min(hdr_.size() - in_header_, data.size() - i);
    if (sealing) {
      swap_type();
      std::memcpy(hdr_.data() + in_header_, data.data() + i, n);
    }
    if (!ks.apply(data.subspan(i, n))) return false;
    if (!sealing) {
      swap_type();
      std::memcpy(hdr_.data() + in_header_, data.data() + i, n);
    }
    in_header_ += n;
    i += n;
    if (in_header_ == hdr_.size()) header_done();
  }
  return true;
}

ObfsXorStream::ObfsXorStream(std::unique_ptr<Stream> lower, const crypto::Key32& key,
                             const ObfsNonce& send_nonce, const ObfsNonce& recv_nonce,
                             Bytes leftover, std::uint64_t limit, bool header_xor)
    : StreamLayer(std::move(lower)),
      send_(key.span(), send_nonce, limit),
      recv_(key.span(), recv_nonce, limit),
      send_walker_(header_xor),
      recv_walker_(header_xor),
      header_xor_(header_xor),
      leftover_(std::move(leftover)) {}

void ObfsXorStream::begin_header_only() {
  if (header_xor_) switch_requested_.store(true, std::memory_order_release);
}

StreamStatus ObfsXorStream::write(std::span<MutableByteSpan> chunks) {
  if (lower_->write_pending()) return StreamStatus::kError;  // caller bug: resume() first
  const bool switch_now = switch_requested_.load(std::memory_order_acquire);
  bool switched = false;
  for (const MutableByteSpan c : chunks) {
    if (!send_walker_.seal(send_, c, switch_now && !switched, switched)) {
      send_exhausted_ = true;
      return StreamStatus::kError;
    }
  }
  if (switched) sent_switch_.store(true, std::memory_order_release);
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
  bool switched = false;
  if (!recv_walker_.open(recv_, out.first(r.bytes), header_xor_, switched)) {
    recv_exhausted_ = true;
    return {StreamStatus::kError};
  }
  // The peer switched (only one of ours does, and only after the handshake negotiated
  // it): our direction follows with its next data record.
  if (switched) {
    saw_switch_.store(true, std::memory_order_release);
    switch_requested_.store(true, std::memory_order_release);
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
