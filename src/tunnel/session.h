// tunnel::Session: one qeli session's data plane, sans-I/O — what boringtun's Tunn is
// for WireGuard. It owns both directions' record codecs and everything the data phase
// decides (docs/PROTOCOL.md "Data records", "Control frames"):
//
//   sender()    seal in place into a RecordQueue (GSO chunk records or split
//               super-packets), initial control frames, heartbeats, the farewell frame
//   receiver()  open in place and classify (packet / heartbeat / control / drop with a
//               counted reason / end), capabilities and the MTU report into PeerState,
//               the close extension, GSO chunk reassembly, liveness and idle deadlines
//   end()       why the session ended: the first reason recorded wins
//
// It never touches an fd or a clock: the caller passes `now` in and asks deadline(). The
// two halves are used by two threads at once (a sender and a receiver); they share only
// the counters, PeerState and the end latch, which are atomic. The carrier is described
// by a CarrierRoom; engine/session_loop.h runs a Session over a stream or a datagram
// framer, and tests/unit/tunnel drive one by hand with a fake clock.
#pragma once

#include <optional>

#include "crypto/random.h"
#include "tunnel/receiver.h"
#include "tunnel/sender.h"

namespace qeli::tunnel {

struct SessionParams {
  SenderParams send;
  ReceiverParams receive;

  /// Fills both halves from what was pushed / configured: padding (with the traffic
  /// normalization's round sizes), heartbeat, the liveness deadline derived from the
  /// heartbeat (0.7.16 §3.6).
  void apply(const PushedParams& p) {
    send.padding = p.padding;
    send.padding.round_count = 0;
    if (p.normalization.enabled) send.padding.set_round_sizes(p.normalization.round_sizes);
    send.heartbeat = p.heartbeat;
    receive.liveness = p.heartbeat.liveness();
  }
};

class Session {
 public:
  /// `send`/`recv`: the codecs of the two directions from the handshake. `peer` (null:
  /// the session keeps its own) and `counters` must outlive the session; `rng` feeds
  /// padding and heartbeat jitter.
  Session(SessionParams params, wire::PacketCodec send, wire::PacketCodec recv, CarrierRoom room,
          crypto::Rng& rng, SessionCounters& counters, PeerState* peer, Instant now);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Sender& sender() { return sender_; }
  Receiver& receiver() { return receiver_; }
  const CarrierRoom& room() const { return room_; }
  PeerState& peer() { return *peer_; }
  SessionCounters& counters() { return counters_; }
  EndLatch& end() { return end_; }

  /// The earlier of both halves' deadlines (for a caller that drives both on one thread).
  std::optional<Instant> deadline() const;

 private:
  CarrierRoom room_;
  PeerState own_peer_;
  PeerState* peer_;
  SessionCounters& counters_;
  EndLatch end_;
  Sender sender_;
  Receiver receiver_;
};

}  // namespace qeli::tunnel
