// DatagramWriter: the sending half of a UDP carrier's data phase (reference
// qeli-0.7.16.md §3.9: exactly one data record per datagram, Tls framing `17 03 03 …`).
//
//   1. the caller fills a PacketBatch with IPv4 packets: TUN reads land headroom(env)
//      bytes into each slot with at least tailroom(policy, env) bytes of room after;
//   2. seal() walks the batch from its cursor: an ordinary packet is sealed IN PLACE as
//      one record (prepend header ‖ nonce ‖ counter, append padding ‖ padlen ‖ tag), then
//      wrapped by the envelope; a super-packet (TUN GSO) is first cut into MTU-sized
//      packets with the TUN engine's gso_split into the writer's scratch batch, and each
//      of those is sealed the same way. One OutDatagram per record goes to the queue;
//   3. the queue goes to UdpSocket::send, which coalesces runs of equal-size datagrams to
//      the same peer into UDP_SEGMENT messages (full-size packets get no padding, so a
//      TCP stream's segments coalesce) and uses sendmmsg for the rest.
// send() does 2-3 in a loop for one peer and waits for POLLOUT on EAGAIN. A server
// seals several sessions' batches into one DatagramQueue and sends it once.
//
// Ownership: queued datagrams point into the caller's batch and the writer's scratch
// batch; both must stay untouched until the queue was sent, then recycle() frees the
// scratch. Nothing allocates after construction. One thread at a time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <span>
#include <vector>

#include "base/clock.h"
#include "crypto/random.h"
#include "engine/datagram_envelope.h"
#include "engine/padding_policy.h"
#include "engine/record_writer.h"
#include "engine/session_counters.h"
#include "engine/stop_signal.h"
#include "transport/udp_socket.h"
#include "tunio/offload_split.h"
#include "tunio/packet_batch.h"
#include "wire/packet_codec.h"

namespace qeli::engine {

/// A bounded list of datagrams to send, allocated once.
class DatagramQueue {
 public:
  explicit DatagramQueue(std::size_t capacity) : items_(capacity) {}
  bool full() const { return size_ == items_.size(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return items_.size(); }
  void push(const transport::OutDatagram& d) { items_[size_++] = d; }  // precondition !full()
  void clear() { size_ = 0; }
  std::span<const transport::OutDatagram> items() const { return {items_.data(), size_}; }

 private:
  std::vector<transport::OutDatagram> items_;
  std::size_t size_ = 0;
};

enum class SealStatus {
  kDone,              ///< every packet of the batch is queued
  kMore,              ///< the queue or the scratch batch is full: send, recycle(), call again
  kCounterExhausted,  ///< the record counter ran out: rekey or reconnect
};

class DatagramWriter {
 public:
  /// Bytes every batch slot needs before / after the packet. The room after a packet is
  /// part of a PacketBatch's max_packet: build batches with max_packet >= the largest
  /// packet + tailroom(), headroom = headroom().
  static std::size_t headroom(const DatagramEnvelope& env) {
    return env.headroom() + wire::kMaxSealHeadroom;
  }
  static std::size_t tailroom(const PaddingPolicy& p, const DatagramEnvelope& env) {
    return wire::seal_tailroom(p.max()) + env.tailroom();
  }

  /// `mtu`: the tunnel MTU in bytes (largest inner packet; super-packets are split to
  /// it, and padding never takes a record's data + padding above it); set_mtu() may
  /// lower it later, never raise it. `scratch_packets` sizes the split scratch batch
  /// (48 hold one 64 KiB TCP super-packet at MTU 1420).
  DatagramWriter(wire::PacketCodec codec, PaddingPolicy padding, std::size_t mtu, crypto::Rng& rng,
                 SessionCounters& counters, DatagramEnvelope& env = no_envelope(),
                 std::size_t scratch_packets = 64);

  /// Seals packets [batch.cursor(), batch.size()) into `queue`, addressed to `peer`
  /// (which must outlive the send), and advances the cursor. The batch's bytes are
  /// consumed. A super-packet whose metadata does not split is dropped (drop_bad_gso).
  SealStatus seal(tunio::PacketBatch& batch, const transport::UdpAddr& peer, DatagramQueue& queue);
  /// Frees the scratch batch once the queued datagrams were sent.
  void recycle() { scratch_.clear(); }

  /// Seals all of `batch` and sends it to `peer` (batch.cursor() is reset first); waits
  /// in poll() while the socket buffer is full. Datagrams the kernel refuses are counted
  /// by the socket (UdpCounters) and do not stop the batch.
  WriteStatus send(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                   tunio::PacketBatch& batch, const StopSignal& stop);
  /// Seals and sends one record carrying `plaintext` (control frame) or, when empty, a
  /// heartbeat with `padding` random padding bytes.
  WriteStatus send_one(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                       ByteSpan plaintext, std::size_t padding, const StopSignal& stop);

  void set_mtu(std::size_t mtu) { mtu_ = std::min(mtu, max_mtu_); }
  Instant last_write() const { return last_write_; }
  /// Packets that could not be sealed (larger than the protocol's 16638-byte maximum, or
  /// a slot without the writer's room) and were dropped. Monotonic; read by any thread.
  std::uint64_t unsealable() const { return unsealable_.load(std::memory_order_relaxed); }
  /// The send counter of the codec (records sealed so far).
  std::uint64_t records_sealed() const { return codec_.send_counter(); }

 private:
  /// Seals slot i of `b` in place and queues it; false on counter exhaustion.
  bool seal_slot(tunio::PacketBatch& b, std::size_t i, const transport::UdpAddr& peer,
                 DatagramQueue& queue, bool& exhausted);
  WriteStatus flush(transport::UdpSocket& sock, std::span<const transport::OutDatagram> items,
                    const StopSignal& stop);

  wire::PacketCodec codec_;
  PaddingPolicy padding_;
  std::size_t mtu_;
  crypto::Rng& rng_;
  SessionCounters& counters_;
  DatagramEnvelope& env_;
  std::size_t max_mtu_;
  tunio::PacketBatch scratch_;  // MTU-sized segments of split super-packets
  tunio::SplitCursor split_;    // progress through the super-packet at the batch cursor
  DatagramQueue queue_;         // send()'s own queue
  Bytes one_;                   // send_one()'s datagram
  Instant last_write_;
  std::atomic<std::uint64_t> unsealable_{0};
};

}  // namespace qeli::engine
