// StreamSetup: a layer's own set-up flight (a WebSocket upgrade, the obfs nonce exchange,
// a TLS 1.3 handshake) as a sans-I/O state machine, driven exactly like the qeli
// handshake (engine/flight_driver.h): bytes and `now` go in, bytes to send and a deadline
// come out, no sockets, clock or threads inside.
//
//   start(now) → take_output() → [on_bytes(...) → take_output()]* → state() kDone
//              → into_stream(lower) = the layer's data stream over `lower`
//
// Bytes already read. The driver can hand the machine bytes that were read before it
// existed (REALITY peeks at a ClientHello before it decides whose it is): they go to
// on_bytes() first, like any other bytes.
//
// Leftover. Bytes that arrive past the end of the set-up belong to the layer's data phase
// (the first frames after a WebSocket 101, records after a TLS Finished). The machine
// keeps them and into_stream() feeds them to the stream it builds before anything it
// reads from `lower`, so no byte is lost or read twice.
//
// One thread at a time. The object may be dropped after into_stream().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "transport/stream.h"

namespace qeli::transport {

enum class SetupState : std::uint8_t { kRunning, kDone, kFailed };

/// Bytes to send, after waiting `delay` (a flight may be paced to look like its cover).
struct SetupOutput {
  Bytes bytes;
  Duration delay{};
};

class StreamSetup {
 public:
  virtual ~StreamSetup() = default;
  /// Produces the first bytes (if this side speaks first) and arms the deadline.
  virtual void start(Instant now) = 0;
  /// Bytes from the lower stream, split anywhere. After kDone they are leftover.
  virtual void on_bytes(ByteSpan in, Instant now) = 0;
  /// The lower stream closed or failed: kFailed (unless already done).
  virtual void on_peer_closed() = 0;
  /// Fails the set-up when `now` >= deadline() and it is still running.
  virtual void on_timer(Instant now) = 0;
  /// Bytes to send, in order; the caller owns them. Empty when there is nothing.
  virtual std::vector<SetupOutput> take_output() = 0;
  virtual std::optional<Instant> deadline() const = 0;
  virtual SetupState state() const = 0;
  /// Why it failed, for the log (empty unless kFailed).
  virtual std::string failure() const = 0;
  /// kDone only, once: the layer's stream over `lower` (which it then owns), with the
  /// leftover fed to it first.
  virtual std::unique_ptr<Stream> into_stream(std::unique_ptr<Stream> lower) = 0;
};

}  // namespace qeli::transport
