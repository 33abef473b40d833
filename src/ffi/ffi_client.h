// FfiClient: one libqeli handle — the transport-core ABI's state machine, event queue and
// request/answer plumbing around a client::ClientCore (the same core the `qeli client`
// daemon runs), with qeli 0.7.16's rules (its transport_core/mod.rs): c_api.cc turns the
// C calls into these methods; every method returns an ABI result code
// (include/qeli_transport_core.h) and never throws on purpose (c_api.cc still catches).
//
// The core runs on the thread that calls run(), one connection per run; its host
// callbacks (client::ClientEnv) become events here and block that thread until the app
// answers on another:
//   protect(fd)          → SOCKET_PROTECT {"fd":N}      → socket_protect_result
//   confirm_server       → SERVER_IDENTITY {…}          → server_identity_result
//   open_tunnel          → STATE_CHANGED(AWAITING_NETWORK) + NETWORK_PLAN → plan_result
//                          (+ set_tun_fd first with QELI_PLATFORM_TUN_FD) → RUNNING
// An answer takes effect in the answering call: a refusal queues ERROR + FAILED there and
// then. stop() is STOPPING + STOPPED at once; the run winds down behind it, and a start
// may follow at once: each start begins an epoch, and a run, its waits and its end touch
// the handle only while its epoch is the current one and not stopped. free cancels
// everything. Threading: every method from any thread; one mutex guards the state, the
// queue and the pending requests, never held while the core runs.
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

#include "base/utf8.h"
#include "client/core/client_core.h"
#include "config/client_config.h"
#include "ffi/event_queue.h"
#include "ffi/handle_stats.h"
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

/// Bounds on what crosses the ABI (0.7.16's).
inline constexpr std::size_t kMaxConfigBytes = 256 * 1024;
inline constexpr std::size_t kMaxRunInputBytes = 16 * 1024;
inline constexpr std::size_t kMaxHandshakeNetworkBytes = 256 * 1024;
/// How long a run waits for the app's answer to its NETWORK_PLAN (0.7.16's bound); the
/// first SOCKET_PROTECT of a run waits the profile's `timeout`.
inline constexpr std::chrono::seconds kPlanAckTimeout{45};
/// An app's reason (any length) and every ERROR text are cut to this many characters.
inline constexpr std::size_t kMaxErrorChars = 512;
inline constexpr std::size_t kMaxBatchPackets = 64;
inline constexpr std::size_t kMaxPacketBytes = 65535;  ///< a pushed packet's largest size
inline constexpr std::uint32_t kDefaultEventCapacity = 64;
inline constexpr std::uint32_t kMinEventCapacity = 2, kMaxEventCapacity = 256;

/// The run input JSON as the app wrote it (qeli_client_run): what parse_run_input takes.
struct RunInputText {
  std::vector<std::string> carrier_addresses;
  std::vector<std::string> fallback_dns;
};
/// The run input, its values checked (check_run_input).
struct RunInput {
  std::vector<transport::SockAddr> carrier_addresses;
  std::vector<std::string> fallback_dns;
};
/// The JSON's shape, as 0.7.16 reads it (an error is INVALID_ARGUMENT): an object with
/// only "carrier_addresses" and "fallback_dns_servers", each an array of strings; empty
/// text is `{}`.
Result<RunInputText, std::string> parse_run_input(std::string_view json);
inline constexpr std::size_t kMaxCarrierAddresses = 16, kMaxFallbackDns = 8;
/// Its values, as 0.7.16 checks them (an error is PLATFORM_REJECTED): at most 16 carrier
/// addresses (IPv4, or ours: IPv6 too) and 8 fallback resolvers (IPv4 or IPv6).
Result<RunInput, std::string> check_run_input(const RunInputText& in, std::uint16_t server_port);

/// `text` cut to kMaxErrorChars characters (code points; `text` is UTF-8).
std::string error_text(std::string_view text);

/// Loads `text` (flat INI, or a qeli:// link) as `qeli client` loads a file or a link, but
/// accepting what 0.7.16's core accepts (config::ClientLoadOptions::app_profile).
Result<config::ClientConfig, std::string> load_profile(std::string_view text);
/// The profile's settings 0.7.16's core would apply and this one does not (features not
/// built: flow shaping, a source address or a TCP source port), one line each for the
/// plan's connection_log.
std::vector<std::string> unapplied_settings(const config::ClientConfig& profile);
/// The profile's pinned server key (`key`; empty or all zero: none).
std::optional<handshake::X25519Public> pinned_key(const config::ClientConfig& config);
/// The server's addresses, IPv4 and IPv6 (the name resolved now).
Result<std::vector<transport::SockAddr>, std::string> resolve_servers(
    const config::ClientConfig& config);

/// qeli_client_udp_probe: `timeout_ms` 100..5000 per attempt, 2 attempts (0.7.16's), every
/// address at once. An ABI code; on kOk the time to the first reply in `latency_ms`.
inline constexpr std::uint32_t kMinProbeTimeoutMs = 100, kMaxProbeTimeoutMs = 5000;
inline constexpr int kProbeAttempts = 2;
std::int32_t udp_probe(std::string_view profile, std::uint32_t timeout_ms,
                       std::uint64_t& latency_ms);

class FfiClient {
 public:
  FfiClient(config::ClientConfig config, std::uint64_t platform_caps, std::uint32_t capacity);
  ~FfiClient();

