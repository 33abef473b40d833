// UdpPeer: one authenticated UDP session as its worker holds it (server/udp_worker.h),
// and UdpRoamHandoff: a datagram passed between workers while its session roams.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/secret_bytes.h"
#include "engine/datagram_framer.h"
#include "engine/stop_signal.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/mtu_probe_responder.h"
#include "handshake/udp_server_handshake.h"
#include "server/session.h"
#include "transport/sock_addr.h"
#include "tunnel/session.h"
#include "wire/udp_envelope.h"

namespace qeli::server {

/// One authenticated UDP session. Its worker thread receives for it (tunnel->receiver());
/// its own `sender` thread seals what the TUN readers queue in session->inbox and sends
/// through `framer` on the worker's socket.
struct UdpPeer {
  std::shared_ptr<Session> session;
  transport::SockAddr addr;  ///< where it is now; written under *send_mu
  wire::UdpEnvelope hs_env;  ///< the handshake's envelope (owning worker's obfs): probe acks
  std::unique_ptr<engine::WireDatagramEnvelope> recv_env, send_env;
  /// The sender's framer (the worker receives for all its sessions itself).
  std::unique_ptr<engine::DatagramFramer> framer;
  /// Its receiver() is the worker thread's, its sender() the sender thread's.
  std::unique_ptr<tunnel::Session> tunnel;
  handshake::UdpAuthOkResender resender;
  handshake::MtuProbeResponder probes;
  Instant started;
  /// The mutex its framer holds around the socket (the creating worker's): `addr` is
  /// written under it, since the sender thread reads it there.
  std::mutex* send_mu = nullptr;
  /// The worker that owns it now (the sender wakes it when it ends).
  std::atomic<engine::Notifier*> owner_wake{nullptr};
  /// Roaming: the session secret its connection ids come from (null: it does not roam).
  std::shared_ptr<const crypto::Key32> roam_secret;
  std::uint32_t roam_epoch = 0;  ///< the CID epoch its index window starts at
  /// The client's path number as of its last roam: its epoch is path + counter / 2^32.
  std::uint32_t roam_path = 0;
  std::thread sender;
};

/// A datagram that arrived at one worker for a session another one owns.
struct UdpRoamHandoff {
  transport::SockAddr from;
  std::size_t arrived_at = 0;  ///< the worker whose socket the new address hashes to
  Bytes datagram;
  std::uint8_t hops = 0;
};

}  // namespace qeli::server
