// ClientCore: the qeli client protocol for any host (qeli 0.7.16 §8): connect to the
// server's addresses in turn, the carrier's set-up (plain, fake-tls, obfs, reality,
// reality-tls over TCP; the UDP flight), the handshake (the server proves its identity
// against the pinned key BEFORE the password is sent), the data phase, and reconnects
// with exponential back-off until stopped or a fatal error:
//
//   ClientCore core(options, env);          // env: client/core/client_env.h
//   core.start();                           // own thread; or core.run() to block
//   ... core.status() ...
//   core.stop();                            // says goodbye to the server (close frame)
//
// Never throws across its API, never touches signals, changes nothing on the host: the
// TUN, routes, DNS, kill switch, the known-hosts store and the name resolution are the
// host's (ClientEnv). The Linux daemon is client/client.h; libqeli wraps the same core.
//
// Fatal (run() returns the error; never retried): a SERVER KEY MISMATCH, a missing pin,
// the server disabled the user, its quota is used up or its password changed, the
// credentials were refused kMaxRejections times in a row, a tunnel the host cannot open;
// and, with reconnect off or its retries used up, the last failure.
//
// Threading: run() on one thread at a time; stop() and status() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "client/core/client_env.h"
#include "config/client_config.h"
#include "engine/stop_signal.h"
#include "handshake/types.h"
#include "transport/endpoint.h"

namespace qeli::client {

/// Consecutive credential rejections after which the client stops instead of retrying
/// (below the server's default brute_force.max_attempts of 5, so it never locks its own
/// address out).
inline constexpr int kMaxRejections = 3;

struct ClientCoreOptions {
  config::ClientConfig config;
  std::string password;                           ///< already read (pass, file, command)
  std::vector<transport::SockAddr> servers;       ///< resolved; tried in turn
  std::optional<handshake::X25519Public> pinned;  ///< `key`, or the one learned before
  /// The next step after a key mismatch (empty: "import a new link or set `key`…").
  std::string repin_hint;
  handshake::DeviceId device_id{};
  std::string platform = "linux";  ///< sent in the client-info frame
};

enum class ClientErrc : std::uint8_t {
  kBadConfig,       ///< the options cannot work (start() / run() refuse them)
  kAlreadyRunning,  ///< start() or run() a second time
  kFatal,           ///< a non-retryable failure (see the header comment)
  kGaveUp,          ///< reconnect off, or its retries used up
  kInternal,        ///< an exception inside (a bug or out of memory)
};
using ClientError = Error<ClientErrc>;

/// What status() reports.
struct ClientCoreStatus {
  ClientState state = ClientState::kStarting;
  std::string detail;
  bool running = false;
  std::optional<transport::SockAddr> server;  ///< the address the session uses
  std::optional<TunnelConfig> tunnel;         ///< set while connected
  std::uint64_t sessions = 0;                 ///< data phases started
  /// This session's counters (the last session's after it ended).
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  std::optional<ClientError> error;  ///< how the last run() ended, if it failed
};

class ClientCore {
 public:
  ClientCore(ClientCoreOptions options, ClientEnv env);
  ~ClientCore();  ///< stops and joins the thread start() made
  ClientCore(const ClientCore&) = delete;
  ClientCore& operator=(const ClientCore&) = delete;

  /// The mode is one this build carries (wire/modes.h).
  static Status<ClientError> check_mode(const config::ClientConfig& config);
  /// The checks start() and run() make before anything else: check_mode(), there are
  /// addresses and a tunnel opener.
  static Status<ClientError> check(const ClientCoreOptions& options, const ClientEnv& env);

  /// Padding, heartbeat and shaping in effect for a session whose AUTH OK is `ok`: the
  /// config's fallbacks, overridden by what the server pushed.
  static tunnel::PushedParams pushed_params(const config::ClientConfig& cfg,
                                            const handshake::AuthOk& ok);

  /// A UDP profile's reachability: its first flight to every address at once, `attempts`
  /// rounds of `timeout` each; the time to the first reply. Sends no credential and needs
  /// no pinned key (Connector::probe_datagram). kBadConfig for a TCP profile, kGaveUp for
  /// silence.
  static Result<std::chrono::milliseconds, ClientError> probe_udp(ClientCoreOptions options,
                                                                  ClientEnv env,
                                                                  std::chrono::milliseconds timeout,
                                                                  int attempts);

  /// Runs the connect loop on this thread until stop() (ok) or a fatal error. A core
  /// runs once: run() or start() again is kAlreadyRunning (make a new one).
  Status<ClientError> run();
  /// Runs it on a thread of its own; an error if the options are refused or it runs.
  Status<ClientError> start();
  /// Waits for the thread start() made; what its run() returned.
  Status<ClientError> join();
  /// Ends the loop (from any thread, any number of times): the session says goodbye to
  /// the server (our close extension) and the tunnel is closed. A stopped core stays
  /// stopped: to connect again, make a new one.
  void stop();
  bool stopped() const { return stop_.stopped(); }
  ClientCoreStatus status() const;

 private:
  friend class Connector;
  bool claim();
  /// run() once claim() succeeded; releases the claim.
  Status<ClientError> run_claimed();
  Status<ClientError> connect_loop();
  // What the Connector reports (on the core's thread).
  void set_state(ClientState s, const std::string& detail = {});
  void connected(const TunnelConfig& tunnel,
                 std::shared_ptr<const tunnel::SessionCounters> counters);
  void disconnected();

  const ClientCoreOptions options_;
  ClientEnv env_;
  engine::StopSignal stop_;
  std::atomic<bool> claimed_{false};  ///< run() or start() began: a core runs once
  std::atomic<bool> running_{false};
  std::thread thread_;
  Status<ClientError> thread_result_;

  mutable std::mutex mu_;  // guards what status() reads below
  ClientCoreStatus status_;
  std::shared_ptr<const tunnel::SessionCounters> counters_;
};

}  // namespace qeli::client
