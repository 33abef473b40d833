// HttpListener: the panel's HTTP(S) server — the only file that sees cpp-httplib (Debian's
// build has unpatched CVEs, so what reaches it is bounded here and everything after it is
// our own code, fuzzed: fuzz/panel_app_fuzz.cc).
//
// Bounds: request bodies at most kMaxBody bytes (413 beyond), kWorkers worker threads,
// read and write timeouts of kIoTimeout, at most kKeepAliveRequests requests per
// connection. Before any body is read (httplib's pre-routing hook): more than
// kMaxHeaderFields fields, a chunked or compressed request body (httplib 0.11 applies no
// size limit to either) or a Content-Length beyond kMaxBody are refused, and `admit`
// decides on the head alone (the panel's allowed_ips), so a stranger's body is never read.
// A multipart/form-data body (the config editor: urlencoded bodies are capped at 8 KiB
// inside httplib) reaches the handler re-encoded as application/x-www-form-urlencoded.
// Only the method, path, raw query, header fields, body and peer address are passed on
// (panel/http_message.h).
//
// What httplib 0.11 does not bound and this file cannot: the length of one header line
// and the number of connections waiting for a worker. The panel listens on loopback by
// default; check-config warns when it does not (docs/OPERATIONS.md "Web panel").
//
// TLS: with a certificate and key (PEM files), the listener speaks HTTPS only; a pair that
// does not load is an error at open() — the panel never falls back to plain HTTP.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "panel/http_message.h"

namespace qeli::panel {

// A config file (the raw editor) URL-encoded fits; nothing else comes near it.
inline constexpr std::size_t kMaxBody = 512 * 1024;
inline constexpr int kWorkers = 4;
inline constexpr int kIoTimeoutSecs = 5;
inline constexpr int kKeepAliveRequests = 20;
inline constexpr std::size_t kMaxHeaderFields = 64;

struct ListenerOptions {
  std::string bind = "127.0.0.1";  ///< numeric IPv4 or IPv6
  std::uint16_t port = 8080;       ///< 0: any free port
  std::string tls_cert, tls_key;   ///< PEM paths; both empty = plain HTTP
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
  virtual void stop() = 0;
  virtual std::uint16_t port() const = 0;
};

}  // namespace qeli::panel
