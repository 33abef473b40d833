// Our sans-I/O TLS 1.3 client against a real `openssl s_server` on loopback, for each of
// the three suites: the handshake completes with the Chromium hello (OpenSSL 3.0 knows no
// X25519MLKEM768 and picks the X25519 share), application data flows both ways, a
// KeyUpdate from the server (s_server's "K" command: update_requested) is honoured and
// answered, our own KeyUpdate(update_requested) is accepted and answered, the §7.5
// exporter equals s_server's -keymatexport output, and close_notify ends the session.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "crypto/random.h"
#include "peer_process.h"
#include "tls/client_handshake.h"
#include "tls/record_channel.h"

namespace qeli::tls {
namespace {

using namespace std::chrono_literals;
using test::ChildProcess;
using test::TcpClient;

constexpr const char* kLabel = "EXPORTER-qeli-test";

struct Established {
  std::unique_ptr<RecordSender> send;
  std::unique_ptr<RecordReceiver> recv;
  ClientEstablished info;
};

// Runs `hs` over `tcp` to completion (or failure); returns the channel on success.
std::optional<Established> run_handshake(ClientHandshake& hs, TcpClient& tcp) {
  const auto t0 = std::chrono::steady_clock::now();
  hs.start(Instant{});
  while (hs.state() == ClientHandshake::State::kRunning) {
    Bytes out = hs.take_output();
    if (!out.empty() && !tcp.send_all(out)) return std::nullopt;
    if (std::chrono::steady_clock::now() - t0 > 10s) return std::nullopt;
    auto in = tcp.recv_some(200ms);
    if (!in) {
      hs.on_peer_closed();
      break;
    }
    if (!in->empty()) hs.on_bytes(*in, Instant{});
  }
  Bytes out = hs.take_output();
  if (!out.empty()) tcp.send_all(out);
  if (hs.state() != ClientHandshake::State::kDone) return std::nullopt;
  Established e;
  e.info = hs.into_established();
  auto signal = std::make_shared<KeyUpdateSignal>();
  e.send =
      std::make_unique<RecordSender>(e.info.suite, e.info.client_traffic.clone(), signal, false);
  e.recv = std::make_unique<RecordReceiver>(e.info.suite, e.info.server_traffic.clone(), signal);
  EXPECT_TRUE(e.recv->buffer().append(e.info.leftover).ok());
  return e;
}

void send_text(Established& e, TcpClient& tcp, const std::string& s) {
  if (e.send->key_update_due()) {
    Bytes ku(kKeyUpdateRecordSize);
    auto n = e.send->seal_key_update(ku);
    ASSERT_TRUE(n.ok());
    ku.resize(*n);
    ASSERT_TRUE(tcp.send_all(ku));
  }
  Bytes rec(kRecordHead + s.size() + kRecordTail);
  std::copy(s.begin(), s.end(), rec.begin() + kRecordHead);
  auto n = e.send->seal(rec, s.size());
  ASSERT_TRUE(n.ok());
  rec.resize(*n);
  ASSERT_TRUE(tcp.send_all(rec));
}

// Reads records until the plaintext received contains `needle`.
bool receive_text(Established& e, TcpClient& tcp, const std::string& needle, std::string& got) {
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < end) {
    for (;;) {
      auto in = e.recv->next();
      if (!in) {
        ADD_FAILURE() << "receive: " << to_string(in.error());
        return false;
      }
      if (in->kind != InboundKind::kData) break;
      got.append(reinterpret_cast<const char*>(in->data.data()), in->data.size());
    }
    if (got.find(needle) != std::string::npos) return true;
    auto bytes = tcp.recv_some(100ms);
    if (!bytes) return false;
    if (!e.recv->buffer().append(*bytes).ok()) return false;
  }
  return false;
}

// Reads and processes records until `done()` holds (no data expected meanwhile).
template <class Pred>
bool pump_until(Established& e, TcpClient& tcp, Pred done) {
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    auto bytes = tcp.recv_some(50ms);
    if (!bytes || !e.recv->buffer().append(*bytes).ok()) return false;
    for (;;) {
      auto in = e.recv->next();
      if (!in || in->kind != InboundKind::kData) break;
    }
  }
  return true;
}

class ClientAgainstOpenssl : public ::testing::TestWithParam<CipherSuite> {};

