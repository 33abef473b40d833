// A test-only outer layer (transport/stream.h), to show and check that a new layer is
// one Stream class, one StreamSetup and one ModeSpec row — nothing else changes.
//
//   set-up:  client → "XOR?"   server → "XOR!"       (then data; bytes past a magic are
//                                                       the layer's leftover)
//   frame:   len_be16 ‖ payload XOR kXorKey ‖ 0x5A     (head 2, tail 1, payload ≤ 4096)
//
// The frame is written in place into the room the caller reserved (Overhead{2, 1, 4096}
// on top of the stream below), and its small max_chunk makes the record sender size
// records and GSO chunks to the carrier. Not a cipher: it only has to be a layer.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "base/endian.h"
#include "transport/stream.h"
#include "transport/stream_setup.h"

namespace qeli::test {

inline constexpr std::uint8_t kXorKey = 0xA7;
inline constexpr std::uint8_t kXorTrailer = 0x5A;
inline constexpr std::size_t kXorHead = 2;
inline constexpr std::size_t kXorTail = 1;
inline constexpr std::size_t kXorMaxChunk = 4096;

class XorStream final : public transport::Stream {
 public:
  /// Over `lower` (owned); `leftover` = bytes of this layer already read from it.
  XorStream(std::unique_ptr<transport::Stream> lower, ByteSpan leftover)
      : lower_(std::move(lower)),
        overhead_(lower_->overhead().with_layer(kXorHead, kXorTail, kXorMaxChunk)),
        in_(2 * (kXorHead + kXorMaxChunk + kXorTail)) {
    std::copy(leftover.begin(), leftover.end(), in_.begin());  // < one buffer, by the set-up
    end_ = leftover.size();
  }

  int fd() const override { return lower_->fd(); }
  transport::Overhead overhead() const override { return overhead_; }
  transport::StreamStatus write(std::span<MutableByteSpan> chunks) override {
    for (MutableByteSpan& c : chunks) {
      if (c.size() > kXorMaxChunk) return transport::StreamStatus::kError;  // caller bug
      std::uint8_t* p = c.data();
      store_be16(p - kXorHead, static_cast<std::uint16_t>(c.size()));
      for (std::size_t i = 0; i < c.size(); ++i) p[i] ^= kXorKey;
      p[c.size()] = kXorTrailer;
      c = MutableByteSpan(p - kXorHead, kXorHead + c.size() + kXorTail);
    }
    return lower_->write(chunks);
  }
  transport::StreamStatus resume() override { return lower_->resume(); }
  bool write_pending() const override { return lower_->write_pending(); }

  transport::ReadResult read(MutableByteSpan out) override {
    std::size_t got = 0;
    while (got < out.size()) {
      if (left_ > 0 && begin_ < end_) {  // payload of the current frame
        const std::size_t n = std::min({left_, end_ - begin_, out.size() - got});
        for (std::size_t i = 0; i < n; ++i) out[got + i] = in_[begin_ + i] ^ kXorKey;
        got += n;
        begin_ += n;
        left_ -= n;
        continue;
      }
      if (left_ == 0 && in_frame_ && begin_ < end_) {  // the trailer
        if (in_[begin_++] != kXorTrailer) return {transport::StreamStatus::kError};
        in_frame_ = false;
        continue;
      }
      if (!in_frame_ && end_ - begin_ >= kXorHead) {  // the next header
        left_ = load_be16(&in_[begin_]);
        begin_ += kXorHead;
        if (left_ == 0 || left_ > kXorMaxChunk) return {transport::StreamStatus::kError};
        in_frame_ = true;
        continue;
      }
      // Need bytes from below: compact, then one read.
      std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      const transport::ReadResult r = lower_->read({in_.data() + end_, in_.size() - end_});
      if (r.status != transport::StreamStatus::kOk) {
        if (got > 0) break;
        return r;
      }
      end_ += r.bytes;
    }
    return {transport::StreamStatus::kOk, got};
  }

 private:
  std::unique_ptr<transport::Stream> lower_;
  transport::Overhead overhead_;
  Bytes in_;               // bytes from below not yet delivered
  std::size_t begin_ = 0;  // [begin_, end_) of in_ are pending
  std::size_t end_ = 0;
  std::size_t left_ = 0;   // payload bytes of the current frame still to deliver
  bool in_frame_ = false;  // a header was read and its trailer not yet
};

/// The layer's set-up flight; `client` speaks first.
class XorSetup final : public transport::StreamSetup {
 public:
  explicit XorSetup(bool client) : client_(client) {}

  void start(Instant now) override {
    deadline_ = now + std::chrono::seconds(5);
    if (client_) out_.push_back({Bytes{'X', 'O', 'R', '?'}, {}});
  }
  void on_bytes(ByteSpan in, Instant) override {
    if (state_ == transport::SetupState::kFailed) return;
    if (state_ == transport::SetupState::kDone) {
      append(leftover_, in);
      return;
    }
    append(got_, in);
    if (got_.size() < 4) return;
    const Bytes expect = client_ ? Bytes{'X', 'O', 'R', '!'} : Bytes{'X', 'O', 'R', '?'};
    if (!std::equal(expect.begin(), expect.end(), got_.begin())) {
      fail("bad magic");
      return;
    }
    leftover_.assign(got_.begin() + 4, got_.end());
    if (!client_) out_.push_back({Bytes{'X', 'O', 'R', '!'}, {}});
    state_ = transport::SetupState::kDone;
  }
  void on_peer_closed() override {
    if (state_ == transport::SetupState::kRunning) fail("closed during the set-up");
  }
  void on_timer(Instant now) override {
    if (state_ == transport::SetupState::kRunning && now >= deadline_) fail("timed out");
  }
  std::vector<transport::SetupOutput> take_output() override { return std::exchange(out_, {}); }
  std::optional<Instant> deadline() const override {
    if (state_ != transport::SetupState::kRunning) return std::nullopt;
    return deadline_;
  }
  transport::SetupState state() const override { return state_; }
  std::string failure() const override { return failure_; }
  std::unique_ptr<transport::Stream> into_stream(
      std::unique_ptr<transport::Stream> lower) override {
    return std::make_unique<XorStream>(std::move(lower), leftover_);
  }
  const Bytes& leftover() const { return leftover_; }

 private:
  void fail(std::string why) {
    state_ = transport::SetupState::kFailed;
    failure_ = std::move(why);
  }

  bool client_;
  transport::SetupState state_ = transport::SetupState::kRunning;
  std::string failure_;
  Instant deadline_{};
  std::vector<transport::SetupOutput> out_;
  Bytes got_, leftover_;
};

}  // namespace qeli::test