  /// CREATED or STOPPED → CONNECTING (a new epoch); room for one event.
  std::int32_t start();
  /// One connection: PLATFORM_REJECTED without events when not CONNECTING, a run of this
  /// epoch is active, no device id was set, or `input`'s values are refused; OK when a
  /// stop ended it; PLATFORM_REJECTED after ERROR + FAILED otherwise.
  std::int32_t run(const RunInputText& input);
  std::int32_t stop();
  /// Cancels the run and drops queued events and requests; the handle is gone.
  void shutdown();
  /// CREATED or STOPPED only; 16 bytes, not all zero.
  std::int32_t set_device_id(const std::uint8_t* id, std::size_t len);
  std::int32_t set_tun_fd(std::uint64_t generation, int fd);
  /// ABI 1.5's seam for an app that ran its own handshake (handshake_network.cc): `json`
  /// holds the AUTH OK plaintext it got; its plan is published as a run's would be, and
  /// answered the same way. OK with the plan's `generation`.
  std::int32_t publish_handshake_network(std::string_view json, std::uint64_t& generation);
  /// The answers. `reason` (valid UTF-8, any length) is the ERROR text of a refusal, cut
  /// to kMaxErrorChars (empty: 0.7.16's fixed text).
  std::int32_t plan_result(std::uint64_t generation, bool applied, std::string_view reason);
  std::int32_t protect_result(std::uint64_t sequence, bool ok, std::string_view reason);
  std::int32_t identity_result(std::uint64_t sequence, bool ok, std::string_view reason);
  /// Copies the oldest event out (and pops it) when `sink` returns kOk; kNoEvent.
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
  /// One request to the app; the waiting run holds it, the handle points at it while it
  /// can be answered (a stop or a new epoch drops the pointer: a late answer is stale).
  struct Request {
    std::uint64_t sequence = 0;
    bool answered = false;
    bool ok = false;
  };
  class PlanTunnel;

  client::ClientEnv make_env(std::uint64_t epoch);
  // This epoch's run may go on: the handle is not freed, no stop or new start came, no
  // failure ended it.
  bool live_locked(std::uint64_t epoch) const {
    return !cancel_ && epoch == epoch_ && !stop_requested_ && !fail_;
  }
  // Queues `e` as a request once there is room (false: the run is over); `req` is then
  // pointed at by `slot` until answered or dropped.
  bool request_locked(std::unique_lock<std::mutex>& lock, std::uint64_t epoch, Event e,
                      std::shared_ptr<Request>& slot, const std::shared_ptr<Request>& req);
  // Waits for the answer to `req` (false: the run is over, or the app refused). With a
  // `deadline`, no answer by then fails the run with `on_timeout` (0.7.16's bounds).
  bool await_locked(std::unique_lock<std::mutex>& lock, std::uint64_t epoch,
                    const std::shared_ptr<Request>& req,
                    std::optional<std::chrono::steady_clock::time_point> deadline = {},
                    std::string_view on_timeout = {});
  // A refusal: ERROR(-10, reason or `fixed`) + FAILED, now; the run ends.
  std::int32_t refuse_locked(std::shared_ptr<Request>& slot, std::uint64_t sequence, bool ok,
                             std::string_view reason, const char* fixed);
  void set_state_locked(State s);
  // ERROR(-10, message cut to kMaxErrorChars) + FAILED; the run's core is stopped.
  void fail_locked(std::string_view message);
  // Drops what the current epoch holds for the app: requests, the plan, the fd, the pipe.
  void drop_epoch_locked();
  void note_log(std::uint64_t epoch, client::LogLevel level, const std::string& line);
  // The ERROR text of a run that ended without a stop (0.7.16: the failure's text, else
  // "transport disconnected").
  std::string run_end_locked(const client::ClientError& e) const;

  const config::ClientConfig config_;
  const std::uint64_t caps_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kCreated;
  EventQueue events_;
  bool cancel_ = false;                       // free: every wait ends
  std::uint64_t epoch_ = 0;                   // start() count
  bool stop_requested_ = false;               // stop() in this epoch (its run is cancelled)
  std::uint64_t run_epoch_ = 0;               // the epoch whose run is active (0: none)
  bool fail_ = false;                         // ERROR + FAILED published in this epoch
  std::shared_ptr<client::ClientCore> core_;  // the active run's
  std::optional<handshake::DeviceId> device_id_;
  RunInput input_;
  std::shared_ptr<Request> protect_, identity_, plan_;  // answerable now
  std::uint64_t pending_plan_ = 0;                      // generation awaiting the app's answer
  std::size_t pending_mtu_ = 0;                         // its tunnel MTU
  bool pending_gso_ = false;                            // its session carries super-packets
  std::uint64_t last_generation_ = 0;
  std::uint64_t running_generation_ = 0;
  transport::UniqueFd tun_fd_;  // adopted for pending_plan_
  std::uint64_t tun_fd_generation_ = 0;
  std::shared_ptr<PacketPipe> pipe_;
  HandleStats stats_;  // the ended sessions' sums plus the live one's
  const std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
  std::deque<std::string> log_;  // the last lines of the core's log (the plan's)
  std::string last_problem_;     // this run's last warning or error line
  std::string session_end_;      // why this run's session ended (empty: none ran)
  bool protected_once_ = false;  // this run asked for a protect already
};

}  // namespace qeli::ffi
