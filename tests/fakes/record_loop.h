// RecordLoop: one direction of the TCP data plane without a TUN or a network, for the
// zero-allocation test and the pipeline benchmark. A fixed batch (MTU-sized IPv4 TCP
// packets and, with the GSO extension, TCP super-packets) is copied into a PacketBatch
// as a TUN read would, sealed in place by a tunnel::Sender and written by a
// StreamFramer to one end of a non-blocking AF_UNIX stream pair (a transport::TcpStream
// each), then read and deframed by the other end's StreamFramer and opened and rebuilt by
// a tunnel::Receiver — all on the calling thread.
//
// `carrier` puts the TCP obfs layers under the records on both ends (the XOR stream, and
// the WebSocket frames under it), so the same loop measures and checks those paths; the
// *HeaderXor carriers run the XOR stream as between two of ours (caps::kObfsHeaderXor:
// the sender switches with its first data record, and the bodies skip the keystream).
// `ends` = kSendOnly keeps the sending end only, over a CaptureStream that counts what
// reaches it (run_send(): the client's send path without a socket or a receiver).
// `aes`: the receiver takes AES-256-GCM records (caps::kAesGcm) next to ChaCha ones, as
// after a handshake that negotiated them; switch_to_aes() then switches the sender.
//
// Header-only so tests and benchmarks share it; needs qeli::engine and qeli::transport.
#pragma once

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "engine/stream_framer.h"
#include "fakes/capture_stream.h"
#include "fakes/packet_builder.h"
#include "fakes/socket_stream_pair.h"
#include "transport/obfs_stream.h"
#include "transport/ws_stream.h"
#include "tunnel/receiver.h"
#include "tunnel/sender.h"
#include "wire/udp_obfs.h"

namespace qeli::test {

/// The stream stack under the records (the values are pipeline_bench's `carrier`).
enum class LoopCarrier { kTcp, kObfs, kObfsWebSocket, kObfsHeaderXor, kObfsWebSocketHeaderXor };
enum class LoopEnds { kBoth, kSendOnly };

class RecordLoop {
 public:
  /// `mtu_packets` IPv4 TCP packets of `mtu` bytes and `super_packets` 64 KiB TCP
  /// super-packets (segment size mtu − 52) per batch, Tls framing, optional padding.
  /// The batch must fit the socket buffer (≈ 200 KiB unless SO_SNDBUFFORCE works).
  RecordLoop(std::size_t mtu_packets, std::size_t super_packets, std::size_t mtu,
             tunnel::PaddingPolicy padding = {}, LoopCarrier carrier = LoopCarrier::kTcp,
             bool aes = false, LoopEnds ends = LoopEnds::kBoth)
      : rng_(7),
        send_only_(ends == LoopEnds::kSendOnly),
        a_(stack(carrier, true)),
        b_(stack(carrier, false)),
        room_(engine::stream_room(a_->overhead())),
        tx_(sender_params(mtu, padding), wire::PacketCodec(wire::Framing::kTls, key_.span(), kSeed),
            room_, rng_, sent_, tx_peer_, Instant{}),
        rx_(receiver_params(super_packets > 0), receiving_codec(key_, aes), got_, rx_peer_,
            Instant{}),
        writer_(*a_, wire::Framing::kTls, {}),
        reader_(*b_, wire::Framing::kTls, {}),
        out_(mtu_packets + super_packets, wire::kMaxSuperPacket, room_.headroom(),
             room_.tailroom(padding)),
        in_(mtu_packets + super_packets, wire::kMaxSuperPacket) {
    tx_peer_.gso = super_packets > 0;
    tx_.refresh();
    if (ready() && !send_only_) {
      const int buf = 4 << 20;
      (void)::setsockopt(a_->fd(), SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf);
    }
    const auto mss = mtu - 52;  // IPv4 + TCP with timestamps
    for (std::size_t i = 0; i < mtu_packets; ++i) packets_.push_back({tcp4(1, mtu - 40), {}});
    for (std::size_t i = 0; i < super_packets; ++i) {
      PacketSpec s;
      s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
      s.payload = 65535 - 52;
      s.partial_csum = true;
      tunio::GsoMetadata meta{
          tunio::GsoType::tcp4, true, 52, static_cast<std::uint16_t>(mss), 20, 16};
      packets_.push_back({build_packet(s), meta});
    }
    for (const auto& p : packets_) batch_bytes_ += p.bytes.size();
  }

  bool ready() const { return send_only_ || (a_->fd() >= 0 && b_->fd() >= 0); }
  /// Inner IP bytes carried per iteration.
  std::size_t batch_bytes() const { return batch_bytes_; }

