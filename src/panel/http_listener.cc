#include "panel/http_listener.h"

#include <fcntl.h>
#include <httplib.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "base/stop_signal.h"
#include "panel/form.h"

namespace qeli::panel {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// After a refusal the client still gets to read it: the panel stops sending and drops
// what the client still sends, for this long and this much at most, before it closes
// (a close with unread bytes would reset the connection and could lose the answer).
constexpr milliseconds kLinger{500};
constexpr std::size_t kLingerBytes = 1024 * 1024;

// Set on a worker by the pre-routing hook when its answer ends the connection (a body
// it refused to read is on the wire: what follows is not a request).
thread_local bool t_close_after = false;
// Set on the accept thread while it turns away a connection no worker can take.
thread_local bool t_overflow = false;

struct Limits {
  milliseconds io{kIoTimeoutSecs * 1000};
  milliseconds head, request;
};

enum class Ready { kYes, kTimeout, kStopped };

// Waits for `events` on `fd` until `deadline` or `stop`, whichever comes first. kYes also
// for an error or hang-up (the next read or write reports it).
Ready wait_fd(int fd, short events, Clock::time_point deadline, const StopSignal& stop) {
  for (;;) {
    const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
    if (stop.stopped()) return Ready::kStopped;
    if (left <= 0) return Ready::kTimeout;
    pollfd p[2] = {{fd, events, 0}, {stop.fd(), POLLIN, 0}};
    const int n = ::poll(p, 2, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || p[1].revents != 0) return Ready::kStopped;
    if (n > 0) return Ready::kYes;
  }
}

// One connection's bytes, plain or TLS, non-blocking: kWantRead / kWantWrite say what
// to wait for before trying again.
class Wire {
 public:
  static constexpr ssize_t kWantRead = -2, kWantWrite = -3;
  virtual ~Wire() = default;
  /// > 0 bytes, 0 at the peer's end, -1 an error, or kWant*.
  virtual ssize_t recv_some(char* buf, std::size_t n) = 0;
  virtual ssize_t send_some(const char* buf, std::size_t n) = 0;
  /// Bytes readable without the socket (decrypted, not yet read).
  virtual bool pending() const { return false; }
  /// No more from us (TLS: close_notify), best effort.
  virtual void finish() {}
};

class PlainWire final : public Wire {
 public:
  explicit PlainWire(int fd) : fd_(fd) {}
  ssize_t recv_some(char* buf, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::recv(fd_, buf, n, 0);
      if (r >= 0) return r;
      if (errno != EINTR) return errno == EAGAIN || errno == EWOULDBLOCK ? kWantRead : -1;
    }
  }
  ssize_t send_some(const char* buf, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::send(fd_, buf, n, MSG_NOSIGNAL);
      if (r >= 0) return r;
      if (errno != EINTR) return errno == EAGAIN || errno == EWOULDBLOCK ? kWantWrite : -1;
    }
  }

 private:
  int fd_;
};

class TlsWire final : public Wire {
 public:
  explicit TlsWire(SSL* ssl) : ssl_(ssl) {}
  ssize_t recv_some(char* buf, std::size_t n) override {
    return result(SSL_read(ssl_, buf, clamp(n)));
  }
  ssize_t send_some(const char* buf, std::size_t n) override {
    return result(SSL_write(ssl_, buf, clamp(n)));
  }
  bool pending() const override { return SSL_pending(ssl_) > 0; }
  void finish() override {
    (void)SSL_shutdown(ssl_);
    ERR_clear_error();
  }

 private:
  static int clamp(std::size_t n) { return static_cast<int>(std::min<std::size_t>(n, 1 << 20)); }
  ssize_t result(int r) {
    if (r > 0) return r;
    switch (SSL_get_error(ssl_, r)) {
      case SSL_ERROR_WANT_READ: return kWantRead;
      case SSL_ERROR_WANT_WRITE: return kWantWrite;
      case SSL_ERROR_ZERO_RETURN: return 0;
      default: break;
    }
    ERR_clear_error();  // the queue is the thread's: leave nothing for the next connection
    return -1;
  }
  SSL* ssl_;
};

