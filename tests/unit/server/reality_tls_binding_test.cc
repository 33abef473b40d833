// The reality-tls channel binding over real sockets (docs/PROTOCOL.md §16): our client and
// server, each with its TLS 1.3 layer and the exporter wired into the qeli handshake as
// the daemons wire it, directly and with a man in the middle who terminates TLS on both
// sides and relays the inner bytes (he knows the link: the server key and a short id, so
// his own hello carries a valid token). Directly, the session binds and the inner AEAD is
// dropped; through him the client refuses the session (kTlsBindingMismatch), so he never
// sees a record without the inner encryption.
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "config/short_id.h"
#include "engine/flight_driver.h"
#include "fakes/socket_stream_pair.h"
#include "server/tcp_carrier.h"
#include "transport/reality_tls_hello.h"
#include "transport/stream_io.h"
#include "transport/tls_setup.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view kShortId = "0123456789abcdef";

std::shared_ptr<const tls::TargetShape> shape() {
  crypto::DeterministicRng rng(4);
  return std::make_shared<const tls::TargetShape>(tls::fallback_shape("decoy.test", "test", rng));
}

// The binding's exporter of a finished TLS set-up (client or server side).
template <class Setup>
std::optional<handshake::TlsExporter> exporter_of(const Setup& setup) {
  handshake::TlsExporter e{};
  if (!setup.export_keying_material(handshake::kTlsBindingExporterLabel, {}, e)) return {};
  return e;
}

// The server side of reality-tls after the gate: terminator, exporter, qeli handshake.
std::unique_ptr<transport::Stream> terminate(std::unique_ptr<transport::Stream> s, crypto::Rng& rng,
                                             engine::StopSignal& stop,
                                             std::optional<handshake::TlsExporter>* exporter) {
  transport::TlsServerSetup setup({shape()}, rng);
  setup.start(Clock::now());
  if (engine::drive_stream_setup(setup, *s, stop) != transport::SetupState::kDone) return nullptr;
  if (exporter) *exporter = exporter_of(setup);
  return setup.into_stream(std::move(s));
}

// The client side: our hello with a valid token, the TLS handshake, the exporter.
std::unique_ptr<transport::Stream> dial(std::unique_ptr<transport::Stream> s,
                                        const crypto::X25519Public& server_key, crypto::Rng& rng,
                                        engine::StopSignal& stop,
                                        std::optional<handshake::TlsExporter>* exporter) {
  transport::RealityTlsHelloParams hp;
  hp.server_name = "decoy.test";
  hp.server_key = server_key;
  hp.short_id = *config::parse_short_id(kShortId);
  hp.unix_secs = unix_now();
  auto hello = transport::build_reality_tls_hello(hp, rng);
  if (!hello) return nullptr;
  transport::TlsClientSetup setup(std::move(*hello));
  setup.start(Clock::now());
  if (engine::drive_stream_setup(setup, *s, stop) != transport::SetupState::kDone) return nullptr;
  if (exporter) *exporter = exporter_of(setup);
  return setup.into_stream(std::move(s));
}

// Copies what `from` reads into `to` until either side closes or `stop`.
void pump(transport::Stream& from, transport::Stream& to, const std::atomic<bool>& stop) {
  std::uint8_t buf[8192];
  while (!stop) {
    const auto r = from.read(buf);
    if (r.status == transport::StreamStatus::kOk) {
      if (transport::write_copy(to, {buf, r.bytes}, std::chrono::seconds(5)) !=
          transport::IoResult::kOk) {
        return;
      }
    } else if (r.status == transport::StreamStatus::kWouldBlock) {
      pollfd p{from.fd(), POLLIN, 0};
      ::poll(&p, 1, 50);
    } else {
      return;
    }
  }
}

struct Outcome {
  handshake::Failure client = handshake::Failure::kNone;
  bool client_bound = false;
  bool server_offered = false;
};

Outcome run(bool mitm) {
  crypto::DeterministicRng id_rng(1), crng(2), srng(3), mrng(5);
  const crypto::X25519KeyPair identity = crypto::x25519_generate(id_rng);
  engine::StopSignal stop;
  auto near = test::socket_stream_pair();  // client ↔ (mitm | server)
  auto far = test::socket_stream_pair();   // mitm ↔ server (unused without a mitm)
  std::unique_ptr<transport::Stream> server_raw =
      std::make_unique<transport::TcpStream>(mitm ? std::move(far.b) : std::move(near.b));
  Outcome out;

  std::thread server([&] {
    std::optional<handshake::TlsExporter> e;
    auto s = terminate(std::move(server_raw), srng, stop, &e);
    if (!s || !e) return;
    handshake::ServerConfig sc;
    sc.identity = &identity;
    sc.extensions = handshake::caps::kCapabilityExchange | handshake::caps::kTlsBinding;
    sc.tls_exporter = e;
    out.server_offered = true;
    handshake::ServerHandshake hs(sc, srng);
    hs.start(Clock::now());
    handshake::AuthOk ok;
    ok.client_ip = "10.8.0.2";
    ok.server_ip = "10.8.0.1";
    ok.prefix = 24;
    (void)engine::drive_server_handshake(
        hs, *s, stop,
        [&](handshake::ServerEvent&, handshake::ServerHandshake& h) { h.accept(ok); });
  });
  std::atomic<bool> mitm_stop{false};
  std::thread man([&] {
    if (!mitm) return;
    // He answers the client with his own terminator and dials the server with his own
    // hello (a valid token: the link told him the key and a short id).
    auto front =
        terminate(std::make_unique<transport::TcpStream>(std::move(near.b)), mrng, stop, nullptr);
    auto back = dial(std::make_unique<transport::TcpStream>(std::move(far.a)), identity.public_key,
                     mrng, stop, nullptr);
    if (!front || !back) return;
    std::thread up([&] { pump(*front, *back, mitm_stop); });
    pump(*back, *front, mitm_stop);
    up.join();
  });

  std::optional<handshake::TlsExporter> e;
  auto c = dial(std::make_unique<transport::TcpStream>(std::move(near.a)), identity.public_key,
                crng, stop, &e);
  EXPECT_TRUE(c && e);
  if (c && e) {
    handshake::ClientConfig cc;
    cc.pinned_server_key = identity.public_key;
    cc.user = "alice";
    cc.password = "pw";
    cc.sni = {wire::Sni::Kind::kHost, "decoy.test"};
    cc.extensions = handshake::caps::kCapabilityExchange | handshake::caps::kTlsBinding;
    cc.tls_exporter = e;
    handshake::ClientHandshake hs(cc, crng);
    hs.start(Clock::now());
    out.client = engine::drive_client_handshake(hs, *c, stop);
    if (out.client == handshake::Failure::kNone) out.client_bound = hs.take_session().tls_bound;
  }
  c.reset();  // closes our end: the man and the server see it
  mitm_stop = true;
  stop.stop();
  server.join();
  man.join();
  return out;
}

TEST(RealityTlsBinding, DirectSessionBindsAndDropsTheInnerAead) {
  const Outcome o = run(false);
  EXPECT_TRUE(o.server_offered);
  EXPECT_EQ(o.client, handshake::Failure::kNone);
  EXPECT_TRUE(o.client_bound);
}

TEST(RealityTlsBinding, AManInTheMiddleTerminatingTlsFailsTheClient) {
  const Outcome o = run(true);
  EXPECT_TRUE(o.server_offered);  // the server saw a valid token and answered
  EXPECT_EQ(o.client, handshake::Failure::kTlsBindingMismatch);
  EXPECT_FALSE(o.client_bound);
}

}  // namespace
}  // namespace qeli::server