  /// The sending half of run_once(): fill, seal, write through the sender's stack.
  bool run_send() {
    out_.clear();
    for (const auto& p : packets_) {
      if (!out_.push(p.bytes, p.meta)) return false;
    }
    out_.set_cursor(0);
    tx_.sealer().restart();
    for (;;) {
      queue_.clear();
      tx_.recycle();
      const auto st = tx_.seal(out_, queue_);
      if (st == tunnel::SealStatus::kCounterExhausted) return false;
      if (!queue_.empty() && writer_.write(queue_, stop_) != engine::WriteStatus::kOk) return false;
      if (st == tunnel::SealStatus::kDone) break;
    }
    tx_.recycle();
    return true;
  }

  /// One batch through the whole path. Returns false if anything was lost or failed.
  bool run_once() {
    in_.clear();
    if (send_only_ || !run_send()) return false;
    using Status = engine::ReceiveResult::Status;
    for (int spins = 0; in_.size() < packets_.size(); ++spins) {
      const auto r = reader_.receive(rx_, in_, Instant{});
      if (r.status == Status::kFlush) break;  // exactly the batch arrived
      if (r.status == Status::kEnd) return false;
      if (spins > 100000) return false;
    }
    return in_.size() == packets_.size();
  }

  const tunio::PacketBatch& received() const { return in_; }
  /// The i-th packet of the batch as it was sent.
  const PacketBytes& sent(std::size_t i) const { return packets_[i].bytes; }
  /// Received packet i is byte-identical to sent packet i.
  bool intact(std::size_t i) const {
    const auto r = in_.packet(i);
    return std::equal(r.begin(), r.end(), packets_[i].bytes.begin(), packets_[i].bytes.end());
  }
  const tunnel::SessionCounters& receiver_counters() const { return got_; }
  /// The sender seals AES-256-GCM from the next batch (the receiver must take it: `aes`).
  void switch_to_aes() {
    tx_peer_.aes_gcm = true;
    tx_.refresh();
  }
  wire::RecordAeadKind sender_aead() { return tx_.sealer().aead(); }

 private:
  static constexpr std::array<std::uint8_t, 4> kSeed = {1, 2, 3, 4};

  static tunnel::SenderParams sender_params(std::size_t mtu, const tunnel::PaddingPolicy& p) {
    tunnel::SenderParams sp;
    sp.mtu = mtu;
    sp.padding = p;
    sp.heartbeat.enabled = false;
    sp.scratch_packets = 128;
    return sp;
  }
  static wire::PacketCodec receiving_codec(const crypto::Key32& key, bool aes) {
    wire::PacketCodec c(wire::Framing::kTls, key.span(), kSeed);
    if (aes) c.set_accept_aes(true);
    return c;
  }
  static tunnel::ReceiverParams receiver_params(bool gso) {
    tunnel::ReceiverParams rp;
    rp.gso_receive = gso;
    return rp;
  }

  struct Packet {
    PacketBytes bytes;
    tunio::GsoMetadata meta;
  };
  // One end of the socket pair (a: the sender, b: the receiver) with `carrier`'s layers.
  // With send_only_, both ends sit on a counting CaptureStream (b is never used).
  std::unique_ptr<transport::Stream> stack(LoopCarrier carrier, bool sender) {
    std::unique_ptr<transport::Stream> s;
    if (send_only_) {
      s = std::make_unique<CaptureStream>(false);
    } else {
      if (sender) pair_ = std::make_unique<SocketStreamPair>(socket_stream_pair());
      s = std::make_unique<transport::TcpStream>(std::move(sender ? pair_->a : pair_->b));
    }
    if (carrier == LoopCarrier::kTcp) return s;
    if (carrier == LoopCarrier::kObfsWebSocket || carrier == LoopCarrier::kObfsWebSocketHeaderXor) {
      s = std::make_unique<transport::WebSocketStream>(std::move(s), sender, rng_);
    }
    const bool header_xor =
        carrier == LoopCarrier::kObfsHeaderXor || carrier == LoopCarrier::kObfsWebSocketHeaderXor;
    const transport::ObfsNonce n1{1}, n2{2};
    auto x = std::make_unique<transport::ObfsXorStream>(std::move(s), wire::derive_obfs_key("loop"),
                                                        sender ? n1 : n2, sender ? n2 : n1, Bytes{},
                                                        crypto::kChaCha20StreamLimit, header_xor);
    if (sender) x->begin_header_only();  // no effect without header_xor
    return x;
  }

  crypto::Key32 key_;
  crypto::DeterministicRng rng_;
  bool send_only_;
  std::unique_ptr<SocketStreamPair> pair_;
  std::unique_ptr<transport::Stream> a_, b_;
  tunnel::CarrierRoom room_;
  tunnel::SessionCounters sent_, got_;
  tunnel::PeerState tx_peer_, rx_peer_;
  tunnel::Sender tx_;
  tunnel::Receiver rx_;
  engine::StreamFramer writer_, reader_;
  tunnel::RecordQueue queue_;
  engine::StopSignal stop_;
  tunio::PacketBatch out_, in_;
  std::vector<Packet> packets_;
  std::size_t batch_bytes_ = 0;
};

}  // namespace qeli::test
