// MetricsServer: the Prometheus endpoint `qeli server` serves on its own ([metrics]
// listen, default 127.0.0.1:9477). One thread polls the listening socket and at most
// kMaxConnections connections; each connection has kConnectionTimeout in all to send its
// request head (at most kMaxRequestHead bytes) and take the answer, then it is closed.
// While kMaxConnections are open, further connections wait in the kernel's backlog.
//
// Why not a library: Debian 12 offers prometheus-cpp (its pull side embeds civetweb) and
// cpp-httplib (its Debian version has unpatched CVEs). Both are general HTTP servers —
// keep-alive, chunked bodies, header maps, thread pools — inside a process that keeps
// CAP_NET_ADMIN. This endpoint answers one GET without a body; the part of HTTP it needs
// is a request line (http_answer.h, pure and unit-tested), and the exposition format is
// a few escaping rules (exposition.h). Writing those is less code, and less to attack,
// than bounding a general server from the outside.
//
// Thread-safe: start() and stop() from one thread; `render` runs on the server's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "base/result.h"

namespace qeli::metrics {

inline constexpr std::size_t kMaxConnections = 8;
inline constexpr std::chrono::milliseconds kConnectionTimeout{5000};

class MetricsServer {
 public:
  /// Makes the /metrics body: true and `body`, or false and an `error` (answered 503).
  using Render = std::function<bool(std::string& body, std::string& error)>;

  MetricsServer() = default;
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// Binds `ipv4` (host order) : `port` (0 = any free port) and starts serving. Error:
  /// "127.0.0.1:9477: Address already in use".
  Status<std::string> start(std::uint32_t ipv4, std::uint16_t port, Render render);
  /// Closes every connection and joins the thread. Idempotent.
  void stop();
  /// The port bound (useful when start() was given 0).
  std::uint16_t port() const { return port_; }

 private:
  void serve();

  Render render_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace qeli::metrics
