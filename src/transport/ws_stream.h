// WebSocketStream: RFC 6455 binary frames as a transport::Stream layer, after the upgrade
// (transport/obfs_setup.h); the obfs front of qeli 0.7.16 (docs/PROTOCOL.md "obfs
// WebSocket frames"). It sits right on the TcpStream, under the ObfsXorStream.
//
//   write: each chunk (≤ 16384 bytes) becomes one FIN binary frame, framed in place: the
//          header in the room before the chunk (4 bytes, 8 with the client's mask —
//          Overhead{4 or 8, 0, 16384}), a client's payload masked where it lies with a
//          fresh random key. Control frames we owe (a Pong per Ping, the Close echo) go
//          out first, from the layer's own small buffer.
//   read:  raw bytes land in the layer's receive buffer; binary and continuation
//          payloads are copied (and unmasked) into `out`; text frames are skipped; a Ping
//          is answered with a Pong, a Close with a Close (owed replies capped at 8, as
//          0.7.16), after which read() reports kClosed. A frame over 16384 bytes (any
//          length form, up to 2^63), reserved bits or opcodes, an unmasked frame from a
//          client or a masked one from a server end the stream (kError, failure() says
//          which).
//
// Owed replies ride in front of the next write; a Close echo still owed when the stream
// is destroyed is sent then (best effort, never blocking).
//
// One writer and one reader thread; the owed-reply queue is the only shared state.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "crypto/random.h"
#include "transport/stream.h"
#include "wire/ws_frame.h"

namespace qeli::transport {

class WebSocketStream final : public StreamLayer {
 public:
  /// Over `lower` (owned). `client`: this end masks its frames and expects unmasked ones.
  /// `payload`: frame payload bytes the set-up already extracted (delivered first);
  /// `raw`: raw bytes it read past them, starting at a frame boundary.
  WebSocketStream(std::unique_ptr<Stream> lower, bool client, crypto::Rng& rng, Bytes payload = {},
                  Bytes raw = {});
  ~WebSocketStream() override;

  Overhead overhead() const override { return overhead_; }
  StreamStatus write(std::span<MutableByteSpan> chunks) override;
  ReadResult read(MutableByteSpan out) override;
  std::string failure() const override;

  /// Control frames answered so far (Pong and Close), for tests and counters.
  std::uint64_t replies_sent() const { return replies_sent_.load(); }

  static constexpr std::size_t kMaxOwed = 8;

 private:
  struct Owed {
    wire::WsOpcode op;
    std::uint8_t len;
    std::array<std::uint8_t, wire::kWsMaxControlPayload> body;
  };
  /// Reader: queues a reply (dropped past kMaxOwed).
  void owe(wire::WsOpcode op, ByteSpan body);
  /// Writer: frames every owed reply into ctrl_ and returns its size.
  std::size_t take_owed();
  wire::WsMask next_mask();
  ReadResult fail_read(std::string why);

  bool client_;
  crypto::Rng& rng_;
  Overhead overhead_;

  // Writer side.
  std::vector<MutableByteSpan> out_;
  std::array<std::uint8_t, kMaxOwed*(wire::kWsMaxControlPayload + wire::kWsMaxHeader)> ctrl_{};
  // Random mask keys, drawn 1024 at a time: one RAND_bytes call costs ≈ 2 µs on this box
  // whatever its size up to a few KiB (its fork check is a getpid syscall), 30 ns a key
  // when drawn 64 at a time, ≈ 2.6 ns at 1024.
  std::array<std::uint8_t, 4096> masks_{};
  std::size_t masks_used_ = masks_.size();

  // Shared: owed replies.
  std::mutex owed_mu_;
  std::vector<Owed> owed_;
  std::atomic<bool> have_owed_{false};
  bool close_owed_ = false;  // a Close was answered (or is queued): once only
  std::atomic<std::uint64_t> replies_sent_{0};

  // Reader side.
  Bytes payload_;  // set-up leftover payload
  std::size_t payload_at_ = 0;
  Bytes rx_;  // raw receive buffer
  std::size_t rx_begin_ = 0, rx_end_ = 0;
  std::uint64_t frame_left_ = 0;  // payload bytes of the current data frame still to come
  std::uint64_t frame_off_ = 0;   // payload bytes of it already consumed (mask offset)
  wire::WsMask frame_mask_{};
  bool frame_masked_ = false;
  bool frame_deliver_ = false;  // binary/continuation (true) or text (skipped)
  bool closed_ = false;         // a Close arrived
  std::string read_failure_;
};

}  // namespace qeli::transport
