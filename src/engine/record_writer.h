// RecordWriter: the sending half of a stream carrier's data phase.
//
//   1. the caller fills a PacketBatch with IPv4 packets (TUN reads land headroom(o)
//      bytes into each slot, with tailroom(policy, o) bytes after, where `o` is the
//      stream's overhead: its layers frame each record in the same room);
//   2. seal_and_write() seals every packet IN PLACE into a record (header ‖ nonce ‖
//      counter before it, padding ‖ padlen ‖ tag after) and hands all records to the
//      stream as one chunk list (transport/stream.h) — for a bare TCP stream one
//      sendmsg per batch, no copy, no allocation;
//   3. heartbeats and control frames go through a small private buffer;
//   4. a super-packet (packet metadata not plain) is, for a peer that negotiated
//      caps::kGsoSuperPackets (set_peer_gso(true)), cut into GSO chunk records
//      (wire/gso_chunk.h) sealed into a private buffer, in batch order; for any other
//      peer (0.7.16) it is split here into MTU-sized packets (tunio::gso_split_all) and
//      each is sealed as an ordinary record. Splitting on the send thread, not on the
//      server's TUN reader, keeps the reader cheap and lets a session's inbox hold 64 KiB
//      super-packets instead of 1400-byte pieces (the pieces overflowed it).
//
// Records never exceed the stream's max_chunk (a TLS 1.3 carrier takes 16384 bytes per
// record): padding and GSO chunks are sized to fit, and a packet that cannot fit one
// record (above the carrier's MTU) is dropped and counted in drop_too_big.
//
// One thread at a time (the stream's single writer). The writer waits in poll() for
// POLLOUT or the stop signal while the stream has a write pending.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "engine/padding_policy.h"
#include "engine/session_counters.h"
#include "engine/stop_signal.h"
#include "transport/stream.h"
#include "tunio/packet_batch.h"
#include "wire/packet_codec.h"

namespace qeli::engine {

enum class WriteStatus { kOk, kClosed, kStopped, kError, kCounterExhausted };
const char* to_string(WriteStatus s);

class RecordWriter {
 public:
  /// Bytes every batch slot needs before / after the packet for a stream with overhead
  /// `o` (the record's own room for Tls framing, the larger, plus the stream's).
  static std::size_t headroom(const transport::Overhead& o) {
    return o.head + wire::kMaxSealHeadroom;
  }
  static std::size_t tailroom(const PaddingPolicy& p, const transport::Overhead& o) {
    return wire::seal_tailroom(p.max()) + o.tail;
  }

  /// Writes to `stream` (which must outlive the writer).
  RecordWriter(transport::Stream& stream, wire::PacketCodec codec, PaddingPolicy padding,
               std::size_t mtu, crypto::Rng& rng, SessionCounters& counters);

  /// Seals packets [0, batch.size()) of `batch` in place and writes them to the stream.
  /// The batch's contents are consumed (garbage afterwards); the caller clears it.
  WriteStatus seal_and_write(tunio::PacketBatch& batch, const StopSignal& stop);

  /// Seals and writes one record carrying `plaintext` (control frame) or, when empty,
  /// a heartbeat with `heartbeat_padding` random padding bytes.
  WriteStatus write_one(ByteSpan plaintext, std::size_t padding, const StopSignal& stop);

  /// This writer's batch room (the static helpers for its stream's overhead).
  std::size_t headroom() const { return headroom(overhead_); }
  std::size_t tailroom(const PaddingPolicy& p) const { return tailroom(p, overhead_); }

  void set_mtu(std::size_t mtu) { mtu_ = mtu; }
  /// The peer accepts GSO chunk records (caps::kGsoSuperPackets negotiated). Default
  /// false: super-packets are split before sealing.
  void set_peer_gso(bool on) { peer_gso_ = on; }
  void set_padding(const PaddingPolicy& p) { padding_ = p; }
  Instant last_write() const { return last_write_; }

 private:
  /// Writes chunks_ (then clears it), waiting for room while the stream has some pending.
  WriteStatus write_chunks(const StopSignal& stop);
  /// Seals a super-packet as GSO chunk records into gso_buf_ (extension); returns false
  /// when gso_buf_ has no room (the caller writes what is pending first).
  bool seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta, WriteStatus& st);
  /// Seals packet i of `batch` in place as one record and queues it in chunks_ (`sealed`
  /// set). kOk, or
  /// kCounterExhausted; a packet that cannot be sealed (too large) is counted and skipped.
  WriteStatus seal_slot(tunio::PacketBatch& batch, std::size_t i, bool& sealed);
  /// Peer without the extension: splits a super-packet into segments_, seals every
  /// segment and writes everything queued so far (segments_ is reused by the next one).
  WriteStatus seal_split(ByteSpan packet, const tunio::GsoMetadata& meta, const StopSignal& stop,
                         std::uint64_t& records);

  transport::Stream& stream_;
  transport::Overhead overhead_;
  wire::PacketCodec codec_;
  PaddingPolicy padding_;
  std::size_t mtu_;
  crypto::Rng& rng_;
  SessionCounters& counters_;
  /// Largest data + padding of one record on this stream (≤ kMaxTunnelMtu) and the
  /// largest GSO chunk that fits one record.
  std::size_t max_data_;
  std::size_t max_gso_chunk_;
  std::vector<MutableByteSpan> chunks_;  // records of the current batch, in order
  Bytes scratch_;  // one record (with the stream's room) for heartbeats/control frames
  // GSO chunk records of the current batch (extension). Not zero-filled: an idle session
  // must not make these pages resident (512 KiB × every session); only sealed bytes are read.
  static constexpr std::size_t kGsoBufBytes = 512 * 1024;
  std::unique_ptr<std::uint8_t[]> gso_buf_;
  std::size_t gso_used_ = 0;
  bool peer_gso_ = false;
  // MTU-sized segments of one super-packet for a peer without the extension; slots have
  // the seal headroom and tailroom. Not zero-filled (see PacketBatch).
  tunio::PacketBatch segments_;
  Instant last_write_;
};

}  // namespace qeli::engine
