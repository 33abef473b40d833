// The two ends of one direction of the UDP data path as unit tests drive them, on the
// calling thread: DatagramTx seals with a tunnel::Sender and sends through an
// engine::DatagramFramer (engine::send_batch, what the session loop does per batch);
// DatagramRx receives through a DatagramFramer and opens with a tunnel::Receiver.
// Header-only; needs qeli::engine.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/datagram_framer.h"
#include "engine/session_loop.h"
#include "tunnel/receiver.h"
#include "tunnel/sender.h"

namespace qeli::test {

inline tunnel::CarrierRoom datagram_room(const engine::DatagramEnvelope& env) {
  tunnel::CarrierRoom r;
  r.head = env.headroom();
  r.tail = env.tailroom();
  r.stream = false;
  return r;
}

class DatagramTx {
 public:
  DatagramTx(wire::PacketCodec codec, tunnel::PaddingPolicy padding, std::size_t mtu,
             crypto::Rng& rng, tunnel::SessionCounters& counters,
             engine::DatagramEnvelope& env = engine::no_envelope())
      : env_(env),
        tx_(params(padding, mtu), std::move(codec), datagram_room(env), rng, counters, peer_,
            Instant{}) {}

  static std::size_t headroom(const engine::DatagramEnvelope& env) {
    return datagram_room(env).headroom();
  }
  static std::size_t tailroom(const tunnel::PaddingPolicy& p, const engine::DatagramEnvelope& env) {
    return datagram_room(env).tailroom(p);
  }

  /// Seals all of `batch` and sends it to `peer` from `sock`.
  engine::WriteStatus send(transport::UdpSocket& sock, const transport::SockAddr& peer,
                           tunio::PacketBatch& batch, const engine::StopSignal& stop) {
    const auto e = engine::send_batch(tx_, framer(sock, peer), batch, queue_, stop);
    if (!e) return engine::WriteStatus::kOk;
    return *e == tunnel::SessionEnd::kStopped ? engine::WriteStatus::kStopped
                                              : engine::WriteStatus::kError;
  }
  /// One record carrying `plaintext`, or a heartbeat with `padding` bytes when empty.
  engine::WriteStatus send_one(transport::UdpSocket& sock, const transport::SockAddr& peer,
                               ByteSpan plaintext, std::size_t padding,
                               const engine::StopSignal& stop) {
    auto r = tx_.sealer().seal_one(plaintext, padding);
    if (!r.ok()) return engine::WriteStatus::kError;
    queue_.clear();
    queue_.push(*r);
    return framer(sock, peer).write(queue_, stop);
  }
  /// Seals from the batch's cursor into `q` (Sealer::seal).
  tunnel::SealStatus seal(tunio::PacketBatch& batch, tunnel::RecordQueue& q) {
    return tx_.seal(batch, q);
  }
  void recycle() { tx_.recycle(); }
  /// The queued records as datagrams to `peer`, each wrapped in the envelope.
  std::vector<transport::OutDatagram> wrap(tunnel::RecordQueue& q,
                                           const transport::SockAddr& peer) {
    std::vector<transport::OutDatagram> out;
    for (std::size_t i = 0; i < q.size(); ++i) {
      const MutableByteSpan r = q[i];
      const MutableByteSpan d(r.data() - env_.headroom(),
                              env_.headroom() + r.size() + env_.tailroom());
      env_.wrap(d);
      out.push_back({d.data(), d.size(), &peer});
    }
    return out;
  }

 private:
  static tunnel::SenderParams params(const tunnel::PaddingPolicy& padding, std::size_t mtu) {
    tunnel::SenderParams p;
    p.padding = padding;
    p.mtu = mtu;
    p.heartbeat.enabled = false;
    return p;
  }
  // One framer per (socket, peer), built on first use (it allocates; sends do not).
  engine::DatagramFramer& framer(transport::UdpSocket& sock, const transport::SockAddr& peer) {
    if (!io_ || io_sock_ != &sock || io_peer_ != &peer) {
      io_ = std::make_unique<engine::DatagramFramer>(sock, peer, env_, env_);
      io_sock_ = &sock;
      io_peer_ = &peer;
    }
    return *io_;
  }
  engine::DatagramEnvelope& env_;
  tunnel::PeerState peer_;
  tunnel::Sender tx_;
  tunnel::RecordQueue queue_;
  std::unique_ptr<engine::DatagramFramer> io_;
  const transport::UdpSocket* io_sock_ = nullptr;
  const transport::SockAddr* io_peer_ = nullptr;
};

class DatagramRx {
 public:
  DatagramRx(wire::PacketCodec codec, tunnel::SessionCounters& counters,
             engine::DatagramEnvelope& env = engine::no_envelope())
      : env_(env), rx_(params(), std::move(codec), counters, peer_, Instant{}) {}

  /// One receive from `sock` (datagrams not from `peer` are dropped), opened and
  /// coalesced into `batch`: how many IP packets it holds (logical, before coalescing), or
  /// the socket's error (kWouldBlock).
  Result<std::size_t, transport::UdpError> receive(transport::UdpSocket& sock,
                                                   const transport::SockAddr& peer,
                                                   tunio::PacketBatch& batch) {
    if (!io_) io_ = std::make_unique<engine::DatagramFramer>(sock, peer, env_, env_);
    const auto r = io_->receive(rx_, batch, Instant{});
    if (r.status == engine::ReceiveResult::Status::kWouldBlock) {
      return fail(transport::UdpError::kWouldBlock);
    }
    if (r.status == engine::ReceiveResult::Status::kEnd) return fail(transport::UdpError::kIo);
    std::size_t logical = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) logical += batch.logical(i);
    return logical;
  }
  /// Opens slot i of `batch` in place (DatagramFramer::open).
  engine::DatagramOutcome open(tunio::PacketBatch& batch, std::size_t i) {
    const auto o = engine::DatagramFramer::open(rx_, env_, batch, i, Instant{});
    if (o == engine::DatagramOutcome::kProbe) ++probes_;
    return o;
  }
  const tunnel::RecordDrops& drops() const { return rx_.drops(); }
  std::uint64_t probes() const { return probes_ + (io_ ? io_->probes() : 0); }
  tunnel::Receiver& receiver() { return rx_; }

 private:
  static tunnel::ReceiverParams params() {
    tunnel::ReceiverParams p;
    p.stream = false;
    return p;
  }
  engine::DatagramEnvelope& env_;
  tunnel::PeerState peer_;
  tunnel::Receiver rx_;
  std::unique_ptr<engine::DatagramFramer> io_;
  std::uint64_t probes_ = 0;
};

}  // namespace qeli::test
