// RecordReceiver: the receiving half of a stream carrier's data phase.
//
//   1. receive() reads what the stream has (transport/stream.h: for a bare TCP stream, one
//      recv()) straight into the RecordReader's buffer (no intermediate copy);
//   2. every whole record is opened in place (AEAD, then the replay window);
//   3. the plaintext is classified: an empty one is a heartbeat, `C1 9B …` a control
//      frame (handed to the caller's callback), an IPv4 packet is copied into the
//      caller's TUN write batch; IPv6 and garbage are counted drops (0.7.16 carries IPv4
//      only). With the GSO extension accepted, GSO chunk frames are reassembled into
//      super-packets whose metadata is re-validated before they join the batch (which
//      then needs 64 KiB slots).
// A record that fails to authenticate or parse, or an over-long header, is a protocol
// error: the connection is closed with that reason (never the process).
//
// One thread at a time.
#pragma once

#include <functional>

#include "base/bytes.h"
#include "base/clock.h"
#include "engine/session_counters.h"
#include "transport/stream.h"
#include "tunio/packet_batch.h"
#include "wire/control_frame.h"
#include "wire/gso_chunk.h"
#include "wire/packet_codec.h"
#include "wire/record_reader.h"

namespace qeli::engine {

enum class ReceiveStatus {
  kOk,          ///< read something (or nothing was pending); call again before polling
  kWouldBlock,  ///< nothing to read: wait for POLLIN on the stream's fd
  kBatchFull,   ///< stopped because the TUN batch is full: flush it and call drain()
  kClosed,      ///< peer closed the stream
  kError,       ///< stream error
  kBadRecord,   ///< a record failed to authenticate or parse (see last_open_error())
  kDeframe,     ///< over-long or malformed record header (see reader().error())
};
const char* to_string(ReceiveStatus s);

class RecordReceiver {
 public:
  using ControlHandler = std::function<void(const wire::ControlFrame&)>;

  /// `leftover` = bytes read past the end of the handshake (already data records).
  RecordReceiver(wire::PacketCodec codec, ByteSpan leftover, SessionCounters& counters,
                 ControlHandler on_control);

  /// Reads once from `stream` (non-blocking) and drains the records into `tun_batch`.
  ReceiveStatus receive(transport::Stream& stream, tunio::PacketBatch& tun_batch);
  /// Opens records already buffered, appending IP packets to `tun_batch`.
  ReceiveStatus drain(tunio::PacketBatch& tun_batch);

  /// When the last record authenticated (liveness: only authenticated records count).
  Instant last_authenticated() const { return last_auth_; }
  wire::OpenError last_open_error() const { return last_error_; }
  /// Accept GSO chunk frames (we advertised caps::kGsoSuperPackets).
  void accept_gso(bool on) { accept_gso_ = on; }
  const wire::RecordReader& reader() const { return reader_; }

 private:
  void receive_gso_chunk(ByteSpan plaintext, tunio::PacketBatch& tun_batch);

  wire::PacketCodec codec_;
  wire::RecordReader reader_;
  SessionCounters& counters_;
  ControlHandler on_control_;
  Instant last_auth_;
  wire::OpenError last_error_ = wire::OpenError::kTruncated;
  bool accept_gso_ = false;
  wire::GsoAssembler gso_;
};

}  // namespace qeli::engine
