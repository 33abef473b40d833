// Reading a non-blocking transport::Stream in a test: until `n` bytes arrived, the stream
// ended, or it stayed silent for ~3 s (polling its fd between reads).
#pragma once

#include <poll.h>

#include <algorithm>

#include "base/bytes.h"
#include "transport/stream.h"

namespace qeli::test {

inline Bytes read_exactly(transport::Stream& s, std::size_t n) {
  Bytes got;
  std::uint8_t buf[8192];
  for (int idle = 0; got.size() < n && idle < 3000;) {
    const transport::ReadResult r =
        s.read(MutableByteSpan(buf, std::min<std::size_t>(sizeof buf, n - got.size())));
    if (r.status == transport::StreamStatus::kOk) {
      got.insert(got.end(), buf, buf + r.bytes);
      continue;
    }
    if (r.status != transport::StreamStatus::kWouldBlock) break;
    pollfd p{s.fd(), POLLIN, 0};
    if (::poll(&p, 1, 1) == 0) ++idle;
  }
  return got;
}

}  // namespace qeli::test
