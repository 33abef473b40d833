// RecordWriter: the sending half of a stream carrier's data phase.
//
//   1. the caller fills a PacketBatch with IPv4 packets (TUN reads land `kHeadroom`
//      bytes into each slot, with `tailroom(policy)` bytes after);
//   2. seal_and_write() seals every packet IN PLACE into a record (header ‖ nonce ‖
//      counter before it, padding ‖ padlen ‖ tag after) and writes all records with
//      writev — one syscall per batch, no copy, no allocation;
//   3. heartbeats and control frames go through a small private buffer;
//   4. a super-packet (packet metadata not plain) is, for a peer that negotiated
//      caps::kGsoSuperPackets (set_peer_gso(true)), cut into GSO chunk records
//      (wire/gso_chunk.h) sealed into a private buffer, in batch order; for any other
//      peer (0.7.16) it is split here into MTU-sized packets (tunio::gso_split_all) and
//      each is sealed as an ordinary record. Splitting on the send thread, not on the
//      server's TUN reader, keeps the reader cheap and lets a session's inbox hold 64 KiB
//      super-packets instead of 1400-byte pieces (the pieces overflowed it).
//
// One thread at a time (the socket's single writer). The socket is non-blocking; the
// writer waits in poll() for POLLOUT or the stop signal.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "engine/padding_policy.h"
#include "engine/session_counters.h"
#include "engine/stop_signal.h"
#include "tunio/packet_batch.h"
#include "wire/packet_codec.h"

namespace qeli::engine {

enum class WriteStatus { kOk, kClosed, kStopped, kError, kCounterExhausted };
const char* to_string(WriteStatus s);

class RecordWriter {
 public:
  /// Bytes every batch slot needs before the packet (Tls framing, the larger).
  static constexpr std::size_t kHeadroom = wire::seal_headroom(wire::Framing::kTls);
  static std::size_t tailroom(const PaddingPolicy& p) { return wire::seal_tailroom(p.max()); }

  RecordWriter(wire::PacketCodec codec, PaddingPolicy padding, std::size_t mtu, crypto::Rng& rng,
               SessionCounters& counters);

  /// Seals packets [0, batch.size()) of `batch` in place and writes them to `fd`.
  /// The batch's contents are consumed (garbage afterwards); the caller clears it.
  WriteStatus seal_and_write(int fd, tunio::PacketBatch& batch, const StopSignal& stop);

  /// Seals and writes one record carrying `plaintext` (control frame) or, when empty,
  /// a heartbeat with `heartbeat_padding` random padding bytes.
  WriteStatus write_one(int fd, ByteSpan plaintext, std::size_t padding, const StopSignal& stop);

  void set_mtu(std::size_t mtu) { mtu_ = mtu; }
  /// The peer accepts GSO chunk records (caps::kGsoSuperPackets negotiated). Default
  /// false: super-packets are split before sealing.
  void set_peer_gso(bool on) { peer_gso_ = on; }
  void set_padding(const PaddingPolicy& p) { padding_ = p; }
  Instant last_write() const { return last_write_; }

 private:
  WriteStatus write_iov(int fd, iovec* iov, std::size_t count, const StopSignal& stop);
  /// Seals a super-packet as GSO chunk records into gso_buf_ (extension); returns false
  /// when gso_buf_ has no room (the caller writes what is pending first).
  bool seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta, WriteStatus& st);
  /// Seals packet i of `batch` in place as one record and queues it in iov_. kOk, or
  /// kCounterExhausted; a packet that cannot be sealed (too large) is skipped.
  WriteStatus seal_slot(tunio::PacketBatch& batch, std::size_t i);
  /// Peer without the extension: splits a super-packet into segments_, seals every
  /// segment and writes everything queued so far (segments_ is reused by the next one).
  WriteStatus seal_split(int fd, ByteSpan packet, const tunio::GsoMetadata& meta,
                         const StopSignal& stop, std::uint64_t& records);

  wire::PacketCodec codec_;
  PaddingPolicy padding_;
  std::size_t mtu_;
  crypto::Rng& rng_;
  SessionCounters& counters_;
  std::vector<iovec> iov_;
  Bytes scratch_;  // one record for heartbeats/control frames
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
