// The target prober and the terminator against a real nginx (Debian's nginx-light, TLS
// 1.3 only, h2) that the test starts on loopback with a two-certificate chain (leaf +
// intermediate, ECDSA P-256) it generates with openssl:
//
//  1. the probe measures nginx's shape: its suite, group and ServerHello order, the CCS,
//     its EncryptedExtensions (ALPN h2), its chain byte for byte, CertificateVerify
//     scheme/length, the record cut of its flight, its two tickets;
//  2. the same ClientHello (two hellos from one seed are identical, keys included) goes
//     to nginx and to our terminator, and the two answers are compared record by record.
//     Tolerances: every record the same size, except the CertificateVerify record, ±2
//     bytes (an ECDSA P-256 DER signature is 70–72 bytes, on both sides); the
//     EncryptedExtensions and the certificate chain the client decrypts are identical.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "crypto/random.h"
#include "peer_process.h"
#include "tls/certificate.h"
#include "tls/client_handshake.h"
#include "tls/record_channel.h"
#include "tls/terminator.h"
#include "transport/tls_target_probe.h"

namespace qeli::tls {
namespace {

using namespace std::chrono_literals;

struct NginxTarget {
  test::TempDir dir;
  int port = 0;
  std::unique_ptr<test::ChildProcess> proc;
  Bytes leaf_der, intermediate_der;
};

Bytes read_der(const std::string& pem_path, const std::string& dir) {
  const std::string der = dir + "/tmp.der";
  if (test::run_shell("openssl x509 -in " + pem_path + " -outform DER -out " + der) != 0) return {};
  std::ifstream in(der, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// Root CA → intermediate → leaf for www.example.com; nginx serves leaf + intermediate.
bool start_nginx(NginxTarget& t) {
  const std::string d = t.dir.path();
  const std::string q = " >/dev/null 2>&1";
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  std::ofstream(d + "/ca.ext")
      << "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n";
  std::ofstream(d + "/leaf.ext")
      << "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
         "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:www.example.com\n";
  const bool ok =
      test::run_shell("openssl req -x509 " + ec + " -keyout " + d + "/root.key -out " + d +
                      "/root.pem -days 30 -subj '/O=Test/CN=Test Root'" + q) == 0 &&
      test::run_shell("openssl req " + ec + " -keyout " + d + "/int.key -out " + d +
                      "/int.csr -subj '/O=Test/CN=Test Intermediate'" + q) == 0 &&
      test::run_shell("openssl x509 -req -in " + d + "/int.csr -CA " + d + "/root.pem -CAkey " + d +
                      "/root.key -CAcreateserial -days 30 -extfile " + d + "/ca.ext -out " + d +
                      "/int.pem" + q) == 0 &&
      test::run_shell("openssl req " + ec + " -keyout " + d + "/leaf.key -out " + d +
                      "/leaf.csr -subj '/CN=www.example.com'" + q) == 0 &&
      test::run_shell("openssl x509 -req -in " + d + "/leaf.csr -CA " + d + "/int.pem -CAkey " + d +
                      "/int.key -CAcreateserial -days 30 -extfile " + d + "/leaf.ext -out " + d +
                      "/leaf.pem" + q) == 0 &&
      test::run_shell("cat " + d + "/leaf.pem " + d + "/int.pem > " + d + "/chain.pem") == 0;
  if (!ok) return false;
  t.leaf_der = read_der(d + "/leaf.pem", d);
  t.intermediate_der = read_der(d + "/int.pem", d);
  {
    test::TcpListener probe_port;  // a free port, released for nginx
    t.port = probe_port.port();
  }
  std::ofstream(d + "/nginx.conf")
      << "pid " << d << "/nginx.pid;\nerror_log " << d << "/error.log;\n"
      << "events { worker_connections 64; }\n"
      << "http {\n access_log off;\n client_body_temp_path " << d << ";\n proxy_temp_path " << d
      << ";\n fastcgi_temp_path " << d << ";\n uwsgi_temp_path " << d << ";\n scgi_temp_path " << d
      << ";\n server {\n  listen 127.0.0.1:" << t.port << " ssl http2;\n"
      << "  server_name www.example.com;\n  ssl_protocols TLSv1.3;\n"
      << "  ssl_certificate " << d << "/chain.pem;\n  ssl_certificate_key " << d << "/leaf.key;\n"
      << "  location / { return 200 \"hello from nginx\\n\"; }\n }\n}\n";
  t.proc = std::make_unique<test::ChildProcess>(std::vector<std::string>{
      "nginx", "-p", d, "-c", d + "/nginx.conf", "-g", "daemon off; master_process off;"});
  for (int i = 0; i < 100; ++i) {  // until it accepts
    test::TcpClient c(t.port);
    if (c.ok()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

struct Answer {
  std::vector<std::pair<int, std::size_t>> records;  // (outer type, wire size)
  ServerFlight flight;
  std::size_t tickets = 0;
};

std::vector<std::pair<int, std::size_t>> split_records(const Bytes& wire) {
  std::vector<std::pair<int, std::size_t>> out;
  std::size_t p = 0;
  while (p + 5 <= wire.size()) {
    const std::size_t n = 5 + ((wire[p + 3] << 8) | wire[p + 4]);
    if (p + n > wire.size()) break;
    out.emplace_back(wire[p], n);
    p += n;
  }
  return out;
}

BuiltClientHello the_hello() {
  crypto::DeterministicRng rng(20261201);
  ClientHelloParams p;
  p.server_name = "www.example.com";
  rng.fill(p.session_id);
  return build_client_hello(p, rng);
}

// Sends the hello to `port`, completes the handshake, collects every byte the server
// sends until it has been quiet for 400 ms.
Answer ask_nginx(int port) {
  Answer a;
  test::TcpClient tcp(port);
  EXPECT_TRUE(tcp.ok());
  ClientHandshake hs(the_hello(), {});
  hs.start(Instant{});
  Bytes wire;
  const auto end = std::chrono::steady_clock::now() + 10s;
  bool done_sent = false;
  while (std::chrono::steady_clock::now() < end) {
    Bytes out = hs.take_output();
    if (!out.empty()) {
      tcp.send_all(out);
      if (hs.state() == ClientHandshake::State::kDone) done_sent = true;
    }
    auto in = tcp.recv_some(done_sent ? 400ms : 2000ms);
    if (!in || in->empty()) break;
    append(wire, *in);
    if (hs.state() == ClientHandshake::State::kRunning) hs.on_bytes(*in, Instant{});
  }
  EXPECT_EQ(hs.state(), ClientHandshake::State::kDone) << hs.failure_detail();
  a.records = split_records(wire);
  a.flight = hs.server_flight();
  return a;
}

Answer ask_terminator(std::shared_ptr<const TargetShape> shape) {
  Answer a;
  crypto::DeterministicRng srng(5);
  ClientHandshake hs(the_hello(), {});
  Terminator term({shape}, srng);
  hs.start(Instant{});
  term.start(Instant{});
  Bytes wire;
  for (int i = 0; i < 10; ++i) {
    Bytes c = hs.take_output();
    if (!c.empty()) term.on_bytes(c, Instant{});
    Bytes s = term.take_output();
    append(wire, s);
    if (!s.empty() && hs.state() == ClientHandshake::State::kRunning) hs.on_bytes(s, Instant{});
    if (c.empty() && s.empty()) break;
  }
  EXPECT_EQ(hs.state(), ClientHandshake::State::kDone) << hs.failure_detail();
  EXPECT_EQ(term.state(), Terminator::State::kDone) << term.failure_detail();
  a.records = split_records(wire);
  a.flight = hs.server_flight();
  return a;
}

TEST(NginxTarget, ProbeMeasuresItAndTheTerminatorAnswersLikeIt) {
  NginxTarget t;
  ASSERT_TRUE(start_nginx(t)) << (t.proc ? t.proc->output() : "openssl failed");

  crypto::DeterministicRng rng(1);
  transport::TargetProbeConfig cfg;
  cfg.host = "127.0.0.1";
  cfg.port = static_cast<std::uint16_t>(t.port);
  cfg.sni = "www.example.com";
  auto probed = transport::probe_target(cfg, rng);
  ASSERT_TRUE(probed.ok()) << probed.error();
  const TargetShape& s = *probed;
  std::printf("nginx shape: %s\n", describe(s).c_str());
  EXPECT_TRUE(s.probed);
  EXPECT_EQ(s.suite, CipherSuite::kAes128GcmSha256);  // OpenSSL 3.0 follows Chrome's order
  EXPECT_EQ(s.group, group::kX25519);                 // OpenSSL 3.0 has no X25519MLKEM768
  EXPECT_EQ(s.server_hello_extensions, (std::vector<std::uint16_t>{0x002B, 0x0033}));
  EXPECT_TRUE(s.change_cipher_spec);
  EXPECT_NE(describe(s).find("alpn=h2"), std::string::npos);
  auto chain = parse_certificate(s.certificate_body);
  ASSERT_TRUE(chain.ok());
  ASSERT_EQ(chain->entries.size(), 2u);
  EXPECT_EQ(to_hex(chain->entries[0].cert_data), to_hex(t.leaf_der));
  EXPECT_EQ(to_hex(chain->entries[1].cert_data), to_hex(t.intermediate_der));
  EXPECT_EQ(s.certificate_compression, 0);  // OpenSSL 3.0 cannot compress certificates
  EXPECT_EQ(s.signature_scheme, sigscheme::kEcdsaSecp256r1Sha256);
  EXPECT_GE(s.signature_size, 70u);
  EXPECT_LE(s.signature_size, 72u);
  EXPECT_EQ(s.flight_records.size(), 4u);  // EE, Certificate, CertificateVerify, Finished
  EXPECT_EQ(s.ticket_records.size(), 2u);

  const auto shape = std::make_shared<const TargetShape>(s);
  const Answer theirs = ask_nginx(t.port);
  const Answer ours = ask_terminator(shape);
  auto list = [](const Answer& a) {
    std::string out;
    for (const auto& [type, n] : a.records)
      out += std::to_string(type) + ":" + std::to_string(n) + " ";
    return out;
  };
  ASSERT_EQ(ours.records.size(), theirs.records.size())
      << "ours " << list(ours) << "\nnginx " << list(theirs);
  // SH, CCS, EE, Certificate, CertificateVerify (±2), Finished, tickets.
  for (std::size_t i = 0; i < theirs.records.size(); ++i) {
    EXPECT_EQ(ours.records[i].first, theirs.records[i].first) << "record " << i;
    const long d =
        static_cast<long>(ours.records[i].second) - static_cast<long>(theirs.records[i].second);
    const bool cv_record = i == 4;
    EXPECT_LE(std::labs(d), cv_record ? 2 : 0)
        << "record " << i << ": ours " << ours.records[i].second << ", nginx "
        << theirs.records[i].second;
  }
  EXPECT_EQ(to_hex(ours.flight.encrypted_extensions), to_hex(theirs.flight.encrypted_extensions));
  EXPECT_EQ(to_hex(ours.flight.certificate), to_hex(theirs.flight.certificate));
  EXPECT_EQ(ours.flight.server_hello.size(), theirs.flight.server_hello.size());
}

TEST(NginxTarget, UnreachableTargetGivesTheFallbackShapeWithItsReason) {
  int port = 0;
  {
    test::TcpListener l;  // a port that was free a moment ago and is closed now
    port = l.port();
  }
  crypto::DeterministicRng rng(2);
  transport::TargetProbeConfig cfg;
  cfg.host = "127.0.0.1";
  cfg.port = static_cast<std::uint16_t>(port);
  cfg.sni = "www.example.com";
  cfg.timeout = 2000ms;
  std::string why;
  auto shape = transport::probe_or_fallback(cfg, rng, &why);
  ASSERT_TRUE(shape);
  EXPECT_FALSE(shape->probed);
  EXPECT_FALSE(why.empty());
  EXPECT_NE(shape->source.find("fallback"), std::string::npos);
  // The fallback still terminates our clients.
  const Answer a = ask_terminator(shape);
  EXPECT_GE(a.records.size(), 6u);
}

}  // namespace
}  // namespace qeli::tls
