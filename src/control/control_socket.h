// The local control socket of a running server (qeli 0.7.16 §6.1): a Unix stream socket
// (default /var/run/qeli/control.sock). One request per connection: a JSON object (the
// wire form of control/api.h) terminated by a newline; the answer is one JSON object and
// a newline. Requests are capped at 4 MiB (a config text travels in one), and must
// arrive within 2 s.
//
// The server learns who is calling from SO_PEERCRED and grants permissions by
// control/peer_access.h; a request the caller may not make is refused with kForbidden
// before the service sees it.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/stop_signal.h"
#include "control/api.h"
#include "control/peer_access.h"

namespace qeli::control {

inline constexpr char kDefaultSocketPath[] = "/var/run/qeli/control.sock";
inline constexpr std::size_t kMaxRequestBytes = 4 * 1024 * 1024;

/// Serves `service` on a background thread until stop()/destruction; requests are
/// handled one at a time, in arrival order.
class ControlServer {
 public:
  ControlServer() = default;
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  /// Binds `path` (replacing a stale socket file), sets its mode and group as
  /// peer_access.h describes, and starts serving. Error text on failure.
  Status<std::string> start(const std::string& path, ControlService& service, AccessPolicy policy);
  void stop();

  /// The panel's uid once it is known (the server spawns the panel after start()).
  void set_panel_uid(std::optional<std::uint32_t> uid);

 private:
  void serve();
  nlohmann::json answer(const std::string& line, const PeerCred& peer);
  std::string path_;
  ControlService* service_ = nullptr;
  std::mutex policy_mu_;
  AccessPolicy policy_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  std::thread thread_;
};

/// Sends one raw request and returns the parsed answer, or an error text (no server, bad
/// answer, no answer within `timeout_ms` of the call — connecting and sending included).
/// `cancel`: once it is stopped, a call that waits (to connect while the server's backlog
/// is full, to send, for the answer) gives up at once and a later one does not start — for
/// a process that is stopping: none of its threads waits out a timeout for a server that
/// does not answer.
Result<nlohmann::json, std::string> call(const std::string& path, const nlohmann::json& request,
                                         int timeout_ms = 5000, const StopSignal* cancel = nullptr);

/// ControlService over the socket: what the CLI and the panel use. `caller` is ignored
/// (the server reads the real one from the socket). Thread-safe (one connection per call).
class SocketClient : public ControlService {
 public:
  explicit SocketClient(std::string path, int timeout_ms = 10000)
      : path_(std::move(path)), timeout_ms_(timeout_ms) {}
  Result<Response, ControlError> handle(const Request& request, const Caller& caller) override;
  const std::string& path() const { return path_; }
  /// Every call in flight and every later one fails at once (kUnavailable, "cancelled"):
  /// for a process that is stopping.
  void cancel() { cancel_.stop(); }

 private:
  std::string path_;
  int timeout_ms_;
  StopSignal cancel_;
};

}  // namespace qeli::control
