// FfiClient: one libqeli handle — the transport-core ABI's state machine, event queue and
// request/answer plumbing around a client::ClientCore (the same core the `qeli client`
// daemon runs). c_api.cc turns the C calls into these methods; every method returns an
// ABI result code (include/qeli_transport_core.h) and never throws on purpose (c_api.cc
// still catches).
//
// The core runs on the thread that calls run(); its host callbacks (client::ClientEnv)
// become events here and block that thread until the app answers on another:
//   protect(fd)          → SOCKET_PROTECT {"fd":N}      → socket_protect_result
//   trust_on_first_use   → SERVER_IDENTITY {…}          → server_identity_result
//   open_tunnel          → STATE_CHANGED(AWAITING_NETWORK) + NETWORK_PLAN → plan_result
//                          (+ set_tun_fd first with QELI_PLATFORM_TUN_FD) → RUNNING
// stop() and free cancel every wait. Threading: every method from any thread; one mutex
// guards the state, the queue and the pending requests, never held while the core runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/core/client_core.h"
#include "config/client_config.h"
#include "ffi/event_queue.h"
#include "ffi/packet_pipe.h"
#include "handshake/types.h"
#include "transport/unique_fd.h"

namespace qeli::ffi {

enum class State : std::uint32_t {
  kCreated = 0,
  kConnecting = 1,
  kAwaitingNetwork = 2,
  kRunning = 3,
  kStopping = 4,
  kStopped = 5,
  kFailed = 6,
};

// ABI result codes (enum qeli_client_result).
namespace rc {
inline constexpr std::int32_t kOk = 0, kNoEvent = 1, kInvalidArgument = -1, kInvalidConfig = -2,
                              kInvalidState = -3, kStalePlan = -4, kEventQueueFull = -5,
                              kBufferTooSmall = -6, kInvalidHandle = -7, kPanic = -8,
                              kUnsupported = -9, kPlatformRejected = -10, kStaleRequest = -11;
}

// Platform capability bits (QELI_PLATFORM_*).
namespace platform {
inline constexpr std::uint64_t kRoutes = 1U << 0, kDns = 1U << 1, kKillSwitch = 1U << 2,
                               kTunFd = 1U << 3, kTunPacketBatch = 1U << 4,
                               kSocketProtect = 1U << 5, kServerIdentity = 1U << 6,
                               kTunWintun = 1U << 7;
/// Ours (bits 48..63 are this implementation's, clear of the original's numbering): the
/// app applies the plan's IPv6 fields, so the core may take IPv6 inside the tunnel.
inline constexpr std::uint64_t kIpv6 = std::uint64_t{1} << 48;  ///< QELI_PLATFORM_X_IPV6
}  // namespace platform

/// Bounds on what crosses the ABI.
inline constexpr std::size_t kMaxConfigBytes = 64 * 1024;
inline constexpr std::size_t kMaxRunInputBytes = 16 * 1024;
inline constexpr std::size_t kMaxReasonBytes = 4096;
inline constexpr std::size_t kMaxBatchPackets = 64;
inline constexpr std::uint32_t kDefaultEventCapacity = 64;
inline constexpr std::uint32_t kMinEventCapacity = 2, kMaxEventCapacity = 256;

/// What the run input JSON carries (qeli_client_run).
struct RunInput {
  std::vector<transport::SockAddr> carrier_addresses;
  std::vector<std::string> fallback_dns;
};
/// Strict: unknown keys, wrong types, strings that are no address (carrier addresses:
/// IPv4 or IPv6; DNS servers: IPv4) and more than 16 entries per list
/// are errors (the text says which).
Result<RunInput, std::string> parse_run_input(std::string_view json, std::uint16_t server_port);

/// Loads `text` (flat INI, or a qeli:// link) as `qeli client` loads a file or a link.
Result<config::ClientConfig, std::string> load_profile(std::string_view text);
/// The profile's pinned server key (`key`; empty or all zero: none).
std::optional<handshake::X25519Public> pinned_key(const config::ClientConfig& config);
/// The server's addresses, IPv4 and IPv6 (the name resolved now).
Result<std::vector<transport::SockAddr>, std::string> resolve_servers(
    const config::ClientConfig& config);

/// qeli_client_udp_probe: `timeout_ms` 100..5000 per attempt, 3 attempts. An ABI code;
/// on kOk the time to the first reply in `latency_ms`.
inline constexpr std::uint32_t kMinProbeTimeoutMs = 100, kMaxProbeTimeoutMs = 5000;
std::int32_t udp_probe(std::string_view profile, std::uint32_t timeout_ms,
                       std::uint64_t& latency_ms);

struct Stats {
  std::uint32_t state = 0;
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  std::uint64_t reconnects = 0, uptime_ms = 0, internal_drops = 0;
};

class FfiClient {
 public:
  FfiClient(config::ClientConfig config, std::uint64_t platform_caps, std::uint32_t capacity);
  ~FfiClient();

