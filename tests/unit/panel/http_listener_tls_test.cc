// The panel's listener with TLS (panel/http_listener.h), against real sockets on loopback
// and OpenSSL's own client: a self-signed certificate made here (an EC P-256 key, PEM
// files in a temporary directory) is served, a TLS 1.3 request gets the handler's answer
// through the listener's own connection loop, a plain-HTTP request to the TLS port gets
// no HTTP answer (the listener never falls back to plain HTTP), and a certificate and key
// that do not load fail open() with a clear error. No root, no network, well under 2 s.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "panel/http_listener.h"

namespace qeli::panel {
namespace {

namespace fs = std::filesystem;

template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509_free>>;
using Ctx = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX_free>>;
using Ssl = std::unique_ptr<SSL, Deleter<SSL_free>>;

Key ec_key() { return Key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")); }

// A self-signed certificate for `key`, CN=127.0.0.1, valid from a day ago for a day.
Cert self_signed(EVP_PKEY* key) {
  Cert c(X509_new());
  X509_set_version(c.get(), 2);  // v3
  ASN1_INTEGER_set(X509_get_serialNumber(c.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), -86400);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), 86400);
  X509_NAME* name = X509_get_subject_name(c.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(c.get(), name);
  X509_set_pubkey(c.get(), key);
  EXPECT_GT(X509_sign(c.get(), key, EVP_sha256()), 0);
  return c;
}

// Writes `path` through `pem` (one of OpenSSL's PEM_write_* calls); whether it wrote.
template <class F>
bool write_pem(const fs::path& path, F&& pem) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const int ok = pem(f);
  std::fclose(f);
  return ok == 1;
}
bool write_key(const fs::path& path, EVP_PKEY* key) {
  return write_pem(path, [&](std::FILE* f) {
    return PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  });
}
bool write_cert(const fs::path& path, X509* cert) {
  return write_pem(path, [&](std::FILE* f) { return PEM_write_X509(f, cert); });
}

class TlsListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/qeli-panel-tls-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    key_ = ec_key();
    ASSERT_TRUE(key_);
    cert_ = self_signed(key_.get());
    ASSERT_TRUE(write_cert(dir_ / "cert.pem", cert_.get()));
    ASSERT_TRUE(write_key(dir_ / "key.pem", key_.get()));
  }
  void TearDown() override {
    if (listener_) listener_->stop();
    if (serving_.joinable()) serving_.join();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  ListenerOptions options(const fs::path& cert, const fs::path& key) const {
    ListenerOptions o;
    o.bind = "127.0.0.1";
    o.port = 0;
    o.tls_cert = cert.string();
    o.tls_key = key.string();
    return o;
  }
  Result<std::unique_ptr<HttpListener>, std::string> open(const ListenerOptions& o) {
    return HttpListener::open(
        o, [](const HttpRequest&) { return std::optional<HttpResponse>(); },
        [this](const HttpRequest& r) {
          ++handled_;
          HttpResponse out;
          out.content_type = "text/plain";
          out.body = r.method + " " + r.path + (r.tls ? " over tls" : " in the clear");
          return out;
        });
  }
  void serve() {
    auto l = open(options(dir_ / "cert.pem", dir_ / "key.pem"));
    ASSERT_TRUE(l.ok()) << l.error();
    listener_ = std::move(*l);
    serving_ = std::thread([this] { listener_->serve(); });
  }

  // A blocking TCP connection to the listener; reads and writes give up after 2 s, so a
  // listener that never answers fails the test instead of hanging it.
  int connect_to() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(listener_->port());
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    return fd;
  }

  fs::path dir_;
  Key key_;
  Cert cert_;
  std::unique_ptr<HttpListener> listener_;
  std::thread serving_;
  std::atomic<int> handled_{0};
};

TEST_F(TlsListenerTest, ATls13RequestGetsTheHandlersAnswer) {
  serve();
  ASSERT_TRUE(listener_);
  Ctx ctx(SSL_CTX_new(TLS_client_method()));
  ASSERT_TRUE(ctx);
  ASSERT_EQ(SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION), 1);
  Ssl ssl(SSL_new(ctx.get()));
  const int fd = connect_to();
  ASSERT_EQ(SSL_set_fd(ssl.get(), fd), 1);
  ASSERT_EQ(SSL_connect(ssl.get()), 1) << ERR_error_string(ERR_get_error(), nullptr);
  EXPECT_EQ(SSL_version(ssl.get()), TLS1_3_VERSION);
  // The certificate it serves is the one made above (a self-signed one verifies nothing
  // else: the comparison is the check).
  Cert peer(SSL_get1_peer_certificate(ssl.get()));
  ASSERT_TRUE(peer);
  EXPECT_EQ(X509_cmp(peer.get(), cert_.get()), 0);

  const std::string request = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())),
            static_cast<int>(request.size()));
  std::string answer;
  char buf[4096];
  for (int n; (n = SSL_read(ssl.get(), buf, sizeof buf)) > 0;) answer.append(buf, n);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  EXPECT_TRUE(answer.ends_with("\r\n\r\nGET /hello over tls")) << answer;
  EXPECT_EQ(handled_, 1);
  ::close(fd);
}

TEST_F(TlsListenerTest, PlainHttpToTheTlsPortGetsNoHttpAnswer) {
  serve();
  ASSERT_TRUE(listener_);
  const int fd = connect_to();
  const std::string request = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  // The TLS handshake fails on it and the connection ends (within the 2 s read timeout):
  // at most a TLS alert comes back, never an HTTP status line.
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<std::size_t>(n));
  EXPECT_TRUE(n == 0 || errno == ECONNRESET) << "not closed: " << std::strerror(errno);
  EXPECT_EQ(got.find("HTTP/"), std::string::npos) << got;
  EXPECT_EQ(handled_, 0);
  ::close(fd);
}

TEST_F(TlsListenerTest, ACertificateAndKeyThatDoNotLoadFailOpen) {
  // A key that is not the certificate's.
  const Key other = ec_key();
  ASSERT_TRUE(write_key(dir_ / "other.pem", other.get()));
  auto r = open(options(dir_ / "cert.pem", dir_ / "other.pem"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "tls_cert/tls_key: cannot load the certificate " +
                           (dir_ / "cert.pem").string() + " with key " +
                           (dir_ / "other.pem").string() +
                           " (PEM, and the key must match the certificate)");
  // Not PEM at all.
  std::ofstream(dir_ / "junk.pem") << "not a certificate\n";
  r = open(options(dir_ / "junk.pem", dir_ / "key.pem"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().starts_with("tls_cert/tls_key: cannot load the certificate ")) << r.error();
  // A file that is not there, and a key not given.
  r = open(options(dir_ / "cert.pem", dir_ / "missing.pem"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "tls_cert/tls_key: " + (dir_ / "missing.pem").string() + " is not a readable file");
  r = open(options(dir_ / "cert.pem", ""));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "tls_cert/tls_key: (empty) is not a readable file");
  // The same files that are right load.
  EXPECT_TRUE(open(options(dir_ / "cert.pem", dir_ / "key.pem")).ok());
}

}  // namespace
}  // namespace qeli::panel
