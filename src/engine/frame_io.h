// FrameIo: how one carrier moves a session's records — the only difference between TCP
// and UDP left in the data phase (engine/session_loop.h drives either):
//   * StreamFramer (stream_framer.h): records written as one chunk list to a
//     transport::Stream, deframed from its bytes on the way in;
//   * DatagramFramer (datagram_framer.h): one record per datagram behind a
//     DatagramEnvelope, sendmmsg/UDP GSO out, recvmmsg/UDP GRO in.
// A framer does I/O and nothing else: sealing, opening, classifying and the timers are
// the tunnel::Session's.
#pragma once

#include <cstdint>

#include "base/clock.h"
#include "engine/stop_signal.h"
#include "tunio/packet_batch.h"
#include "tunnel/carrier_room.h"
#include "tunnel/receiver.h"
#include "tunnel/record_queue.h"
#include "tunnel/session_end.h"

namespace qeli::engine {

enum class WriteStatus : std::uint8_t { kOk, kClosed, kStopped, kError };
const char* to_string(WriteStatus s);
/// The session end a failed write means (kOk and kStopped: kStopped).
tunnel::SessionEnd from_write(WriteStatus s);

struct ReceiveResult {
  enum class Status : std::uint8_t {
    kAgain,       ///< read something; call again (the TUN batch may be appended to)
    kFlush,       ///< the TUN batch is ready (full, or coalesced): flush it, then call again
    kWouldBlock,  ///< nothing more now: flush what is in the batch, wait for POLLIN
    kEnd,         ///< the session ends with `end` (flush what is in the batch first)
  } status = Status::kWouldBlock;
  tunnel::SessionEnd end = tunnel::SessionEnd::kStopped;
};

class FrameIo {
 public:
  virtual ~FrameIo() = default;
  /// The fd to wait on (POLLIN: receive; POLLOUT: a pending write).
  virtual int fd() const = 0;
  /// The room this carrier needs around each record (constant for the object's life).
  virtual tunnel::CarrierRoom room() const = 0;
  /// Frames and writes the queued records in order, waiting in poll() while the carrier
  /// is full; kStopped if `stop` fired meanwhile (the carrier may then hold part of it).
  virtual WriteStatus write(tunnel::RecordQueue& records, const StopSignal& stop) = 0;
  /// Reads what the carrier has (non-blocking), runs every record through `rx` and
  /// appends the packets it delivers to `tun_batch`.
  virtual ReceiveResult receive(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch,
                                Instant now) = 0;
  /// A TUN write batch receive() can fill.
  virtual tunio::PacketBatch make_tun_batch(std::size_t packets) const = 0;
  /// How many copies of a farewell frame to send (a datagram may be lost).
  virtual int farewell_copies() const { return 1; }
};

}  // namespace qeli::engine
