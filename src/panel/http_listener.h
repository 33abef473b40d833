// HttpListener: the panel's HTTP(S) server — the only file that sees cpp-httplib (Debian's
// build has unpatched CVEs, so what reaches it is bounded here and everything after it is
// our own code, fuzzed: fuzz/panel_app_fuzz.cc).
//
// Debian ships cpp-httplib 0.11.4 as a compiled library (libcpp-httplib.so.0.11): its
// CPPHTTPLIB_* limits (header line 8 KiB, request URI 8 KiB, keep-alive, timeouts, thread
// pool) are fixed when Debian builds it, and defining them here would change nothing. Its
// own connection handling reads a header line whole before it judges the length, and
// every header line before it counts them (in memory, as long as the sender keeps sending),
// so this file takes each accepted connection over: it overrides the server's
// process_and_close_socket with its own loop around httplib's request parser
// (Server::process_request) and a Stream of its own that hands the parser the bytes:
//
//   * a request head is metered as it is read (panel/request_head_meter.h: a line
//     ≤ kMaxHeadLine, ≤ kMaxHeaderFields fields, ≤ kMaxHead in all) and must arrive
//     within head_timeout of its first byte: past a bound the client gets 431 (408 for
//     the time) and the connection ends; nothing beyond the bound is read or held;
//   * a request (head and body) must be read within request_timeout, every read and write
//     within kIoTimeoutSecs, and an idle connection waits kIoTimeoutSecs for its next
//     request, at most kKeepAliveRequests per connection;
//   * kWorkers worker threads; at most kMaxWaiting accepted connections wait for one, the
//     next gets 503 (HTTPS: is closed) at once — the accept loop never blocks;
//   * stop() wakes every wait at once (an idle keep-alive connection too): the panel stops
//     within a moment, not after a timeout.
//
// Before any body is read (httplib's pre-routing hook): a chunked or compressed request
// body (httplib 0.11 applies no size limit to either) or a Content-Length beyond kMaxBody
// are refused, and `admit` decides on the head alone (the panel's allowed_ips), so a
// stranger's body is never read. A multipart/form-data body (the config editor:
// urlencoded bodies are capped at 8 KiB inside httplib) reaches the handler re-encoded as
// application/x-www-form-urlencoded. Only the method, path, raw query, header fields, body
// and peer address are passed on (panel/http_message.h).
//
// The kernel queues at most 128 connections before they are accepted (the listen backlog,
// http_listener.cc). The panel listens on loopback by default; check-config warns when it
// does not (docs/OPERATIONS.md "Web panel").
//
// TLS: with a certificate and key (PEM files), the listener speaks HTTPS only; a pair that
// does not load is an error at open() — the panel never falls back to plain HTTP. The TLS
// handshake has the same timeouts and stop.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "panel/http_message.h"
#include "panel/request_head_meter.h"

namespace qeli::panel {

// A config file (the raw editor) URL-encoded fits; nothing else comes near it.
inline constexpr std::size_t kMaxBody = 512 * 1024;
inline constexpr int kWorkers = 4;
inline constexpr std::size_t kMaxWaiting = 16;
// Connections the kernel queues before the accept loop takes them (listen(2) backlog).
inline constexpr int kListenBacklog = 128;
inline constexpr int kIoTimeoutSecs = 5;
inline constexpr int kKeepAliveRequests = 20;

struct ListenerOptions {
  std::string bind = "127.0.0.1";  ///< numeric IPv4 or IPv6
  std::uint16_t port = 8080;       ///< 0: any free port
  std::string tls_cert, tls_key;   ///< PEM paths; both empty = plain HTTP
  /// A request head's whole time, from its first byte (slow senders: 408).
  std::chrono::milliseconds head_timeout = std::chrono::seconds(10);
  /// A request's head and body together (a 512 KiB config over a slow tunnel fits).
  std::chrono::milliseconds request_timeout = std::chrono::seconds(30);
};

class HttpListener {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  /// Decides on a request's head (no body yet): nullopt to go on, else the answer.
  using Admit = std::function<std::optional<HttpResponse>(const HttpRequest& head)>;

  /// Binds and prepares; serve() then answers until stop(). Errors: "127.0.0.1:8080:
  /// cannot listen (address in use?)", "tls_cert/tls_key: cannot load ...".
  static Result<std::unique_ptr<HttpListener>, std::string> open(const ListenerOptions& o,
                                                                 Admit admit, Handler handler);
  virtual ~HttpListener() = default;
  /// Blocks, answering requests, until stop() (from another thread or a signal watcher).
  virtual void serve() = 0;
  /// Ends every connection's wait at once and makes serve() return. Thread-safe.
  virtual void stop() = 0;
  virtual std::uint16_t port() const = 0;
};

}  // namespace qeli::panel
