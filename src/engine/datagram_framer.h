// DatagramFramer: a session's records over UDP, one record per datagram behind a
// DatagramEnvelope (reference qeli-0.7.16.md §3.9: record → optional QUIC-shaped short
// header → optional obfs seal → UDP).
//
//   write:   each queued record is wrapped in place (the envelope's head/tail room is
//            around it) and all go out with sendmmsg / UDP GSO (transport/udp_socket.h);
//            `send_mu` (nullable) is held around the socket's use, for a server worker's
//            socket shared by its sessions' senders;
//   receive: DatagramSource reads a batch (recvmmsg, UDP GRO split) STRAIGHT INTO the
//            free slots of the TUN write batch, one datagram per slot; each datagram from
//            the peer is opened in place by open() (unwrap, then the Receiver), a packet
//            stays in its slot trimmed to it; the rest free their slots; finish_batch()
//            drops the freed slots and coalesces the packets back into GSO packets
//            (gro_coalesce), so the TUN writes one super-packet where the peer's kernel
//            sent one. A bad datagram is a counted drop, never the end of the session.
// A server worker demultiplexes one socket for many sessions itself: DatagramSource,
// open() and finish_batch() are its building blocks.
//
// Nothing allocates after construction.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "engine/datagram_envelope.h"
#include "engine/frame_io.h"
#include "transport/udp_socket.h"
#include "tunio/offload_coalesce.h"
#include "tunio/packet_batch.h"

namespace qeli::engine {

/// Reads datagrams into a PacketBatch and keeps their source addresses.
class DatagramSource {
 public:
  /// For batches of up to `max_batch` packets.
  explicit DatagramSource(std::size_t max_batch);

  /// A TUN write batch that can take datagrams (slots of transport::kGroReadSize: the
  /// kernel writes GRO-coalesced reads into them, and coalescing needs the room).
  static tunio::PacketBatch make_batch(std::size_t packets);

  /// Appends up to batch.free_slots() received datagrams to `batch`. Returns how many
  /// (0: what was read was dropped, e.g. truncated; read again), or kWouldBlock /
  /// kSlotsTooSmall / kIo from the socket.
  Result<std::size_t, transport::UdpError> receive(transport::UdpSocket& sock,
                                                   tunio::PacketBatch& batch);
  /// Source of batch packet i, as received (valid until the next receive()).
  const transport::SockAddr& from(std::size_t i) const { return from_[i]; }

 private:
  std::vector<transport::RecvSlot> slots_;
  std::vector<transport::SockAddr> from_;
};

enum class DatagramOutcome : std::uint8_t {
  kPacket,     ///< an IPv4 packet, now in the slot
  kHeartbeat,  ///< empty plaintext (heartbeat or cover): slot freed
  kControl,    ///< a control frame, handled by the Receiver: slot freed
  kDropped,    ///< counted in the Receiver's drops(): slot freed
  kEnd,        ///< the session must end (a close frame it was asked to obey): slot freed
  /// An MTU probe (msg 4) or probe ack (msg 5) inside the session's envelope: the slot
  /// now holds the de-enveloped fragment (F0 9B 71 …) for the caller (a server answers
  /// probes; a client ignores stray acks). Never a record, so never a drop.
  kProbe,
};

/// Drops the freed slots of `batch` (keeping the order of the rest) and coalesces it:
/// `keep[i]` says whether packet i stays. Sets batch.coalesced(). Returns the number of
/// logical packets in the batch afterwards.
std::size_t finish_batch(tunio::PacketBatch& batch, const std::vector<bool>& keep,
                         const tunio::GroOptions& gro, tunio::GroTable& table);

class DatagramFramer final : public FrameIo {
 public:
  /// `sock`, `peer`, the envelopes (one per direction: they are not thread-safe) and
  /// `send_mu` must outlive the framer.
  DatagramFramer(transport::UdpSocket& sock, const transport::SockAddr& peer,
                 DatagramEnvelope& send_env, DatagramEnvelope& recv_env,
                 std::mutex* send_mu = nullptr, std::size_t max_batch = 128);

  /// Unwraps and opens the datagram in slot i of `batch` in place (see above).
  static DatagramOutcome open(tunnel::Receiver& rx, DatagramEnvelope& env,
                              tunio::PacketBatch& batch, std::size_t i, Instant now);

  int fd() const override { return sock_.fd(); }
  tunnel::CarrierRoom room() const override;
  WriteStatus write(tunnel::RecordQueue& records, const StopSignal& stop) override;
  /// Receives one batch from the socket (datagrams not from the peer are dropped:
  /// kUnknownSource), opens it and finishes it (kFlush), or kWouldBlock.
  ReceiveResult receive(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch, Instant now) override;
  tunio::PacketBatch make_tun_batch(std::size_t packets) const override;
  int farewell_copies() const override { return 3; }

  void set_gro(const tunio::GroOptions& gro) { gro_ = gro; }
  /// Datagrams that were MTU probes or acks (kProbe).
  std::uint64_t probes() const { return probes_; }

 private:
  transport::UdpSocket& sock_;
  const transport::SockAddr& peer_;
  DatagramEnvelope& send_env_;
  DatagramEnvelope& recv_env_;
  std::mutex* send_mu_;
  std::vector<transport::OutDatagram> out_;
  DatagramSource source_;
  tunio::GroOptions gro_;
  tunio::GroTable gro_table_;
  std::vector<bool> keep_;
  std::uint64_t probes_ = 0;
};

}  // namespace qeli::engine
