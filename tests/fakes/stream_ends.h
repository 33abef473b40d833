// The two ends of one direction of the stream data path as unit tests drive them, on the
// calling thread: StreamTx seals a batch with a tunnel::Sender and writes it through an
// engine::StreamFramer (engine::send_batch, what the session loop does per batch);
// StreamRx reads through a StreamFramer and opens with a tunnel::Receiver.
// Header-only; needs qeli::engine.
#pragma once

#include <functional>
#include <optional>

#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "tunnel/receiver.h"
#include "tunnel/sender.h"

namespace qeli::test {

class StreamTx {
 public:
  StreamTx(transport::Stream& stream, wire::PacketCodec codec, tunnel::PaddingPolicy padding,
           std::size_t mtu, crypto::Rng& rng, tunnel::SessionCounters& counters)
      : framer_(stream, codec.framing(), {}),
        tx_(params(padding, mtu), std::move(codec), framer_.room(), rng, counters, peer_,
            Instant{}) {}

  std::size_t headroom() const { return framer_.room().headroom(); }
  std::size_t tailroom(const tunnel::PaddingPolicy& p) const { return framer_.room().tailroom(p); }
  /// The peer negotiated caps::kGsoSuperPackets (read at the next batch).
  void set_peer_gso(bool on) { peer_.gso = on; }
  engine::WriteStatus seal_and_write(tunio::PacketBatch& batch, const engine::StopSignal& stop) {
    const auto e = engine::send_batch(tx_, framer_, batch, queue_, stop);
    if (!e) return engine::WriteStatus::kOk;
    return *e == tunnel::SessionEnd::kStopped ? engine::WriteStatus::kStopped
                                              : engine::WriteStatus::kError;
  }
  tunnel::Sender& sender() { return tx_; }

 private:
  static tunnel::SenderParams params(const tunnel::PaddingPolicy& padding, std::size_t mtu) {
    tunnel::SenderParams p;
    p.padding = padding;
    p.mtu = mtu;
    p.heartbeat.enabled = false;
    p.scratch_packets = 128;
    return p;
  }
  engine::StreamFramer framer_;
  tunnel::PeerState peer_;
  tunnel::Sender tx_;
  tunnel::RecordQueue queue_;
};

class StreamRx {
 public:
  enum class Status { kOk, kWouldBlock, kFull, kEnd };
  StreamRx(transport::Stream& stream, wire::PacketCodec codec, tunnel::SessionCounters& counters,
           std::function<void(const wire::ControlFrame&)> on_control = nullptr, bool gso = false)
      : framer_(stream, codec.framing(), {}),
        rx_(params(std::move(on_control), gso), std::move(codec), counters, peer_, Instant{}) {}

  /// Reads once and opens what arrived into `batch`.
  Status receive(tunio::PacketBatch& batch) {
    last_ = framer_.receive(rx_, batch, Instant{});
    switch (last_.status) {
      case engine::ReceiveResult::Status::kAgain: return Status::kOk;
      case engine::ReceiveResult::Status::kFlush: return Status::kFull;
      case engine::ReceiveResult::Status::kWouldBlock: return Status::kWouldBlock;
      case engine::ReceiveResult::Status::kEnd: break;
    }
    return Status::kEnd;
  }
  const char* why() const { return tunnel::to_string(last_.end); }
  tunnel::Receiver& receiver() { return rx_; }

 private:
  static tunnel::ReceiverParams params(std::function<void(const wire::ControlFrame&)> f, bool gso) {
    tunnel::ReceiverParams p;
    p.on_control = std::move(f);
    p.gso_receive = gso;
    return p;
  }
  engine::StreamFramer framer_;
  tunnel::PeerState peer_;
  tunnel::Receiver rx_;
  engine::ReceiveResult last_;
};

}  // namespace qeli::test