  std::int32_t start();
  std::int32_t run(const RunInput& input);
  std::int32_t stop();
  /// stop(), then drop queued events and requests; the handle is gone.
  void shutdown();
  std::int32_t set_device_id(const handshake::DeviceId& id);
  std::int32_t set_tun_fd(std::uint64_t generation, int fd);
  std::int32_t plan_result(std::uint64_t generation, bool applied, std::string reason);
  std::int32_t protect_result(std::uint64_t sequence, bool ok, std::string reason);
  std::int32_t identity_result(std::uint64_t sequence, bool ok, std::string reason);
  /// Copies the oldest event out (and pops it) when `fits(payload size)`; kNoEvent.
  template <class Sink>
  std::int32_t poll(Sink&& sink) {
    std::lock_guard lock(mu_);
    if (events_.empty()) return rc::kNoEvent;
    const std::int32_t r = sink(events_.front());
    if (r == rc::kOk) {
      events_.pop();
      cv_.notify_all();  // a request may be waiting for room
    }
    return r;
  }
  State state() const;
  Stats stats() const;
  std::uint16_t server_port() const { return config_.server.port; }
  /// The running generation's pipe (packet mode), or an error code.
  std::int32_t pipe_for(std::uint64_t generation, std::shared_ptr<PacketPipe>& out) const;

 private:
  struct Request {
    std::uint64_t sequence = 0;
    bool answered = false;
    bool ok = false;
    std::string reason;
  };
  class PlanTunnel;

  client::ClientEnv make_env();
  // Queues `e` when there is room, else waits for it (false: cancelled).
  bool push_request_locked(std::unique_lock<std::mutex>& lock, Event e, std::uint64_t& seq);
  // Waits for the answer to `req` (false: cancelled, or the app refused: fail_ set).
  bool await_locked(std::unique_lock<std::mutex>& lock, std::optional<Request>& req,
                    const char* what);
  std::int32_t answer_locked(std::optional<Request>& req, std::uint64_t sequence, bool ok,
                             std::string reason);
  void set_state_locked(State s);
  void fail_locked(std::int32_t code, const std::string& message);
  bool cancelled_locked() const { return cancel_ || state_ == State::kStopping; }
  void note_log(client::LogLevel level, const std::string& line);
  // The ERROR text of a run that ended without a stop (0.7.16: the failure's text, else
  // "transport disconnected").
  std::string run_end_locked(const client::ClientError& e) const;

  const config::ClientConfig config_;
  const std::uint64_t caps_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kCreated;
  EventQueue events_;
  bool cancel_ = false;   // free: every wait ends
  bool running_ = false;  // a run() is in progress
  std::shared_ptr<client::ClientCore> core_;
  handshake::DeviceId device_id_{};
  RunInput input_;
  std::optional<Request> protect_, identity_;
  std::uint64_t pending_plan_ = 0;  // generation awaiting the app's answer
  std::size_t pending_mtu_ = 0;     // its tunnel MTU
  bool pending_gso_ = false;        // its session carries super-packets
  std::optional<Request> plan_;
  std::uint64_t last_generation_ = 0;
  std::uint64_t running_generation_ = 0;
  transport::UniqueFd tun_fd_;  // adopted for pending_plan_
  std::uint64_t tun_fd_generation_ = 0;
  std::shared_ptr<PacketPipe> pipe_;
  // A failure that ends the run: its code and message (the ERROR event's).
  std::optional<std::pair<std::int32_t, std::string>> fail_;
  // Counters: the ended sessions' sums plus the live one's.
  Stats totals_;
  const tunnel::SessionCounters* live_ = nullptr;
  std::chrono::steady_clock::time_point running_since_{};
  std::deque<std::string> log_;  // the last lines of the core's log (the plan's)
  std::string last_problem_;     // this run's last warning or error line
  std::string session_end_;      // why this run's session ended (empty: none ran)
};

}  // namespace qeli::ffi
