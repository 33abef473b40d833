// The receiving half of a UDP carrier's data phase (reference qeli-0.7.16.md §3.9).
//
//   1. DatagramSource::receive() reads a batch of datagrams (recvmmsg, UDP GRO split)
//      STRAIGHT INTO the free slots of the TUN write batch, one datagram per slot, and
//      remembers each one's source address;
//   2. for each datagram the session it belongs to (the client: its one server; the
//      server: looked up by source address) calls DatagramReceiver::open(): unwrap the
//      envelope, open the record in place (AEAD, then the replay window), classify the
//      plaintext. An IPv4 packet stays in its slot, trimmed to the packet; a heartbeat or
//      a control frame (handed to the callback) frees the slot; a bad datagram is counted
//      by reason (DatagramDrop) and frees the slot — never fatal;
//   3. finish_batch() drops the freed slots (only descriptors move) and coalesces what is
//      left back into GSO packets with the TUN engine's gro_coalesce, so LinuxTun
//      writes one super-packet where the peer's kernel sent one.
// DatagramReceiver::receive() runs 1-3 for a socket that talks to one peer.
//
// The TUN batch needs slots of at least transport::kGroReadSize bytes when the socket
// uses UDP GRO (the kernel writes coalesced reads into the last slots), and room after
// each packet for coalescing; build it with make_batch().
//
// Nothing allocates after construction. One thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "base/clock.h"
#include "engine/datagram_counters.h"
#include "engine/datagram_envelope.h"
#include "engine/session_counters.h"
#include "transport/udp_socket.h"
#include "tunio/offload_coalesce.h"
#include "tunio/packet_batch.h"
#include "wire/control_frame.h"
#include "wire/packet_codec.h"

namespace qeli::engine {

/// Reads datagrams into a PacketBatch and keeps their source addresses.
class DatagramSource {
 public:
  /// For batches of up to `max_batch` packets.
  explicit DatagramSource(std::size_t max_batch);

  /// A TUN write batch that can take datagrams of `sock` (GRO-sized slots if needed).
  static tunio::PacketBatch make_batch(std::size_t packets);

  /// Appends up to batch.free_slots() received datagrams to `batch` (see 1. above).
  /// Returns how many (0: what was read was dropped, e.g. truncated; read again), or
  /// kWouldBlock / kSlotsTooSmall / kIo from the socket.
  Result<std::size_t, transport::UdpError> receive(transport::UdpSocket& sock,
                                                   tunio::PacketBatch& batch);
  /// Source of batch packet i, as received (valid until the next receive()).
  const transport::UdpAddr& from(std::size_t i) const { return from_[i]; }

 private:
  std::vector<transport::RecvSlot> slots_;
  std::vector<transport::UdpAddr> from_;
};

enum class DatagramOutcome : std::uint8_t {
  kPacket,     ///< an IPv4 packet, now in the slot
  kHeartbeat,  ///< empty plaintext (heartbeat or cover): slot freed
  kControl,    ///< a control frame, handed to the callback: slot freed
  kDropped,    ///< counted in drops(): slot freed
  /// An MTU probe (msg 4) or probe ack (msg 5) inside the session's envelope: the slot
  /// now holds the de-enveloped fragment (F0 9B 71 …) for the caller (a server answers
  /// probes; a client ignores stray acks). Never a record, so never a drop; counted in
  /// probes().
  kProbe,
};

/// Drops the freed slots of `batch` (keeping the order of the rest) and coalesces it:
/// `keep[i]` says whether packet i stays. Sets batch.coalesced(). Returns the number of
/// logical packets in the batch afterwards.
std::size_t finish_batch(tunio::PacketBatch& batch, const std::vector<bool>& keep,
                         const tunio::GroOptions& gro, tunio::GroTable& table);

struct ReceiveReport {
  std::size_t datagrams = 0;  ///< datagrams read from the socket
  std::size_t packets = 0;    ///< IP packets now in the batch (logical, before coalescing)
  std::size_t dropped = 0;
};

/// One session's inbound half.
class DatagramReceiver {
 public:
  using ControlHandler = std::function<void(const wire::ControlFrame&)>;

  DatagramReceiver(wire::PacketCodec codec, SessionCounters& counters,
                   DatagramEnvelope& env = no_envelope(), ControlHandler on_control = nullptr,
                   std::size_t max_batch = 128);

  /// Opens the datagram in slot i of `batch` in place (see 2. above).
  DatagramOutcome open(tunio::PacketBatch& batch, std::size_t i);

  /// For a socket with one peer: receive into `batch` (which should be empty), drop
  /// datagrams not from `peer` (kUnknownSource), open the rest, finish_batch().
  /// The batch is then ready for LinuxTun::write_batch. Errors are the socket's.
  Result<ReceiveReport, transport::UdpError> receive(transport::UdpSocket& sock,
                                                     const transport::UdpAddr& peer,
                                                     tunio::PacketBatch& batch);

  void set_gro(const tunio::GroOptions& gro) { gro_ = gro; }
  const ControlHandler& on_control() const { return on_control_; }
  void set_on_control(ControlHandler h) { on_control_ = std::move(h); }
  const DatagramDrops& drops() const { return drops_; }
  void count_drop(DatagramDrop d) { drops_.count(d); }
  /// When a record last authenticated (liveness: only authenticated records count).
  Instant last_authenticated() const { return last_auth_; }
  /// Datagrams that were MTU probes or acks (kProbe).
  std::uint64_t probes() const { return probes_; }

 private:
  wire::PacketCodec codec_;
  SessionCounters& counters_;
  DatagramEnvelope& env_;
  ControlHandler on_control_;
  DatagramDrops drops_;
  DatagramSource source_;
  tunio::GroOptions gro_;
  tunio::GroTable gro_table_;
  std::vector<bool> keep_;
  Instant last_auth_;
  std::uint64_t probes_ = 0;
};

}  // namespace qeli::engine