void address_of(const sockaddr_storage& ss, socklen_t len, std::string& ip, int& port) {
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&ss), len, host, sizeof host, nullptr, 0,
                    NI_NUMERICHOST) != 0) {
    return;
  }
  ip = host;
  if (ss.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  }
}

// What httplib's request parser reads from and writes to: one connection, its request
// heads metered (RequestHeadMeter) and every wait bounded by a deadline and `stop`.
class BoundedStream final : public httplib::Stream {
 public:
  BoundedStream(int fd, Wire& wire, const Limits& limits, const StopSignal& stop)
      : fd_(fd), wire_(wire), limits_(limits), stop_(stop) {}

  /// Waits up to `idle` for the next request's first byte: false when none came.
  bool await_request(milliseconds idle) {
    if (off_ < len_ || wire_.pending()) return true;
    return wait_fd(fd_, POLLIN, Clock::now() + idle, stop_) == Ready::kYes;
  }
  /// A request begins: its head is metered and its deadlines start now.
  void start_request() {
    meter_.start();
    in_head_ = true;
    const auto now = Clock::now();
    head_deadline_ = now + limits_.head;
    read_deadline_ = now + limits_.request;
    write_deadline_.reset();
  }
  /// The head passed a bound or its time: the refusal is sent, the connection ends.
  bool refused() const { return refused_; }
  /// The peer ended, an error, a timeout or stop(): nothing more on this connection.
  bool ended() const { return ended_; }

  /// After a refusal: the client may still be sending; stop sending and drop what comes
  /// (bounded by kLinger and kLingerBytes) so that it reads the refusal before the close.
  void linger() {
    wire_.finish();
    ::shutdown(fd_, SHUT_WR);
    const auto end = Clock::now() + kLinger;
    std::array<char, 4096> sink{};
    for (std::size_t dropped = 0; dropped < kLingerBytes;) {
      if (wait_fd(fd_, POLLIN, end, stop_) != Ready::kYes) break;
      const ssize_t r = ::recv(fd_, sink.data(), sink.size(), 0);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) break;
      dropped += static_cast<std::size_t>(r);
    }
  }

  bool is_readable() const override {
    if (off_ < len_ || wire_.pending()) return true;
    return wait_fd(fd_, POLLIN, Clock::now() + limits_.io, stop_) == Ready::kYes;
  }
  bool is_writable() const override {
    return !refused_ && wait_fd(fd_, POLLOUT, Clock::now() + limits_.io, stop_) == Ready::kYes;
  }

  ssize_t read(char* ptr, std::size_t size) override {
    if (refused_) return -1;
    if (size == 0) return 0;
    if (off_ == len_ && !fill()) return eof_ ? 0 : -1;
    const std::size_t n = std::min(size, len_ - off_);
    if (in_head_) {
      std::size_t used = 0;
      switch (meter_.feed({buf_.data() + off_, n}, &used)) {
        case RequestHeadMeter::Verdict::kMore: break;
        case RequestHeadMeter::Verdict::kDone: in_head_ = false; break;
        case RequestHeadMeter::Verdict::kLineTooLong:
        case RequestHeadMeter::Verdict::kTooManyFields:
        case RequestHeadMeter::Verdict::kTooLarge:
          refuse(431, "Request Header Fields Too Large");
          return -1;
      }
    }
    std::memcpy(ptr, buf_.data() + off_, n);
    off_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    // After our refusal the parser answers too (a 400 for the head it could not read):
    // that answer is dropped, ours is the one on the wire.
    if (refused_) return static_cast<ssize_t>(size);
    if (!write_deadline_) write_deadline_ = Clock::now() + limits_.request;
    return send_all(ptr, size) ? static_cast<ssize_t>(size) : -1;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
      address_of(ss, len, ip, port);
    }
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
      address_of(ss, len, ip, port);
    }
  }
  socket_t socket() const override { return fd_; }

 private:
  // More bytes into the buffer, waiting as the request's deadlines allow.
  bool fill() {
    off_ = len_ = 0;
    for (;;) {
      const ssize_t r = wire_.recv_some(buf_.data(), buf_.size());
      if (r > 0) {
        len_ = static_cast<std::size_t>(r);
        return true;
      }
      if (r == 0 || r == -1) {
        eof_ = r == 0;
        ended_ = true;
        return false;
      }
      const auto io_deadline = std::min(Clock::now() + limits_.io, read_deadline_);
      const bool head_first = in_head_ && head_deadline_ <= io_deadline;
      const Ready w = wait_fd(fd_, r == Wire::kWantWrite ? POLLOUT : POLLIN,
                              head_first ? head_deadline_ : io_deadline, stop_);
      if (w == Ready::kYes) continue;
      // The head as a whole took too long (not one read): a slow sender.
      if (w == Ready::kTimeout && head_first && meter_.size() > 0) refuse(408, "Request Timeout");
      ended_ = true;
      return false;
    }
  }

  bool send_all(const char* p, std::size_t n) {
    const auto until = write_deadline_.value_or(Clock::now() + limits_.request);
    while (n > 0) {
      const ssize_t r = wire_.send_some(p, n);
      if (r > 0) {
        p += r;
        n -= static_cast<std::size_t>(r);
        continue;
      }
      if (r == 0 || r == -1) return false;
      const auto deadline = std::min(Clock::now() + limits_.io, until);
      if (wait_fd(fd_, r == Wire::kWantRead ? POLLIN : POLLOUT, deadline, stop_) != Ready::kYes) {
        ended_ = true;
        return false;
      }
    }
    return true;
  }

  // Our own answer, before the connection ends (the parser's own is dropped: write()).
  void refuse(int status, std::string_view reason) {
    const std::string body = std::string(reason) + "\n";
    const std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                               "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                               std::to_string(body.size()) +
                               "\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n" + body;
    write_deadline_ = Clock::now() + limits_.io;
    (void)send_all(answer.data(), answer.size());
    refused_ = true;
  }

  int fd_;
  Wire& wire_;
  const Limits& limits_;
  const StopSignal& stop_;
  std::array<char, 4096> buf_{};
  std::size_t off_ = 0, len_ = 0;
  RequestHeadMeter meter_;
  bool in_head_ = false;
  Clock::time_point head_deadline_{}, read_deadline_{};
  std::optional<Clock::time_point> write_deadline_;
  bool refused_ = false, ended_ = false, eof_ = false;
};

