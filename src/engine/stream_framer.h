// StreamFramer: a session's records over a transport::Stream (TCP, possibly under outer
// layers: obfs, WebSocket, TLS 1.3).
//
//   write:   the queued records go to the stream as one chunk list (each with the stack's
//            head/tail room around it: the layers frame in place) — for a bare TCP
//            stream one sendmsg per batch, no copy; while the socket is full it waits
//            for POLLOUT or the stop signal;
//   receive: one read straight into the RecordReader's buffer (no intermediate copy),
//            then every whole record goes through the Receiver; delivered packets are
//            copied into the TUN batch (64 KiB slots: super-packets arrive whole).
// An over-long or malformed record header ends the session (kRecordFraming).
// One writer thread and one reader thread.
#pragma once

#include "engine/frame_io.h"
#include "transport/stream.h"
#include "wire/packet_codec.h"
#include "wire/record_reader.h"

namespace qeli::engine {

/// The room a stream stack needs (its Overhead as a CarrierRoom).
tunnel::CarrierRoom stream_room(const transport::Overhead& o);

class StreamFramer final : public FrameIo {
 public:
  /// `stream` must outlive the framer; `leftover` = bytes read past the end of the
  /// handshake (already data records).
  StreamFramer(transport::Stream& stream, wire::Framing framing, ByteSpan leftover);

  int fd() const override { return stream_.fd(); }
  tunnel::CarrierRoom room() const override { return stream_room(stream_.overhead()); }
  WriteStatus write(tunnel::RecordQueue& records, const StopSignal& stop) override;
  ReceiveResult receive(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch, Instant now) override;
  tunio::PacketBatch make_tun_batch(std::size_t packets) const override;

  const wire::RecordReader& reader() const { return reader_; }

 private:
  /// Opens the records already buffered into `tun_batch`.
  ReceiveResult drain(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch, Instant now);

  transport::Stream& stream_;
  wire::RecordReader reader_;
};

}  // namespace qeli::engine
