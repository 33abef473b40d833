#include "transport/tcp_stream.h"

#include <limits.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "transport/tcp.h"

namespace qeli::transport {

const char* to_string(StreamStatus s) {
  switch (s) {
    case StreamStatus::kOk: return "ok";
    case StreamStatus::kWouldBlock: return "would block";
    case StreamStatus::kClosed: return "peer closed the connection";
    case StreamStatus::kError: return "stream error";
  }
  return "?";
}

TcpStream::TcpStream(UniqueFd fd) : fd_(std::move(fd)) {
  set_nonblocking(fd_.get(), true);
  pending_.reserve(1024);
}

StreamStatus TcpStream::write(std::span<MutableByteSpan> chunks) {
  if (write_pending()) return StreamStatus::kError;  // the caller broke the contract
  pending_.clear();
  next_ = 0;
  for (const MutableByteSpan c : chunks) {
    if (!c.empty()) pending_.push_back({c.data(), c.size()});
  }
  return resume();
}

StreamStatus TcpStream::resume() {
  while (next_ < pending_.size()) {
    msghdr msg{};
    msg.msg_iov = pending_.data() + next_;
    msg.msg_iovlen = std::min<std::size_t>(pending_.size() - next_, IOV_MAX);
    const ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return StreamStatus::kWouldBlock;
      next_ = pending_.size();  // dead: nothing stays pending
      return (errno == EPIPE || errno == ECONNRESET) ? StreamStatus::kClosed : StreamStatus::kError;
    }
    // Advance past fully written iovecs, then trim a partially written one.
    auto done = static_cast<std::size_t>(n);
    while (next_ < pending_.size() && done >= pending_[next_].iov_len) {
      done -= pending_[next_].iov_len;
      ++next_;
    }
    if (next_ < pending_.size() && done > 0) {
      pending_[next_].iov_base = static_cast<std::uint8_t*>(pending_[next_].iov_base) + done;
      pending_[next_].iov_len -= done;
    }
  }
  return StreamStatus::kOk;
}

ReadResult TcpStream::read(MutableByteSpan out) {
  if (out.empty()) return {StreamStatus::kOk, 0};
  ssize_t n;
  do {
    n = ::recv(fd_.get(), out.data(), out.size(), MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n > 0) return {StreamStatus::kOk, static_cast<std::size_t>(n)};
  if (n == 0) return {StreamStatus::kClosed};
  if (errno == EAGAIN || errno == EWOULDBLOCK) return {StreamStatus::kWouldBlock};
  return {errno == ECONNRESET ? StreamStatus::kClosed : StreamStatus::kError};
}

}  // namespace qeli::transport