TEST_P(ClientAgainstOpenssl, HandshakeDataKeyUpdateExporterAndClose) {
  const CipherSuite suite = GetParam();
  test::TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string key = dir.path() + "/k.pem", cert = dir.path() + "/c.pem";
  ASSERT_EQ(
      test::run_shell("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                      "-nodes -keyout " +
                      key + " -out " + cert + " -days 2 -subj /CN=www.example.com >/dev/null 2>&1"),
      0);
  ChildProcess server({"openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", cert, "-key", key,
                       "-tls1_3", "-ciphersuites", to_string(suite), "-naccept", "1",
                       "-keymatexport", kLabel, "-keymatexportlen", "32"});
  ASSERT_TRUE(server.wait_for_output("ACCEPT", 10s)) << server.output();
  const auto port = test::accept_port(server.output());
  ASSERT_TRUE(port.has_value());

  TcpClient tcp(*port);
  ASSERT_TRUE(tcp.ok());
  crypto::DeterministicRng rng(static_cast<std::uint64_t>(code_of(suite)));
  ClientHelloParams hp;
  hp.server_name = "www.example.com";
  rng.fill(hp.session_id);
  ClientHandshakeConfig cfg;
  ClientHandshake hs(build_client_hello(hp, rng), cfg);
  auto est = run_handshake(hs, tcp);
  ASSERT_TRUE(est.has_value()) << hs.failure_detail() << "\n" << server.output();
  EXPECT_EQ(est->info.suite, suite);
  EXPECT_EQ(est->info.group, group::kX25519);
  // s_server sent EE, Certificate, CertificateVerify, Finished; we recorded them.
  EXPECT_FALSE(hs.server_flight().certificate_body.empty());
  EXPECT_FALSE(hs.server_flight().certificate_verify.empty());

  // Exporter (§7.5) equals OpenSSL's.
  ASSERT_TRUE(server.wait_for_output("Keying material: ", 5s)) << server.output();
  std::smatch m;
  const std::string out = server.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("Keying material: ([0-9A-Fa-f]+)")));
  std::uint8_t ekm[32];
  ASSERT_TRUE(export_keying_material(suite, est->info.exporter_master, kLabel, {}, ekm));
  std::string theirs = m[1];
  std::transform(theirs.begin(), theirs.end(), theirs.begin(), ::tolower);
  EXPECT_EQ(to_hex(ekm), theirs);

  std::string got;
  // Client → server.
  send_text(*est, tcp, "hello-from-qeli\n");
  EXPECT_TRUE(server.wait_for_output("hello-from-qeli", 5s)) << server.output();
  // Server → client (s_server also sends its NewSessionTickets first; we skip them).
  server.write_stdin("ping-from-openssl\n");
  EXPECT_TRUE(receive_text(*est, tcp, "ping-from-openssl", got));
  EXPECT_GE(est->recv->tickets_received(), 1u);

  // Server-initiated KeyUpdate(update_requested): we rekey our receive side, and our next
  // data goes after our own KeyUpdate under the new send key.
  // s_server treats a whole stdin read as one command, so the data goes in a later read.
  server.write_stdin("K\n");
  ASSERT_TRUE(pump_until(*est, tcp, [&] { return est->recv->key_updates_received() == 1; }));
  server.write_stdin("after-server-update\n");
  EXPECT_TRUE(receive_text(*est, tcp, "after-server-update", got));
  EXPECT_EQ(est->recv->key_updates_received(), 1u);
  send_text(*est, tcp, "after-our-answer\n");
  EXPECT_EQ(est->send->key_updates_sent(), 1u);
  EXPECT_TRUE(server.wait_for_output("after-our-answer", 5s)) << server.output();

  // Client-initiated KeyUpdate(update_requested): s_server switches its receive key and
  // answers with its own KeyUpdate, which we must honour again.
  Bytes ku(kKeyUpdateRecordSize);
  auto n = est->send->seal_key_update(ku, KeyUpdateRequest::kRequested);
  ASSERT_TRUE(n.ok());
  ku.resize(*n);
  ASSERT_TRUE(tcp.send_all(ku));
  send_text(*est, tcp, "after-client-update\n");
  EXPECT_TRUE(server.wait_for_output("after-client-update", 5s)) << server.output();
  server.write_stdin("reply-after-client-update\n");
  EXPECT_TRUE(receive_text(*est, tcp, "reply-after-client-update", got));
  EXPECT_EQ(est->recv->key_updates_received(), 2u);

  // Many records both ways, each side across its key change.
  for (int i = 0; i < 50; ++i) send_text(*est, tcp, "bulk-" + std::to_string(i) + "\n");
  EXPECT_TRUE(server.wait_for_output("bulk-49", 5s));

  auto close = est->send->close_notify();
  ASSERT_TRUE(close.has_value());
  ASSERT_TRUE(tcp.send_all(*close));
}

INSTANTIATE_TEST_SUITE_P(AllSuites, ClientAgainstOpenssl,
                         ::testing::Values(CipherSuite::kAes128GcmSha256,
                                           CipherSuite::kAes256GcmSha384,
                                           CipherSuite::kChaCha20Poly1305Sha256),
                         [](const auto& p) { return std::to_string(code_of(p.param)); });

}  // namespace
}  // namespace qeli::tls
