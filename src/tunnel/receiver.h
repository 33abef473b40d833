// Receiver: the receiving half of a session (sans-I/O: a record and `now` in, a verdict
// out), for either carrier.
//
//   open(record, now):
//     1. the record is opened IN PLACE (AEAD, then the replay window); a replay is a
//        counted drop on both carriers; any other failure is a counted drop on a
//        datagram carrier and ends a stream session (kBadRecord: 0.7.16 closes);
//     2. the plaintext is classified: empty = heartbeat; `C1 9B …` = control frame —
//        capabilities and the MTU report update PeerState, a session-close frame ends
//        the session when asked to (end_on_close_frame), GSO chunk frames (when we
//        accept them) are reassembled into a super-packet whose metadata is re-validated;
//        every parsed frame also goes to the host's on_control;
//     3. an IP packet must be IPv4 (0.7.16 carries v4 only; others are counted) and pass
//        the inbound filter (the server's source check and ACL, which count their
//        reasons); then rx_packets/rx_bytes count it and the verdict is kPacket.
//   deadline() / on_timer(now): liveness (nothing authenticated for `liveness`) and the
//   idle timeout (no IP packet either way for `idle_timeout`; heartbeats and control
//   frames do not count).
//
// One thread (the session's receive side). Nothing allocates after construction.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "base/bytes.h"
#include "base/clock.h"
#include "tunio/gso_metadata.h"
#include "tunnel/peer_state.h"
#include "tunnel/session_counters.h"
#include "tunnel/session_end.h"
#include "wire/control_frame.h"
#include "wire/gso_chunk.h"
#include "wire/packet_codec.h"

namespace qeli::tunnel {

enum class InboundKind : std::uint8_t {
  kPacket,     ///< an IP packet to deliver: `packet` (and `meta` for a super-packet)
  kHeartbeat,  ///< an empty record (heartbeat or cover)
  kControl,    ///< a control frame, handled (also a GSO chunk that did not complete yet)
  kDrop,       ///< counted in drops() by `drop` (or by the filter); the session goes on
  kEnd,        ///< the session ends with `end`
};

struct Inbound {
  InboundKind kind = InboundKind::kDrop;
  /// kPacket: the packet, inside the record given to open() — or, for a reassembled
  /// super-packet, inside the receiver's buffer until the next open().
  ByteSpan packet;
  tunio::GsoMetadata meta;                    ///< kPacket: plain, or the super-packet's (validated)
  RecordDrop drop = RecordDrop::kAuthFailed;  ///< kDrop
  SessionEnd end = SessionEnd::kStopped;      ///< kEnd
};

struct ReceiverParams {
  /// Receive-silence deadline (zero = none); usually HeartbeatPolicy::liveness().
  std::chrono::milliseconds liveness{0};
  /// No IP packet either way for this long ends the session (zero = never).
  std::chrono::milliseconds idle_timeout{0};
  /// Inbound IPv4 packets (≥ 20 bytes) pass this before delivery; false = drop (the
  /// filter counts why). Empty = deliver all.
  std::function<bool(ByteSpan packet)> inbound_filter;
  /// Every parsed control frame (after the receiver's own handling).
  std::function<void(const wire::ControlFrame&)> on_control;
  /// We advertised caps::kGsoSuperPackets: GSO chunk frames are reassembled.
  bool gso_receive = false;
  /// The extension bits we offered (a server: AUTH OK `x_caps`); the peer's capability
  /// frame picks from them into PeerState. Zero = ignore capability frames (a client).
  std::uint32_t offered_caps = 0;
  /// reality-tls, server: the client's TLS binding proof we expect (handshake/tls_binding.h)
  /// when we offered caps::kTlsBinding. Its frame, after a capability frame with the bit,
  /// lets both directions drop the inner AEAD (PeerState::tls_bound).
  std::optional<std::array<std::uint8_t, 32>> tls_binding_proof;
  /// reality-tls, client: the server's proof verified in the handshake: take TLS-bound
  /// records from the start.
  bool accept_tls_bound = false;
  /// A session-close frame from the peer ends the session (kClosedByPeer).
  bool end_on_close_frame = false;
  /// A byte-stream carrier: a record that fails to open ends the session.
  bool stream = true;
};

class Receiver {
 public:
  Receiver(ReceiverParams params, wire::PacketCodec codec, SessionCounters& counters,
           PeerState& peer, Instant now);

  /// Opens and classifies one record (header ‖ payload, exactly), in place (see above).
  Inbound open(MutableByteSpan record, Instant now);

  /// When on_timer() must run next (nullopt: no deadline).
  std::optional<Instant> deadline() const;
  /// kLiveness / kIdle when that deadline passed at `now`, else kStopped (= none).
  SessionEnd on_timer(Instant now);

  /// When a record last authenticated (liveness: only authenticated records count).
  Instant last_authenticated() const { return last_auth_; }
  const RecordDrops& drops() const { return drops_; }
  /// The highest record counter accepted so far: a roaming server moves a session only
  /// on a datagram that raised it (never back to an address on a late, reordered one).
  std::uint64_t highest_counter() const { return codec_.recv_top(); }
  void count_drop(RecordDrop d) { drops_.add(d); }
  SessionCounters& counters() { return counters_; }
  const ReceiverParams& params() const { return params_; }
  /// Replaces the host's control-frame handler (the loop chains its own in front).
  void set_on_control(std::function<void(const wire::ControlFrame&)> f) {
    params_.on_control = std::move(f);
  }

 private:
  Inbound control(ByteSpan plaintext);
  Inbound gso_chunk(ByteSpan plaintext);
  Inbound deliver(ByteSpan packet, const tunio::GsoMetadata& meta);
  /// An IPv4 packet, or an IPv6 one when the peer negotiated caps::kIpv6Inside (or
  /// may_infer_ipv6(): deliver() then takes it as negotiated once the filter passed it).
  bool is_ip_packet(ByteSpan p) const;
  bool may_infer_ipv6() const;

  ReceiverParams params_;
  wire::PacketCodec codec_;
  SessionCounters& counters_;
  PeerState& peer_;
  RecordDrops drops_;
  // Only when we accept GSO chunks: its 64 KiB buffer is zero-filled (resident).
  std::optional<wire::GsoAssembler> gso_;
  Instant last_auth_;
  std::uint64_t idle_packets_ = 0;
  Instant idle_since_;
  bool binding_offered_ = false;  // the peer's capability frame took caps::kTlsBinding
  bool peer_aes_ = false;         // PeerState::aes_gcm is set
};

}  // namespace qeli::tunnel
