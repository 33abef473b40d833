// TcpStream: the bottom of every stream stack (transport/stream.h) — a connected stream
// socket (TCP; an AF_UNIX socket pair in tests) that it owns and switches to
// non-blocking. No overhead of its own and no chunk limit: write() hands the chunks to
// sendmsg() as one iovec array (IOV_MAX at a time), read() is one recv().
//
// A write the kernel cannot take whole leaves the rest in the stream's own iovec array
// (reserved at construction, grown once if a caller writes more chunks at once), so the
// steady state allocates nothing. One writer and one reader thread may use it at once.
#pragma once

#include <sys/uio.h>

#include <vector>

#include "transport/stream.h"
#include "transport/unique_fd.h"

namespace qeli::transport {

class TcpStream final : public Stream {
 public:
  /// Takes `fd` (a connected stream socket) and sets O_NONBLOCK on it.
  explicit TcpStream(UniqueFd fd);

  int fd() const override { return fd_.get(); }
  Overhead overhead() const override { return {}; }
  StreamStatus write(std::span<MutableByteSpan> chunks) override;
  StreamStatus resume() override;
  bool write_pending() const override { return next_ < pending_.size(); }
  ReadResult read(MutableByteSpan out) override;

 private:
  UniqueFd fd_;
  std::vector<iovec> pending_;  // the current write, trimmed as the kernel takes it
  std::size_t next_ = 0;        // first iovec not yet (fully) sent
};

}  // namespace qeli::transport
