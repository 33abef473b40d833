// Sealer: the sending half of a session's records, for either carrier (sans-I/O: bytes
// in, records out; no fd, no clock).
//
//   1. the caller fills a PacketBatch with IPv4 packets; TUN reads land room.headroom()
//      bytes into each slot with room.tailroom(padding) after (carrier_room.h);
//   2. seal() seals every packet IN PLACE into one record (header ‖ nonce ‖ counter
//      before it, padding ‖ padlen ‖ tag after) and queues the record's span in a
//      RecordQueue — the carrier's framer then writes the queue (a stream: one chunk
//      list, one sendmsg; datagrams: wrapped and sent with sendmmsg/UDP GSO);
//   3. a super-packet (metadata not plain) is either, for a stream peer that negotiated
//      caps::kGsoSuperPackets (set_peer_gso), cut into GSO chunk records (wire/gso_chunk.h)
//      sealed into a private buffer, or split into MTU-sized packets
//      (tunio::gso_split) in a private scratch batch, a part at a time, each sealed as an
//      ordinary record. Splitting on the send thread, not on the server's TUN reader,
//      keeps the reader cheap and lets a session's inbox hold 64 KiB super-packets;
//   4. seal_one() seals one heartbeat or control frame into a small private buffer.
// Records never exceed the carrier's max_record (a TLS 1.3 layer takes 16384 bytes):
// padding and GSO chunks are sized to fit, and a packet that cannot fit one record is
// dropped and counted (kDropTooBig), as is a slot built without the room (a caller bug).
//
// Ownership: queued spans point into the caller's batch or the sealer's buffers; they
// stay valid until recycle() (private buffers) or until the batch is refilled.
// Nothing allocates after construction. One thread (the session's sender).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/random.h"
#include "tunio/offload_split.h"
#include "tunio/packet_batch.h"
#include "tunnel/carrier_room.h"
#include "tunnel/pushed_params.h"
#include "tunnel/record_queue.h"
#include "tunnel/session_counters.h"
#include "wire/packet_codec.h"

namespace qeli::tunnel {

enum class SealStatus {
  kDone,              ///< every packet of the batch is queued
  kMore,              ///< the queue or a private buffer is full: send, recycle(), call again
  kCounterExhausted,  ///< the record counter ran out: reconnect
};

class Sealer {
 public:
  /// `mtu`: the tunnel MTU in bytes (padding never takes a record's data + padding above
  /// it; datagram carriers split super-packets to it). `scratch_packets` sizes the split
  /// scratch batch.
  Sealer(wire::PacketCodec codec, const PaddingPolicy& padding, std::size_t mtu, CarrierRoom room,
         crypto::Rng& rng, SessionCounters& counters, std::size_t scratch_packets = 64);

  /// Seals packets [batch.cursor(), batch.size()) into `out` and advances the cursor (a
  /// super-packet being split keeps the cursor until its last part is queued). The
  /// batch's bytes are consumed.
  SealStatus seal(tunio::PacketBatch& batch, RecordQueue& out);
  /// The private buffers are free again (call once what seal() queued was sent).
  void recycle();
  /// Forgets a super-packet split half-way (before sealing a new batch).
  void restart() { split_ = {}; }

  /// Seals one record carrying `plaintext` (a control frame) or, when empty, a heartbeat
  /// with `padding` random padding bytes, into a private buffer with the carrier's room
  /// around it. The span is valid until the next seal_one().
  Result<MutableByteSpan, wire::SealError> seal_one(ByteSpan plaintext, std::size_t padding);

  /// The peer takes GSO chunk records (stream carriers only; ignored on datagrams).
  void set_peer_gso(bool on) { peer_gso_ = on && room_.stream; }
  bool peer_gso() const { return peer_gso_; }
  /// Lowers the MTU padding respects (the peer reported a smaller one); never raises it.
  void limit_mtu(std::size_t mtu) { mtu_ = std::min(mtu, max_mtu_); }
  std::size_t mtu() const { return mtu_; }
  const CarrierRoom& room() const { return room_; }
  const PaddingPolicy& padding() const { return padding_; }
  /// From now on records go without the inner AEAD (the peer proved the TLS binding).
  void set_tls_bound() { codec_.set_send_tls_bound(true); }
  /// From now on records go with AES-256-GCM (the peer takes it: caps::kAesGcm).
  void set_aes() {
    if (codec_.send_aead() != wire::RecordAeadKind::kAes256Gcm) codec_.set_send_aes();
  }
  wire::RecordAeadKind aead() const { return codec_.send_aead(); }
  /// The send counter of the codec (records sealed so far).
  std::uint64_t records_sealed() const { return codec_.send_counter(); }

 private:
  /// Seals slot i of `b` in place and queues it; false on counter exhaustion.
  bool seal_slot(tunio::PacketBatch& b, std::size_t i, RecordQueue& out);
  /// GSO chunk records of one super-packet into gso_buf_; false when it has no room or
  /// the queue is short (`exhausted` set on counter exhaustion).
  bool seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta, RecordQueue& out,
                         bool& exhausted);
  /// Splits (part of) the super-packet in slot i into scratch_ and seals the parts.
  SealStatus seal_split(tunio::PacketBatch& batch, std::size_t i, RecordQueue& out, bool& done);

  wire::PacketCodec codec_;
  PaddingPolicy padding_;
  std::size_t mtu_;
  std::size_t max_mtu_;
  CarrierRoom room_;
  crypto::Rng& rng_;
  SessionCounters& counters_;
  std::size_t seal_head_;  // this codec's framing
  std::size_t max_data_;   // largest data + padding of one record on this carrier
  std::size_t max_gso_chunk_;
  bool peer_gso_ = false;
  tunio::PacketBatch scratch_;  // MTU-sized parts of split super-packets
  tunio::SplitCursor split_;    // progress through the super-packet at the batch cursor
  // GSO chunk records (stream carriers only). Not zero-filled: an idle session must not
  // make these pages resident (512 KiB × every session); only sealed bytes are read.
  static constexpr std::size_t kGsoBufBytes = 512 * 1024;
  std::unique_ptr<std::uint8_t[]> gso_buf_;
  std::size_t gso_used_ = 0;
  Bytes one_;  // seal_one()'s record, with the carrier's room
};

}  // namespace qeli::tunnel
