#include "transport/stream_io.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace qeli::transport {
namespace {

IoResult io_of(StreamStatus s) {
  switch (s) {
    case StreamStatus::kOk: return IoResult::kOk;
    case StreamStatus::kWouldBlock: return IoResult::kTimeout;
    case StreamStatus::kClosed: return IoResult::kClosed;
    case StreamStatus::kError: return IoResult::kError;
  }
  return IoResult::kError;
}

}  // namespace

IoResult finish_write(Stream& s, std::chrono::milliseconds timeout, int cancel_fd) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (s.write_pending()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return IoResult::kTimeout;
    pollfd p[2] = {{s.fd(), POLLOUT, 0}, {cancel_fd, POLLIN, 0}};  // fd -1: ignored
    const int rc = ::poll(p, 2, static_cast<int>(left.count()));
    if (rc < 0 && errno != EINTR) return IoResult::kError;
    if (p[1].revents != 0) return IoResult::kTimeout;
    const StreamStatus st = s.resume();
    if (st != StreamStatus::kOk && st != StreamStatus::kWouldBlock) return io_of(st);
  }
  return IoResult::kOk;
}

IoResult write_copy(Stream& s, ByteSpan data, std::chrono::milliseconds timeout, int cancel_fd) {
  const Overhead o = s.overhead();
  const std::size_t chunk = std::min<std::size_t>(std::max<std::size_t>(o.max_chunk, 1), 16384);
  Bytes scratch(o.head + std::min(chunk, data.size()) + o.tail);
  while (!data.empty()) {
    const std::size_t n = std::min(chunk, data.size());
    std::copy_n(data.data(), n, scratch.data() + o.head);
    MutableByteSpan c(scratch.data() + o.head, n);
    const StreamStatus st = s.write({&c, 1});
    if (st == StreamStatus::kWouldBlock) {
      if (const IoResult r = finish_write(s, timeout, cancel_fd); r != IoResult::kOk) return r;
    } else if (st != StreamStatus::kOk) {
      return io_of(st);
    }
    data = data.subspan(n);
  }
  return IoResult::kOk;
}

}  // namespace qeli::transport
