#include "panel/http_listener.h"

#include <httplib.h>

#include <charconv>
#include <filesystem>

#include "panel/form.h"

namespace qeli::panel {
namespace {

class HttplibListener final : public HttpListener {
 public:
  HttplibListener(std::unique_ptr<httplib::Server> srv, bool tls, std::uint16_t port)
      : srv_(std::move(srv)), tls_(tls), port_(port) {}

  void serve() override { srv_->listen_after_bind(); }
  void stop() override { srv_->stop(); }
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
    if (in.headers.size() > kMaxHeaderFields) return refuse(431, "Too many header fields");
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

 private:
  std::unique_ptr<httplib::Server> srv_;
  bool tls_;
  std::uint16_t port_;
};

}  // namespace

Result<std::unique_ptr<HttpListener>, std::string> HttpListener::open(const ListenerOptions& o,
                                                                      Admit admit,
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
  l->install(std::move(admit), std::move(handler));
  return std::unique_ptr<HttpListener>(std::move(l));
}

}  // namespace qeli::panel
