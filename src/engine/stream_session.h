// A stream carrier's data phase for one connection, after the handshake.
//
//   send thread:    PacketSource (TUN reads on the client, the session inbox on the
//                   server) → RecordWriter (seal in place) → transport::Stream;
//                   heartbeats when nothing was sent for the interval
//   calling thread: Stream → RecordReceiver (open in place, replay window) → inbound
//                   filter → TUN write batch (GRO coalesce) → TUN queue
//
// Encryption and decryption of one session run on different cores. Either side ending
// (peer close, socket error, bad record, liveness deadline, stop) ends both, and
// run_stream_session returns why.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "base/bytes.h"
#include "crypto/random.h"
#include "engine/padding_policy.h"
#include "engine/record_writer.h"
#include "engine/session_counters.h"
#include "engine/stop_signal.h"
#include "engine/traffic_account.h"
#include "transport/stream.h"
#include "tunio/linux_tun.h"
#include "wire/control_frame.h"
#include "wire/packet_codec.h"

namespace qeli::engine {

/// Where the send thread takes IP packets from. Implementations are called from the
/// send thread only.
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  /// An fd that is readable (POLLIN) when fill() may have packets.
  virtual int fd() const = 0;
  /// Appends packets to `batch` (which has the writer's headroom/tailroom). Returns false
  /// on a fatal error of the source (e.g. the TUN went away).
  virtual bool fill(tunio::PacketBatch& batch) = 0;
  /// The batch the send thread fills and seals: `packets` slots of up to the largest
  /// tunnel packet, with the writer's `headroom` and `tailroom`.
  virtual tunio::PacketBatch make_batch(std::size_t packets, std::size_t headroom,
                                        std::size_t tailroom) const;
};

/// A TUN queue as a PacketSource (client side): reads IPv4 packets — MTU-sized ones when
/// the TUN is in ReadMode::split, whole super-packets with metadata in keep_whole (only
/// when the peer negotiated the GSO extension). IPv6 and anything else is counted and
/// dropped, as 0.7.16 carries IPv4 only.
class TunQueueSource final : public PacketSource {
 public:
  TunQueueSource(tunio::LinuxTun& tun, std::size_t queue, SessionCounters& counters)
      : tun_(tun), queue_(queue), counters_(counters) {}
  int fd() const override { return tun_.fd(queue_); }
  bool fill(tunio::PacketBatch& batch) override;

 private:
  tunio::LinuxTun& tun_;
  std::size_t queue_;
  SessionCounters& counters_;
};

/// Serialises writers of one TUN queue (several sessions may share it on a server).
struct TunWriter {
  tunio::LinuxTun* tun = nullptr;
  std::size_t queue = 0;
  std::mutex* mu = nullptr;  ///< null when this thread is the queue's only writer
};

/// What a batch handed to flush_tun() already went through.
enum class TunBatchKind : std::uint8_t {
  kRecords,          ///< opened stream records: flush_tun coalesces and counts rx_packets
  kOpenedDatagrams,  ///< DatagramReceiver output: coalesced (finish_batch) and counted
};

/// Writes batch[0..] to the TUN queue, waiting for POLLOUT while the queue is full, then
/// clears the batch. False if the TUN failed.
bool flush_tun(TunWriter& tw, tunio::PacketBatch& batch, const StopSignal& stop,
               SessionCounters& counters, TunBatchKind kind = TunBatchKind::kRecords);

enum class SessionEnd {
  kStopped,           ///< the stop signal fired
  kPeerClosed,        ///< the peer closed the connection
  kSocketError,       ///< send or receive failed
  kBadRecord,         ///< a record failed to authenticate or parse
  kRecordFraming,     ///< an over-long or malformed record header
  kLiveness,          ///< nothing authenticated arrived within the liveness deadline
  kTunError,          ///< the TUN failed
  kCounterExhausted,  ///< the send counter ran out: reconnect
  kIdle,              ///< no IP packet either way for idle_timeout_ms
  kClosedByPeer,      ///< the peer sent a session-close frame (our extension)
  kQuotaExhausted,    ///< server: the user's download quota is used up (TrafficAccount)
};
const char* to_string(SessionEnd e);

/// Why a session ended, shared by its threads: the first stage to end records why; later
/// ones keep the first reason. get() is kStopped while nothing was recorded.
class EndReason {
 public:
  void set(SessionEnd e);
  SessionEnd get() const;

 private:
  std::atomic<int> value_{-1};
};

/// The session end that a writer's status means (kOk and kStopped: kStopped).
SessionEnd from_write(WriteStatus s);
/// Milliseconds from now until `t` for poll(), 0 if it has passed.
int ms_until(Instant t);

struct StreamSessionConfig {
  std::size_t mtu = 1400;
  PaddingPolicy padding;
  HeartbeatPolicy heartbeat;
  /// Receive-silence deadline in ms (0 = none); usually heartbeat.liveness_ms().
  std::uint64_t liveness_ms = 0;
  /// End the session when no IP packet crossed it in either direction for this long, in
  /// ms (heartbeats and control frames do not count); 0 = never. Server policy
  /// `perf.connection.idle_timeout_secs`.
  std::uint64_t idle_timeout_ms = 0;
  /// Inbound IPv4 packets pass this check before they reach the TUN (server: source
  /// address check and client_to_client); false = drop (the filter counts why).
  std::function<bool(ByteSpan packet)> inbound_filter;
  std::function<void(const wire::ControlFrame&)> on_control;
  /// Plaintexts (control frames) sent first, e.g. the client's MTU report and info.
  std::vector<Bytes> initial_frames;
  std::size_t batch_packets = 64;
  /// Accept GSO chunk frames from the peer (we advertised caps::kGsoSuperPackets).
  bool gso_receive = false;
  /// The peer accepts GSO chunk frames (read before every batch: the server learns it
  /// from the client's capability frame mid-session). Null or false: super-packets are
  /// split into MTU-sized packets before sealing (0.7.16 peers).
  const std::atomic<bool>* send_gso = nullptr;
  /// Our close extension (caps::kCloseNotify), receiving end: a session-close frame from
  /// the peer ends the session at once with kClosedByPeer (on_control still sees it).
  bool end_on_close_frame = false;
  /// Sending end: called once by the send thread when the session ends while the stream
  /// is at a record boundary, with why it ended; a non-empty result (a session-close
  /// frame) is sealed and written best effort (never blocks: a full socket drops it).
  std::function<Bytes(SessionEnd)> farewell;
  /// Server: the user's shared rate limits and download quota (null = none): the send
  /// thread and the receive loop charge each batch (engine/traffic_pacing.h).
  TrafficAccount* account = nullptr;
};

/// Runs the data phase over `stream` (the top of the connection's stream stack, which
/// must outlive the call).
SessionEnd run_stream_session(transport::Stream& stream, wire::PacketCodec send,
                              wire::PacketCodec recv, ByteSpan leftover, PacketSource& source,
                              TunWriter tun, const StreamSessionConfig& config,
                              const StopSignal& stop, SessionCounters& counters, crypto::Rng& rng);

}  // namespace qeli::engine
