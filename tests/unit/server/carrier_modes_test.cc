// Two endpoints over a real socket pair, for each new TCP mode, wired as the server and
// the client wire them: obfs with the WebSocket front, obfs without it and with junk
// (server: make_obfs_setup from a profile; client: ObfsSetup), and reality (the server
// peeks the whole hello, authenticate_hello accepts it, the handshake runs on the same
// bytes as its prefix), and reality-tls (the same gate, then our TLS 1.3 terminator
// answers the peeked Chromium hello and the handshake runs inside its records). The qeli
// handshake completes inside, and bytes then cross the built stacks both ways.
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <thread>

#include "engine/flight_driver.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/stream_read.h"
#include "server/reality_auth.h"
#include "server/tcp_carrier.h"
#include "tls/hello_peek.h"
#include "transport/reality_tls_hello.h"
#include "transport/stream_io.h"
#include "transport/tls_setup.h"
#include "wire/udp_obfs.h"

namespace qeli::server {
namespace {

using test::read_exactly;

using Clock = std::chrono::steady_clock;

enum class Mode { kObfsWs, kObfsRawJunk, kReality, kRealityTls };

config::ProfileConfig profile(Mode m) {
  config::ProfileConfig p;
  p.name = "t";
  if (m == Mode::kReality || m == Mode::kRealityTls) {
    p.obf.mode = m == Mode::kReality ? config::ObfMode::kFakeTls : config::ObfMode::kRealityTls;
    p.obf.reality.enabled = true;
    p.obf.reality.real_tls = m == Mode::kRealityTls;
    p.obf.reality.short_ids = {"0123456789abcdef"};
    return p;
  }
  p.obf.mode = config::ObfMode::kObfs;
  p.obf.obfs_key = "two-endpoint key";
  p.obf.obfs_fronting = m == Mode::kObfsWs ? config::Fronting::kWebsocket : config::Fronting::kNone;
  p.obf.awg = {m == Mode::kObfsRawJunk, 4, 10, 90};
  return p;
}

void run(Mode m) {
  const config::ProfileConfig prof = profile(m);
  crypto::DeterministicRng id_rng(1), crng(2), srng(3);
  const crypto::X25519KeyPair identity = crypto::x25519_generate(id_rng);
  auto sp = test::socket_stream_pair();
  engine::StopSignal stop;
  handshake::AuthOk ok;
  ok.client_ip = "10.8.0.2";
  ok.server_ip = "10.8.0.1";
  ok.prefix = 24;
  std::unique_ptr<transport::Stream> server_top;
  std::string user_seen;
  std::thread server([&] {
    std::unique_ptr<transport::Stream> s = std::make_unique<transport::TcpStream>(std::move(sp.b));
    Bytes prefix;
    if (prof.obf.reality.enabled) {
      // The gate: read until the whole record is here, then decide on it.
      while (tls::peek_client_hello(prefix).verdict == tls::PeekVerdict::kNeedMore) {
        std::uint8_t buf[4096];
        const auto r = s->read(buf);
        if (r.status == transport::StreamStatus::kOk) {
          prefix.insert(prefix.end(), buf, buf + r.bytes);
        } else {
          pollfd p{s->fd(), POLLIN, 0};
          ::poll(&p, 1, 100);
        }
      }
      RealityPolicy policy;
      policy.identity = &identity;
      policy.shared_ids = {*config::parse_short_id("0123456789abcdef")};
      ASSERT_EQ(authenticate_hello(prefix, policy, unix_now()).verdict, RealityVerdict::kAccepted);
    }
    if (auto setup = make_obfs_setup(prof, srng, unix_now(), true)) {
      setup->start(Clock::now());
      ASSERT_EQ(engine::drive_stream_setup(*setup, *s, stop), transport::SetupState::kDone)
          << setup->failure();
      s = setup->into_stream(std::move(s));
    }
    if (prof.obf.reality.real_tls) {
      crypto::DeterministicRng shape_rng(4);
      tls::TerminatorConfig tc;
      tc.shape = std::make_shared<const tls::TargetShape>(
          tls::fallback_shape("decoy.test", "test", shape_rng));
      transport::TlsServerSetup setup(std::move(tc), srng);
      setup.start(Clock::now());
      ASSERT_EQ(engine::drive_stream_setup(setup, *s, stop, prefix), transport::SetupState::kDone)
          << setup.failure();
      prefix.clear();
      s = setup.into_stream(std::move(s));
    }
    handshake::ServerConfig sc;
    sc.identity = &identity;
    sc.extensions = 0;  // 0.7.16: nothing follows AUTH OK but what the test sends
    handshake::ServerHandshake hs(sc, srng);
    hs.start(Clock::now());
    const auto f = engine::drive_server_handshake(
        hs, *s, stop,
        [&](handshake::ServerEvent& ev, handshake::ServerHandshake& h) {
          if (auto* a = std::get_if<handshake::AuthRequest>(&ev)) user_seen = a->user;
          h.accept(ok);
        },
        prefix);
    ASSERT_EQ(f, handshake::Failure::kNone);
    server_top = std::move(s);
  });

  std::unique_ptr<transport::Stream> c = std::make_unique<transport::TcpStream>(std::move(sp.a));
  if (prof.obf.mode == config::ObfMode::kObfs) {
    transport::ObfsParams op;
    op.key = wire::derive_obfs_key(prof.obf.obfs_key);
    op.websocket = prof.obf.obfs_fronting == config::Fronting::kWebsocket;
    op.junk = wire::JunkPlan::from_config(prof.obf.awg.enabled, prof.obf.awg.jc, prof.obf.awg.jmin,
                                          prof.obf.awg.jmax);
    op.host = "vpn.example";
    transport::ObfsSetup setup(transport::ObfsSetup::Side::kClient, std::move(op), crng);
    setup.start(Clock::now());
    ASSERT_EQ(engine::drive_stream_setup(setup, *c, stop), transport::SetupState::kDone);
    c = setup.into_stream(std::move(c));
  }
  if (prof.obf.reality.real_tls) {
    transport::RealityTlsHelloParams hp;
    hp.server_name = "decoy.test";
    hp.server_key = identity.public_key;
    hp.short_id = *config::parse_short_id("0123456789abcdef");
    hp.unix_secs = unix_now();
    auto hello = transport::build_reality_tls_hello(hp, crng);
    ASSERT_TRUE(hello);
    transport::TlsClientSetup setup(std::move(*hello));
    setup.start(Clock::now());
    ASSERT_EQ(engine::drive_stream_setup(setup, *c, stop), transport::SetupState::kDone)
        << setup.failure();
    c = setup.into_stream(std::move(c));
  }
  handshake::ClientConfig cc;
  cc.pinned_server_key = identity.public_key;
  cc.user = "alice";
  cc.password = "pw";
  cc.sni = {wire::Sni::Kind::kHost, "decoy.test"};
  cc.extensions = 0;
  if (prof.obf.reality.enabled) {
    cc.reality = handshake::ClientConfig::RealityToken{*config::parse_short_id("0123456789abcdef"),
                                                       unix_now()};
  }
  handshake::ClientHandshake hs(cc, crng);
  hs.start(Clock::now());
  ASSERT_EQ(engine::drive_client_handshake(hs, *c, stop), handshake::Failure::kNone);
  server.join();
  ASSERT_TRUE(server_top);
  EXPECT_EQ(user_seen, "alice");
  EXPECT_EQ(hs.take_session().auth_ok->client_ip, "10.8.0.2");
  // Bytes through the built stacks, both ways.
  const Bytes up(20000, 0x11), down(30000, 0x22);
  std::thread t([&] {
    EXPECT_EQ(transport::write_copy(*c, up, std::chrono::seconds(5)), transport::IoResult::kOk);
  });
  EXPECT_EQ(read_exactly(*server_top, up.size()), up);
  t.join();
  std::thread u([&] {
    EXPECT_EQ(transport::write_copy(*server_top, down, std::chrono::seconds(5)),
              transport::IoResult::kOk);
  });
  EXPECT_EQ(read_exactly(*c, down.size()), down);
  u.join();
}

TEST(CarrierModes, ObfsWithTheWebSocketFront) { run(Mode::kObfsWs); }
TEST(CarrierModes, ObfsRawWithJunk) { run(Mode::kObfsRawJunk); }
TEST(CarrierModes, RealityTokenThenTheHandshakeOnTheSameBytes) { run(Mode::kReality); }
TEST(CarrierModes, RealityTlsTokenInAChromiumHelloThenTheHandshakeInsideTls) {
  run(Mode::kRealityTls);
}

}  // namespace
}  // namespace qeli::server
