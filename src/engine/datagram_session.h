// A UDP carrier's data phase for one session, after the handshake (reference
// qeli-0.7.16.md §3.9: one record per datagram).
//
//   send thread:    PacketSource (TUN reads on the client, the session inbox on the
//                   server) → DatagramWriter (split super-packets, seal in place, wrap)
//                   → UdpSocket::send (UDP_SEGMENT / sendmmsg); heartbeats when nothing
//                   was sent for the interval
//   receive loop:   UdpSocket::recv (recvmmsg, UDP GRO) → DatagramReceiver (unwrap, open
//                   in place, replay window) → inbound filter → GRO coalesce → TUN
//
// The client runs both for its one server (run_datagram_session). A server worker owns
// the receive side of all its sessions (one socket, demux by source address) and runs
// only run_datagram_sender per session, on a socket whose senders share a mutex.
// Liveness (nothing authenticated for liveness_ms) and the idle timeout end a session
// like on TCP; a bad datagram never does (counted by DatagramReceiver).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "base/bytes.h"
#include "crypto/random.h"
#include "engine/datagram_receiver.h"
#include "engine/datagram_writer.h"
#include "engine/padding_policy.h"
#include "engine/session_counters.h"
#include "engine/stop_signal.h"
#include "engine/stream_session.h"
#include "engine/traffic_account.h"
#include "transport/udp_socket.h"

namespace qeli::engine {

struct DatagramSessionConfig {
  HeartbeatPolicy heartbeat;
  /// Receive-silence deadline in ms (0 = none); usually heartbeat.liveness_ms().
  std::uint64_t liveness_ms = 0;
  /// No IP packet either way for this long (ms) ends the session; 0 = never.
  std::uint64_t idle_timeout_ms = 0;
  /// Inbound IPv4 packets pass this check before the TUN; false = drop (counted by it).
  std::function<bool(ByteSpan packet)> inbound_filter;
  /// Plaintexts (control frames) sent first, one record each.
  std::vector<Bytes> initial_frames;
  std::size_t batch_packets = 64;
  /// Server: the MTU the client reported when it is below the writer's (0 = none yet),
  /// written by the receive side; the sender lowers its padding cap to it (padding must
  /// not push a datagram past the client's path). Null = not tracked.
  const std::atomic<std::uint32_t>* peer_mtu = nullptr;
  /// Our close extension (caps::kCloseNotify), receiving end (run_datagram_session): a
  /// session-close frame ends the session at once with kClosedByPeer.
  bool end_on_close_frame = false;
  /// Sending end: when the sender stops, called with kStopped; a non-empty result (a
  /// session-close frame) is sent kFarewellCopies times, best effort (UDP may lose one).
  std::function<Bytes(SessionEnd)> farewell;
  /// Server: the user's shared download rate and quota (null = none), charged by
  /// run_datagram_sender per batch; the upload is policed by the caller's inbound filter.
  TrafficAccount* account = nullptr;
};

/// How many copies of a farewell frame a datagram sender sends.
inline constexpr int kFarewellCopies = 3;

/// Tracks the idle timeout and liveness of one session (called from one thread).
class SessionTimers {
 public:
  explicit SessionTimers(const DatagramSessionConfig& cfg);
  /// kLiveness / kIdle when that deadline passed at `now`, else kStopped (= none).
  SessionEnd check(const SessionCounters& counters, Instant last_authenticated, Instant now);

 private:
  std::uint64_t liveness_ms_;
  std::uint64_t idle_ms_;
  std::uint64_t packets_ = 0;
  Instant since_;
};

/// The batch a send loop fills: `packets` slots of `max_packet` bytes (whole super-packets
/// on a server, the TUN MTU on a client) with the writer's headroom and tailroom.
tunio::PacketBatch make_send_batch(std::size_t packets, std::size_t max_packet,
                                   const PaddingPolicy& padding, const DatagramEnvelope& env);

/// The send half (see above) until `stop` fires or sending fails. `send_mu` (nullable)
/// is held around every use of `sock`. Returns why it ended (kStopped on a stop).
SessionEnd run_datagram_sender(transport::UdpSocket& sock, std::mutex* send_mu,
                               const transport::UdpAddr& peer, DatagramWriter& writer,
                               PacketSource& source, tunio::PacketBatch& batch,
                               const DatagramSessionConfig& cfg, const StopSignal& stop,
                               SessionCounters& counters, crypto::Rng& rng);

/// The client's data phase: a send thread running run_datagram_sender and, on the calling
/// thread, the receive loop from `peer` into the TUN. Either half ending ends both.
SessionEnd run_datagram_session(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                                DatagramWriter& writer, DatagramReceiver& receiver,
                                PacketSource& source, tunio::PacketBatch& send_batch, TunWriter tun,
                                const DatagramSessionConfig& cfg, const StopSignal& stop,
                                SessionCounters& counters, crypto::Rng& rng);

}  // namespace qeli::engine
