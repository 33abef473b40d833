// The flight driver runs any sans-I/O flight over any transport::Stream: a layer's own
// set-up (the test-only XOR layer's magic exchange) with bytes already read handed in
// first and the bytes past its end kept for the layer, then the real qeli handshake over
// the layer it produced — client and server on their own threads, real sockets below.
#include "engine/flight_driver.h"

#include <gtest/gtest.h>

#include <thread>

#include "crypto/x25519.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/xor_stream.h"
#include "transport/stream_io.h"

namespace qeli::engine {
namespace {

using Clock = std::chrono::steady_clock;

TEST(FlightDriver, SetupWithBytesAlreadyReadKeepsWhatFollowsItsEnd) {
  auto sp = test::socket_stream_pair();
  // What the "client" sent: its magic and, in the same write, the first layer frame.
  const Bytes sent = {'X', 'O', 'R', '?', 0x00, 0x01, 'h' ^ test::kXorKey, test::kXorTrailer};
  ASSERT_EQ(transport::write_copy(sp.a, sent, std::chrono::seconds(5)), transport::IoResult::kOk);
  // A peek took the first 3 bytes before the set-up existed; they are handed in.
  std::uint8_t peeked[3];
  transport::ReadResult r{transport::StreamStatus::kWouldBlock};
  while (r.status == transport::StreamStatus::kWouldBlock) r = sp.b.read(peeked);
  ASSERT_EQ(r.status, transport::StreamStatus::kOk);
  ASSERT_EQ(r.bytes, 3U);

  test::XorSetup server(false);
  server.start(Clock::now());
  StopSignal stop;
  ASSERT_EQ(drive_stream_setup(server, sp.b, stop, ByteSpan(peeked, 3)),
            transport::SetupState::kDone)
      << server.failure();
  auto layer = server.into_stream(std::make_unique<transport::TcpStream>(std::move(sp.b)));
  std::uint8_t buf[8];
  const auto got = layer->read(buf);
  ASSERT_EQ(got.status, transport::StreamStatus::kOk) << "the leftover frame, not lost";
  ASSERT_EQ(got.bytes, 1U);
  EXPECT_EQ(buf[0], 'h');
}

TEST(FlightDriver, TheQeliHandshakeRunsOverALayeredStream) {
  auto sp = test::socket_stream_pair();
  crypto::DeterministicRng client_rng(3), server_rng(4), id_rng(5);
  const crypto::X25519KeyPair identity = crypto::x25519_generate(id_rng);
  handshake::ClientConfig cc;
  cc.mode = handshake::Mode::kFakeTls;
  cc.pinned_server_key = identity.public_key;
  cc.user = "alice";
  cc.password = "pw";
  cc.sni = {wire::Sni::Kind::kHost, "example.com"};
  handshake::ServerConfig sc;
  sc.mode = handshake::Mode::kFakeTls;
  sc.identity = &identity;
  handshake::AuthOk ok;
  ok.client_ip = "10.8.0.2";
  ok.server_ip = "10.8.0.1";
  ok.prefix = 24;

  StopSignal stop;
  handshake::Failure client_failure = handshake::Failure::kTimeout;
  std::string user_seen;
  std::thread server([&] {
    transport::TcpStream& tcp = sp.b;
    test::XorSetup setup(false);
    setup.start(Clock::now());
    ASSERT_EQ(drive_stream_setup(setup, tcp, stop), transport::SetupState::kDone);
    auto layer = setup.into_stream(std::make_unique<transport::TcpStream>(std::move(tcp)));
    handshake::ServerHandshake hs(sc, server_rng);
    hs.start(Clock::now());
    const auto f = drive_server_handshake(
        hs, *layer, stop, [&](handshake::ServerEvent& ev, handshake::ServerHandshake& h) {
          if (auto* a = std::get_if<handshake::AuthRequest>(&ev)) user_seen = a->user;
          h.accept(ok);
        });
    EXPECT_EQ(f, handshake::Failure::kNone);
  });
  test::XorSetup setup(true);
  setup.start(Clock::now());
  ASSERT_EQ(drive_stream_setup(setup, sp.a, stop), transport::SetupState::kDone);
  auto layer = setup.into_stream(std::make_unique<transport::TcpStream>(std::move(sp.a)));
  handshake::ClientHandshake hs(cc, client_rng);
  hs.start(Clock::now());
  client_failure = drive_client_handshake(hs, *layer, stop);
  server.join();
  ASSERT_EQ(client_failure, handshake::Failure::kNone);
  EXPECT_EQ(user_seen, "alice");
  EXPECT_EQ(hs.take_session().auth_ok->client_ip, "10.8.0.2");
}

TEST(FlightDriver, AStopEndsASetupThatWaitsForItsPeer) {
  auto sp = test::socket_stream_pair();
  test::XorSetup setup(false);  // the server: waits for a client that never speaks
  setup.start(Clock::now());
  StopSignal stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop.stop();
  });
  EXPECT_EQ(drive_stream_setup(setup, sp.b, stop), transport::SetupState::kFailed);
  stopper.join();
}

}  // namespace
}  // namespace qeli::engine
