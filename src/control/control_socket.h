// The local control API of a running server (qeli 0.7.16 §6.1): a Unix stream socket
// (default /var/run/qeli/control.sock; the file is 0600 inside a 0700 directory, so only
// root — or the service user — can talk to it). One request per connection: a JSON object
// terminated by a newline, e.g. {"cmd":"list-clients"} or {"cmd":"kick","username":"bob"};
// the answer is one JSON object and a newline: {"ok":true,...} or {"ok":false,"error":"…"}.
// Requests are capped at 64 KiB.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace qeli::control {

inline constexpr char kDefaultSocketPath[] = "/var/run/qeli/control.sock";

using Handler = std::function<nlohmann::json(const nlohmann::json& request)>;

/// Serves requests on a background thread until stop()/destruction.
class ControlServer {
 public:
  ControlServer() = default;
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  /// Binds `path` (replacing a stale socket file) and starts serving. Error text on failure.
  Status<std::string> start(const std::string& path, Handler handler);
  void stop();

 private:
  void serve();
  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  std::thread thread_;
};

/// Sends one request and returns the parsed answer, or an error text (no server, bad
/// answer, timeout after `timeout_ms`).
Result<nlohmann::json, std::string> call(const std::string& path, const nlohmann::json& request,
                                         int timeout_ms = 5000);

}  // namespace qeli::control
