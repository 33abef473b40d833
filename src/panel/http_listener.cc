#include "panel/http_listener.h"

#include <httplib.h>

#include <filesystem>

namespace qeli::panel {
namespace {

class HttplibListener final : public HttpListener {
 public:
  HttplibListener(std::unique_ptr<httplib::Server> srv, bool tls, std::uint16_t port)
      : srv_(std::move(srv)), tls_(tls), port_(port) {}

  void serve() override { srv_->listen_after_bind(); }
  void stop() override { srv_->stop(); }
  std::uint16_t port() const override { return port_; }

  void install(Handler handler) {
    auto h = [this, handler = std::move(handler)](const httplib::Request& in,
                                                  httplib::Response& out) {
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
      req.body = in.body;
      req.remote_ip = in.remote_addr;
      req.tls = tls_;
      HttpResponse r = handler(req);
      out.status = r.status;
      for (auto& [k, v] : r.headers) out.set_header(k.c_str(), v);
      out.set_content(std::move(r.body), r.content_type.c_str());
    };
    srv_->Get(".*", h);
    srv_->Post(".*", h);
    srv_->Put(".*", h);
    srv_->Delete(".*", h);
    srv_->Patch(".*", h);
    srv_->Options(".*", h);
  }

 private:
  std::unique_ptr<httplib::Server> srv_;
  bool tls_;
  std::uint16_t port_;
};

}  // namespace

Result<std::unique_ptr<HttpListener>, std::string> HttpListener::open(const ListenerOptions& o,
                                                                      Handler handler) {
  std::unique_ptr<httplib::Server> srv;
  const bool tls = !o.tls_cert.empty() || !o.tls_key.empty();
  if (tls) {
    for (const auto* f : {&o.tls_cert, &o.tls_key}) {
      std::error_code ec;
      if (f->empty() || !std::filesystem::is_regular_file(*f, ec)) {
        return fail("tls_cert/tls_key: " + (f->empty() ? std::string("(empty)") : *f) +
                    " is not a readable file");
      }
    }
    auto s = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(), o.tls_key.c_str());
    if (!s->is_valid()) {
      return fail("tls_cert/tls_key: cannot load the certificate " + o.tls_cert + " with key " +
                  o.tls_key + " (PEM, and the key must match the certificate)");
    }
    srv = std::move(s);
  } else {
    srv = std::make_unique<httplib::Server>();
  }
  srv->set_payload_max_length(kMaxBody);
  srv->set_read_timeout(kIoTimeoutSecs, 0);
  srv->set_write_timeout(kIoTimeoutSecs, 0);
  srv->set_keep_alive_max_count(kKeepAliveRequests);
  srv->set_keep_alive_timeout(kIoTimeoutSecs);
  srv->new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  int port = o.port;
  if (o.port == 0) {
    port = srv->bind_to_any_port(o.bind.c_str());
    if (port <= 0) return fail(o.bind + ":0: cannot listen");
  } else if (!srv->bind_to_port(o.bind.c_str(), o.port)) {
    return fail(o.bind + ":" + std::to_string(o.port) + ": cannot listen (address in use?)");
  }
  auto l = std::make_unique<HttplibListener>(std::move(srv), tls, static_cast<std::uint16_t>(port));
  l->install(std::move(handler));
  return std::unique_ptr<HttpListener>(std::move(l));
}

}  // namespace qeli::panel