// httplib's server (plain or TLS) with its connection handling replaced: each accepted
// connection is served by our loop around its request parser (process_request) over a
// BoundedStream.
template <class Base>
class BoundedServer final : public Base {
 public:
  template <class... Args>
  BoundedServer(const Limits& limits, const StopSignal& stop, Args&&... args)
      : Base(std::forward<Args>(args)...), limits_(limits), stop_(stop) {}

 private:
  static constexpr bool kTls = std::is_same_v<Base, httplib::SSLServer>;

  bool process_and_close_socket(socket_t sock) override {
    bool ok = false;
    if (t_overflow) {
      turn_away(sock);
    } else {
      ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL) | O_NONBLOCK);
      if constexpr (kTls) {
        SSL* ssl = SSL_new(this->ssl_context());
        if (ssl != nullptr && SSL_set_fd(ssl, sock) == 1 && handshake(ssl, sock)) {
          SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
          TlsWire wire(ssl);
          ok = serve(sock, wire);
          wire.finish();
        }
        if (ssl != nullptr) SSL_free(ssl);
        ERR_clear_error();
      } else {
        PlainWire wire(sock);
        ok = serve(sock, wire);
      }
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  // The TLS handshake, within the time a request head has.
  bool handshake(SSL* ssl, int fd) {
    const auto deadline = Clock::now() + limits_.head;
    for (;;) {
      const int r = SSL_accept(ssl);
      if (r == 1) return true;
      const int e = SSL_get_error(ssl, r);
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return false;
      if (wait_fd(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, stop_) !=
          Ready::kYes) {
        return false;
      }
    }
  }

  bool serve(int fd, Wire& wire) {
    BoundedStream strm(fd, wire, limits_, stop_);
    bool ok = false;
    for (int n = 0; n < kKeepAliveRequests; ++n) {
      // The first request has the time of a read; the next ones a keep-alive's wait.
      if (!strm.await_request(limits_.io)) break;
      strm.start_request();
      t_close_after = false;
      bool closed = false;
      ok = this->process_request(strm, n + 1 == kKeepAliveRequests, closed,
                                 [](httplib::Request&) {});
      if (strm.refused()) {
        strm.linger();
        break;
      }
      if (!ok || closed || t_close_after || strm.ended()) break;
    }
    return ok;
  }

