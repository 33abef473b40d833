// PeerState: what one session learned about its peer during the data phase — its
// capabilities (our extensions it took) and the tunnel MTU it reported. Written by the
// session's receive side (tunnel::Receiver, from the peer's control frames), read by the
// send side once per batch (tunnel::Sender::refresh) and by the control plane at any time.
// The server keeps one in each server::Session; a client fills it from the handshake.
#pragma once

#include <atomic>
#include <cstdint>

namespace qeli::tunnel {

struct PeerState {
  /// The peer takes GSO chunk records (caps::kGsoSuperPackets): super-packets go whole.
  std::atomic<bool> gso{false};
  /// The peer takes session-close frames (caps::kCloseNotify).
  std::atomic<bool> close_notify{false};
  /// reality-tls: the peer proved it sees our TLS session (caps::kTlsBinding): data
  /// records go without the inner AEAD (wire/packet_codec.h "TLS-bound records").
  std::atomic<bool> tls_bound{false};
  /// The peer takes AES-256-GCM records (caps::kAesGcm): ours go so from the next batch
  /// (wire/record_aead.h). A server also learns it from the client's first AES record.
  std::atomic<bool> aes_gcm{false};
  /// The peer takes IPv6 packets inside the tunnel (caps::kIpv6Inside): without it, IPv6
  /// from it is dropped and none is sent to it (a 0.7.16 peer stays IPv4-only).
  std::atomic<bool> ipv6{false};
  /// Every extension bit the peer took from our offer (its capability frame; 0: none
  /// yet, or a 0.7.16 peer).
  std::atomic<std::uint32_t> caps{0};
  /// The tunnel MTU the peer reported (control frame 1, clamped to 576..16638; 0 = none).
  std::atomic<std::uint32_t> mtu{0};
};

}  // namespace qeli::tunnel
