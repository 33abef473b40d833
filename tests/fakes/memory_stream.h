// MemoryStreamPair: two connected transport::Streams in memory (what a TCP connection is
// to the layers above it), each with a real eventfd so the engine's poll() loops work on
// it unchanged: fd() is readable while bytes (or the peer's close) are waiting.
//
//   auto [a, b] = test::memory_stream_pair();           // a writes → b reads, and back
//   auto pair = test::memory_stream_pair({.max_read = 7});  // reads return ≤ 7 bytes
//
// Writes never move the caller's bytes in place (they are copied), so any room the layers
// above reserve is honoured trivially; a pipe holds up to `capacity` bytes, beyond which
// write() keeps the rest pending (kWouldBlock) and resume() waits briefly for the reader.
// close() (or destroying an end) makes the peer read kClosed after the bytes in flight.
// Thread-safe: one reader and one writer per end, as for a socket.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

#include "transport/stream.h"

namespace qeli::test {

struct MemoryStreamOptions {
  std::size_t capacity = 4 << 20;  ///< bytes one direction holds before writes pend
  std::size_t max_read = 0;        ///< > 0: every read returns at most this many bytes
};

/// One direction: bytes, a close flag, and the readiness eventfd of its reader.
class MemoryPipe {
 public:
  explicit MemoryPipe(std::size_t capacity)
      : capacity_(capacity), efd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~MemoryPipe() { ::close(efd_); }
  MemoryPipe(const MemoryPipe&) = delete;
  MemoryPipe& operator=(const MemoryPipe&) = delete;

  int fd() const { return efd_; }
  /// Appends as much of `in` as fits; returns how many bytes were taken.
  std::size_t put(ByteSpan in) {
    std::lock_guard lock(mu_);
    if (closed_) return in.size();  // the reader is gone: bytes vanish, like after RST
    const std::size_t n = std::min(in.size(), capacity_ - std::min(capacity_, bytes_.size()));
    bytes_.insert(bytes_.end(), in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
    if (n > 0) signal();
    return n;
  }
  /// Takes up to out.size() bytes; 0 and `closed` when nothing is left.
  std::size_t take(MutableByteSpan out, bool& closed) {
    std::lock_guard lock(mu_);
    const std::size_t n = std::min(out.size(), bytes_.size());
    std::copy_n(bytes_.begin(), n, out.begin());
    bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(n));
    closed = closed_ && bytes_.empty();
    if (bytes_.empty() && !closed_) unsignal();
    room_.notify_all();
    return n;
  }
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    signal();
    room_.notify_all();
  }
  /// Waits up to `d` for room (a writer with bytes pending).
  void wait_for_room(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    room_.wait_for(lock, d, [&] { return closed_ || bytes_.size() < capacity_; });
  }
  bool closed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }

 private:
  void signal() {
    if (!signaled_) {
      const std::uint64_t one = 1;
      (void)!::write(efd_, &one, sizeof one);
      signaled_ = true;
    }
  }
  void unsignal() {
    if (signaled_) {
      std::uint64_t v = 0;
      (void)!::read(efd_, &v, sizeof v);
      signaled_ = false;
    }
  }

  const std::size_t capacity_;
  const int efd_;
  mutable std::mutex mu_;
  std::condition_variable room_;
  std::deque<std::uint8_t> bytes_;
  bool closed_ = false;
  bool signaled_ = false;
};

class MemoryStream final : public transport::Stream {
 public:
  MemoryStream(std::shared_ptr<MemoryPipe> in, std::shared_ptr<MemoryPipe> out,
               MemoryStreamOptions o)
      : in_(std::move(in)), out_(std::move(out)), o_(o) {}
  ~MemoryStream() override { close(); }
  MemoryStream(MemoryStream&&) = default;

  /// The peer reads kClosed once it has what was written; our reads end too.
  void close() {
    if (out_) out_->close();
    if (in_) in_->close();
  }

  int fd() const override { return in_->fd(); }
  transport::Overhead overhead() const override { return {}; }
  transport::StreamStatus write(std::span<MutableByteSpan> chunks) override {
    if (!pending_.empty()) return transport::StreamStatus::kError;  // contract: resume first
    if (out_->closed()) return transport::StreamStatus::kClosed;
    for (const MutableByteSpan& c : chunks) pending_.insert(pending_.end(), c.begin(), c.end());
    return flush();
  }
  transport::StreamStatus resume() override {
    if (!pending_.empty()) out_->wait_for_room(std::chrono::milliseconds(5));
    return flush();
  }
  bool write_pending() const override { return !pending_.empty(); }
  transport::ReadResult read(MutableByteSpan out) override {
    if (o_.max_read > 0 && out.size() > o_.max_read) out = out.first(o_.max_read);
    bool closed = false;
    const std::size_t n = in_->take(out, closed);
    if (n > 0) return {transport::StreamStatus::kOk, n};
    if (closed) return {transport::StreamStatus::kClosed};
    return {transport::StreamStatus::kWouldBlock};
  }

 private:
  transport::StreamStatus flush() {
    const std::size_t n = out_->put(pending_);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    return pending_.empty() ? transport::StreamStatus::kOk : transport::StreamStatus::kWouldBlock;
  }

  std::shared_ptr<MemoryPipe> in_, out_;
  MemoryStreamOptions o_;
  Bytes pending_;
};

struct MemoryStreamPair {
  std::unique_ptr<MemoryStream> a;
  std::unique_ptr<MemoryStream> b;
};

inline MemoryStreamPair memory_stream_pair(MemoryStreamOptions o = {}) {
  auto ab = std::make_shared<MemoryPipe>(o.capacity);
  auto ba = std::make_shared<MemoryPipe>(o.capacity);
  return {std::make_unique<MemoryStream>(ba, ab, o), std::make_unique<MemoryStream>(ab, ba, o)};
}

}  // namespace qeli::test