  // No worker is free and kMaxWaiting already wait: answered at once, never queued (a
  // TLS client gets no handshake, only the close).
  static void turn_away(int fd) {
    if constexpr (!kTls) {
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
          "Content-Length: 5\r\nRetry-After: 1\r\nConnection: close\r\n\r\nBusy\n";
      (void)::send(fd, kBusy, sizeof kBusy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
  }

  const Limits& limits_;
  const StopSignal& stop_;
};

// kWorkers threads and at most kMaxWaiting connections waiting for one; beyond that
// enqueue() runs the job on the accept thread in turn-away mode (t_overflow).
class BoundedPool final : public httplib::TaskQueue {
 public:
  BoundedPool(std::size_t workers, std::size_t max_waiting) : max_waiting_(max_waiting) {
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard lock(mu_);
      if (!shutdown_ && jobs_.size() < max_waiting_) {
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
    }
    t_overflow = true;
    fn();
    t_overflow = false;
  }
  void shutdown() override {
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, and every waiting connection served
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
  }

  const std::size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  ///< guarded by mu_
  bool shutdown_ = false;                   ///< guarded by mu_
  std::vector<std::thread> threads_;
};

class HttplibListener final : public HttpListener {
 public:
  HttplibListener(bool tls, const ListenerOptions& o)
      : tls_(tls),
        limits_{milliseconds(kIoTimeoutSecs * 1000), o.head_timeout, o.request_timeout} {}

  void serve() override { srv_->listen_after_bind(); }
  void stop() override {
    stop_.stop();
    srv_->stop();
  }
  std::uint16_t port() const override { return port_; }

  HttpRequest head_of(const httplib::Request& in) const {
    HttpRequest req;
    req.method = in.method;
    req.path = in.path;
    const auto q = in.target.find('?');
    if (q != std::string::npos) req.query = in.target.substr(q + 1);
    req.headers.reserve(in.headers.size());
    for (const auto& [k, v] : in.headers) {
      std::string name = k;
      for (auto& c : name)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      req.headers.emplace_back(std::move(name), v);
    }
    req.remote_ip = in.remote_addr;
    req.tls = tls_;
    return req;
  }

  static void answer(HttpResponse r, httplib::Response& out) {
    out.status = r.status;
    for (auto& [k, v] : r.headers) out.set_header(k.c_str(), v);
    out.set_content(std::move(r.body), r.content_type.c_str());
  }

  // What httplib would read without a bound, refused before it reads the body.
  static std::optional<HttpResponse> bounds(const httplib::Request& in) {
    auto refuse = [](int status, const char* why) {
      HttpResponse r;
      r.status = status;
      r.content_type = "text/plain; charset=utf-8";
      r.body = std::string(why) + "\n";
      r.add("Connection", "close");
      return r;
    };
    if (in.has_header("Transfer-Encoding")) return refuse(411, "Length Required");
    if (in.has_header("Content-Encoding")) return refuse(415, "Unsupported Media Type");
    const std::string len = in.get_header_value("Content-Length");
    if (!len.empty()) {
      std::size_t n = 0;
      const auto [p, ec] = std::from_chars(len.data(), len.data() + len.size(), n);
      if (ec != std::errc{} || p != len.data() + len.size()) return refuse(400, "Bad Request");
      if (n > kMaxBody) return refuse(413, "Payload Too Large");
    }
    return std::nullopt;
  }

  void install(Admit admit, Handler handler) {
    srv_->set_pre_routing_handler(
        [this, admit = std::move(admit)](const httplib::Request& in, httplib::Response& out) {
          auto r = bounds(in);
          if (!r) r = admit(head_of(in));
          if (!r) return httplib::Server::HandlerResponse::Unhandled;
          // A body not read is on the wire: the connection ends after this answer.
          t_close_after = true;
          answer(std::move(*r), out);
          return httplib::Server::HandlerResponse::Handled;
        });
    auto h = [this, handler = std::move(handler)](const httplib::Request& in,
                                                  httplib::Response& out) {
      HttpRequest req = head_of(in);
      if (in.is_multipart_form_data()) {
        // The fields as one urlencoded body (what PanelApp parses); the panel has no
        // uploads, so a file part is a field like the others.
        for (const auto& [name, part] : in.files) {
          if (!req.body.empty()) req.body += '&';
          req.body += percent_encode(name) + "=" + percent_encode(part.content);
        }
      } else {
        req.body = in.body;
      }
      answer(handler(req), out);
    };
    srv_->Get(".*", h);
    srv_->Post(".*", h);
    srv_->Put(".*", h);
    srv_->Delete(".*", h);
    srv_->Patch(".*", h);
    srv_->Options(".*", h);
  }

  // Declared before srv_: the server's connections use them until it is gone.
  const bool tls_;
  const Limits limits_;
  StopSignal stop_;
  std::unique_ptr<httplib::Server> srv_;
  std::uint16_t port_ = 0;
};

}  // namespace

Result<std::unique_ptr<HttpListener>, std::string> HttpListener::open(const ListenerOptions& o,
                                                                      Admit admit,
                                                                      Handler handler) {
  const bool tls = !o.tls_cert.empty() || !o.tls_key.empty();
  auto l = std::make_unique<HttplibListener>(tls, o);
  if (tls) {
    for (const auto* f : {&o.tls_cert, &o.tls_key}) {
      std::error_code ec;
      if (f->empty() || !std::filesystem::is_regular_file(*f, ec)) {
        return fail("tls_cert/tls_key: " + (f->empty() ? std::string("(empty)") : *f) +
                    " is not a readable file");
      }
    }
    auto s = std::make_unique<BoundedServer<httplib::SSLServer>>(
        l->limits_, l->stop_, o.tls_cert.c_str(), o.tls_key.c_str());
    if (!s->is_valid()) {
      return fail("tls_cert/tls_key: cannot load the certificate " + o.tls_cert + " with key " +
                  o.tls_key + " (PEM, and the key must match the certificate)");
    }
    l->srv_ = std::move(s);
  } else {
    l->srv_ = std::make_unique<BoundedServer<httplib::Server>>(l->limits_, l->stop_);
  }
  auto& srv = *l->srv_;
  srv.set_payload_max_length(kMaxBody);
  // Only what its answers' Keep-Alive header says: the loop above is what holds to it.
  srv.set_keep_alive_max_count(kKeepAliveRequests);
  srv.set_keep_alive_timeout(kIoTimeoutSecs);
  srv.new_task_queue = [] { return new BoundedPool(kWorkers, kMaxWaiting); };
  // Debian's httplib is a compiled library that listens with a backlog of 5: a burst of
  // a browser's parallel connections (or one scanner) overflowed it, and the kernel
  // dropped SYNs, which a client sees as a stall of a second or more. listen() again on
  // the bound socket raises it (Linux updates a listening socket's backlog); the accept
  // loop's own bounds (kWorkers, kMaxWaiting, then 503) apply behind it. The socket
  // options callback runs on each candidate socket before bind; the last one is the one
  // that was bound.
  int bound_fd = -1;
  srv.set_socket_options([&bound_fd](int fd) {
    httplib::default_socket_options(fd);
    bound_fd = fd;
  });
  int port = o.port;
  if (o.port == 0) {
    port = srv.bind_to_any_port(o.bind.c_str());
    if (port <= 0) return fail(o.bind + ":0: cannot listen");
  } else if (!srv.bind_to_port(o.bind.c_str(), o.port)) {
    return fail(o.bind + ":" + std::to_string(o.port) + ": cannot listen (address in use?)");
  }
  if (bound_fd < 0 || ::listen(bound_fd, kListenBacklog) != 0) {
    return fail(o.bind + ":" + std::to_string(port) + ": cannot listen (backlog)");
  }
  l->port_ = static_cast<std::uint16_t>(port);
  l->install(std::move(admit), std::move(handler));
  return std::unique_ptr<HttpListener>(std::move(l));
}

}  // namespace qeli::panel
