// transport::Stream: a byte stream, possibly layered over another one. TcpStream
// (transport/tcp_stream.h) is the bottom of every stack; an outer layer (obfs XOR,
// WebSocket frames, TLS 1.3 records) is a Stream that owns the stream below it and
// frames or encrypts in place what passes through.
//
//   qeli records  →  [layer n] → … → [layer 1] → TcpStream → kernel
//   (the top of the stack is what the handshake driver and the data records use)
//
// Overhead. Every stream declares, for the whole stack below and including itself, how
// many bytes its layers may put before (head) and after (tail) each chunk written through
// it, and the largest chunk payload it takes (max_chunk: a TLS 1.3 record carries at most
// 16384 plaintext bytes). The values are constant for the object's life, so a sender
// reserves the room once, when it builds its batches, and no layer ever moves a byte.
//
// Writes. write(chunks) takes chunk payloads in order; the caller guarantees, for each
// chunk, overhead().head writable bytes directly before it and overhead().tail after it,
// inside the same buffer, and chunk.size() <= overhead().max_chunk. A layer writes its
// framing into that room (in place: its header right before the payload, its trailer
// right after, encrypting the payload where it lies), widens chunks[i] to its frame and
// passes the same array down. So `chunks` is rewritten by the call.
//
// Ownership per outcome (the caller owns the bytes and the array in every outcome):
//   kOk          everything reached the kernel; bytes and array are free again;
//   kWouldBlock  part of it is still pending inside the stream (already framed): the
//                bytes must stay untouched until resume() returns kOk (wait for POLLOUT
//                on fd() in between); no new write() meanwhile. The array may be reused;
//   kClosed / kError  the stream is dead; nothing more may be written.
//
// Reads. read(out) returns this layer's bytes (for a layer: deframed, decrypted), at
// most out.size(). After a read that returned kOk, call read() again before waiting on
// fd(): a layer may hold bytes it already took from the fd (a TLS record decrypted past
// `out`), which poll() cannot see. kWouldBlock: nothing now, wait for POLLIN on fd().
//
// Threads: one writer thread and one reader thread may use a stream at the same time
// (a layer keeps its send and receive state apart); neither side is re-entrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "base/bytes.h"

namespace qeli::transport {

/// No limit on one chunk (a plain TCP stream).
inline constexpr std::size_t kUnlimitedChunk = std::numeric_limits<std::size_t>::max();

/// What a stream stack adds to each chunk written through it (see above).
struct Overhead {
  std::size_t head = 0;                     ///< bytes the layers may write before a chunk
  std::size_t tail = 0;                     ///< bytes after it
  std::size_t max_chunk = kUnlimitedChunk;  ///< largest chunk payload

  /// A layer with its own `head`/`tail`/`max_chunk` on top of this stack: the room adds
  /// up, and a chunk must fit the layer and, framed, the stack below.
  constexpr Overhead with_layer(std::size_t own_head, std::size_t own_tail,
                                std::size_t own_max_chunk = kUnlimitedChunk) const {
    const std::size_t framing = own_head + own_tail;
    const std::size_t below = max_chunk == kUnlimitedChunk
                                  ? kUnlimitedChunk
                                  : (max_chunk > framing ? max_chunk - framing : 0);
    return {head + own_head, tail + own_tail, own_max_chunk < below ? own_max_chunk : below};
  }
  friend constexpr bool operator==(const Overhead&, const Overhead&) = default;
};

enum class StreamStatus : std::uint8_t {
  kOk,          ///< done (write: all of it reached the kernel; read: `bytes` arrived)
  kWouldBlock,  ///< try again when fd() is ready (write: call resume(), see above)
  kClosed,      ///< the peer closed (or reset) the connection
  kError,       ///< any other failure; also a write() while one is pending (a bug)
};
const char* to_string(StreamStatus s);

struct ReadResult {
  StreamStatus status;
  std::size_t bytes = 0;  ///< bytes written to `out` when kOk (> 0 unless `out` was empty)
};

class Stream {
 public:
  virtual ~Stream() = default;
  /// The fd to wait on (POLLIN for read, POLLOUT for resume): the bottom socket's.
  virtual int fd() const = 0;
  /// This stack's overhead (constant for the object's life).
  virtual Overhead overhead() const = 0;
  /// Frames and sends `chunks` in order (see the header comment for the contract).
  virtual StreamStatus write(std::span<MutableByteSpan> chunks) = 0;
  /// Continues a pending write: kOk once all of it went out, kWouldBlock while not.
  virtual StreamStatus resume() = 0;
  /// True between a write() that returned kWouldBlock and the resume() that returns kOk.
  virtual bool write_pending() const = 0;
  /// Reads this layer's bytes into `out` (non-blocking).
  virtual ReadResult read(MutableByteSpan out) = 0;
  /// Why the stack failed (kError, or a protocol violation read as kClosed), for the log
  /// and the counters: this layer's reason, else the one below; empty when none.
  virtual std::string failure() const { return {}; }
};

/// An outer layer: owns the stream below it, which it waits on (fd), whose pending writes
/// it resumes, and whose failure it reports when it has none of its own. A layer that
/// queues bytes of its own overrides resume()/write_pending().
class StreamLayer : public Stream {
 public:
  int fd() const override { return lower_->fd(); }
  StreamStatus resume() override { return lower_->resume(); }
  bool write_pending() const override { return lower_->write_pending(); }
  std::string failure() const override { return lower_->failure(); }

 protected:
  explicit StreamLayer(std::unique_ptr<Stream> lower) : lower_(std::move(lower)) {}

  std::unique_ptr<Stream> lower_;  ///< never null
};

}  // namespace qeli::transport
