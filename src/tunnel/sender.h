// Sender: the sending half of a session (sans-I/O), for either carrier: the Sealer plus
// what the send side decides on its own — the control frames sent first (the client's MTU
// report and info), the heartbeat when nothing was sent for the interval (+ jitter), the
// farewell (a session-close frame) when the session ends, and the peer's capabilities and
// MTU read once per batch (refresh()).
//
// The caller (engine/session_loop) writes what it returns through the carrier's framer
// and calls on_sent(now) after every successful write; deadline() says when on_timer()
// must run next. One thread (the session's sender).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "tunnel/peer_state.h"
#include "tunnel/sealer.h"
#include "tunnel/session_end.h"

namespace qeli::tunnel {

struct SenderParams {
  std::size_t mtu = 1400;  ///< the tunnel MTU in bytes
  PaddingPolicy padding;
  HeartbeatPolicy heartbeat;
  /// Plaintexts (control frames) sent first, one record each.
  std::vector<Bytes> initial_frames;
  /// Called once when the session ends, with why; a non-empty result (a session-close
  /// frame) is sent best effort. Null: no farewell.
  std::function<Bytes(SessionEnd)> farewell;
  /// Largest packet the packet source hands over (bytes): a 64 KiB super-packet, or the
  /// MTU for a source that reads MTU-sized packets (sizes the send batch's slots).
  std::size_t max_packet = 65535;
  /// Slots of the split scratch batch (see Sealer).
  std::size_t scratch_packets = 64;
};

/// One record to write, or why the session must end.
struct Outbound {
  enum class Kind : std::uint8_t { kNone, kRecord, kEnd } kind = Kind::kNone;
  MutableByteSpan record;                 ///< kRecord: sealed, with the carrier's room around it
  SessionEnd end = SessionEnd::kStopped;  ///< kEnd
};

class Sender {
 public:
  Sender(SenderParams params, wire::PacketCodec codec, CarrierRoom room, crypto::Rng& rng,
         SessionCounters& counters, PeerState& peer, Instant now);

  /// Applies what the receive side learned about the peer (GSO, its MTU). Once per batch.
  void refresh();
  /// Seals a batch (Sealer::seal); recycle() once the queued records were written.
  SealStatus seal(tunio::PacketBatch& batch, RecordQueue& out) { return sealer_.seal(batch, out); }
  void recycle() { sealer_.recycle(); }

  /// The initial control frames, one record at a time: frame i (nullopt past the last).
  std::optional<Outbound> initial(std::size_t i);
  /// A record carrying `plaintext` (a control frame).
  Outbound control(ByteSpan plaintext);
  /// The farewell record for a session that ends with `why` (kNone: nothing to say).
  Outbound farewell(SessionEnd why);

  /// Something was written at `now`: the heartbeat interval starts again.
  void on_sent(Instant now);
  /// When on_timer() must run next (nullopt: heartbeat off).
  std::optional<Instant> deadline() const;
  /// A heartbeat record when one is due at `now` (an empty record with data_size ..
  /// data_size + 32 random padding bytes, 0.7.16), counted in heartbeats_tx.
  Outbound on_timer(Instant now);

  Sealer& sealer() { return sealer_; }
  const SenderParams& params() const { return params_; }

 private:
  Outbound sealed(ByteSpan plaintext, std::size_t padding);

  SenderParams params_;
  Sealer sealer_;
  crypto::Rng& rng_;
  SessionCounters& counters_;
  PeerState& peer_;
  Instant heartbeat_due_;
};

}  // namespace qeli::tunnel
