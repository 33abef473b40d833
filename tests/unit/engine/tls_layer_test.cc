// The reality-tls TLS 1.3 layer (transport/tls_setup.h, tls_stream.h) as a real stream
// layer: our client set-up against our terminator's set-up over a kernel socket pair
// (the server handed the ClientHello as already-peeked bytes, as behind the REALITY
// gate), then the 0.7.16 qeli handshake (the fake-TLS flight) inside the TLS records,
// then bulk chunks both ways written in place with the stack's head/tail room, across
// KeyUpdates; and the same client layer against a real `openssl s_server`.
#include <gtest/gtest.h>

#include <poll.h>

#include <optional>
#include <thread>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "engine/flight_driver.h"
#include "fakes/socket_stream_pair.h"
#include "tls/client_hello_builder.h"
#include "tls/target_shape.h"
#include "transport/stream_io.h"
#include "transport/tls_setup.h"

namespace qeli::engine {
namespace {

using Clock = std::chrono::steady_clock;

tls::BuiltClientHello chromium_hello(std::uint64_t seed) {
  crypto::DeterministicRng rng(seed);
  tls::ClientHelloParams p;
  p.server_name = "www.example.com";
  rng.fill(p.session_id);
  return tls::build_client_hello(p, rng);
}

std::shared_ptr<const tls::TargetShape> shape() {
  crypto::DeterministicRng rng(1);
  return std::make_shared<const tls::TargetShape>(
      tls::fallback_shape("www.example.com", "test", rng));
}

// Reads exactly out.size() bytes (polling the stream's fd), within 10 s.
bool read_all(transport::Stream& s, MutableByteSpan out) {
  std::size_t got = 0;
  const auto end = Clock::now() + std::chrono::seconds(10);
  while (got < out.size() && Clock::now() < end) {
    const transport::ReadResult r = s.read(out.subspan(got));
    if (r.status == transport::StreamStatus::kOk) {
      got += r.bytes;
    } else if (r.status == transport::StreamStatus::kWouldBlock) {
      pollfd p{s.fd(), POLLIN, 0};
      ::poll(&p, 1, 100);
    } else {
      return false;
    }
  }
  return got == out.size();
}

// Writes `n` chunks of `size` bytes (pattern by index) through `s`, with the room the
// stack asks for around each.
void write_chunks(transport::Stream& s, int n, std::size_t size, std::uint8_t tag) {
  const transport::Overhead o = s.overhead();
  ASSERT_LE(size, o.max_chunk);
  const std::size_t stride = o.head + size + o.tail;
  Bytes buf(stride * static_cast<std::size_t>(n));
  std::vector<MutableByteSpan> chunks;
  for (int i = 0; i < n; ++i) {
    std::uint8_t* p = buf.data() + static_cast<std::size_t>(i) * stride + o.head;
    for (std::size_t k = 0; k < size; ++k) p[k] = static_cast<std::uint8_t>(tag + i + k);
    chunks.emplace_back(p, size);
  }
  transport::StreamStatus st = s.write(chunks);
  while (st == transport::StreamStatus::kWouldBlock) {
    ASSERT_EQ(transport::finish_write(s, std::chrono::seconds(10)), transport::IoResult::kOk);
    st = transport::StreamStatus::kOk;
  }
  ASSERT_EQ(st, transport::StreamStatus::kOk);
}

void read_chunks(transport::Stream& s, int n, std::size_t size, std::uint8_t tag) {
  Bytes got(static_cast<std::size_t>(n) * size);
  ASSERT_TRUE(read_all(s, got));
  for (int i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < size; k += 997) {
      ASSERT_EQ(got[static_cast<std::size_t>(i) * size + k],
                static_cast<std::uint8_t>(tag + i + k));
    }
  }
}

struct LayerPair {
  std::unique_ptr<transport::Stream> client, server;
  std::uint8_t client_ekm[32] = {}, server_ekm[32] = {};
  std::optional<tls::HelloFamily> family;
};

// Our TLS client set-up and the terminator's over a socket pair; the server is handed the
// whole ClientHello as already-peeked bytes, as behind the REALITY gate.
LayerPair tls_pair(crypto::Rng& tls_rng, StopSignal& stop) {
  auto sp = test::socket_stream_pair();
  LayerPair lp;
  std::thread server([&] {
    transport::TcpStream& tcp = sp.b;
    std::uint8_t hdr[5];
    ASSERT_TRUE(read_all(tcp, hdr));
    Bytes peeked(5 + ((hdr[3] << 8) | hdr[4]));
    std::copy(hdr, hdr + 5, peeked.begin());
    ASSERT_TRUE(read_all(tcp, MutableByteSpan(peeked).subspan(5)));
    transport::TlsServerSetup setup({shape()}, tls_rng);
    setup.start(Clock::now());
    ASSERT_EQ(drive_stream_setup(setup, tcp, stop, peeked), transport::SetupState::kDone)
        << setup.failure();
    lp.family = setup.client_family();
    ASSERT_TRUE(setup.export_keying_material("EXPORTER-qeli", {}, lp.server_ekm));
    lp.server = setup.into_stream(std::make_unique<transport::TcpStream>(std::move(tcp)));
  });
  transport::TlsClientSetup setup(chromium_hello(11));
  setup.start(Clock::now());
  EXPECT_EQ(drive_stream_setup(setup, sp.a, stop), transport::SetupState::kDone) << setup.failure();
  EXPECT_TRUE(setup.export_keying_material("EXPORTER-qeli", {}, lp.client_ekm));
  lp.client = setup.into_stream(std::make_unique<transport::TcpStream>(std::move(sp.a)));
  server.join();
  return lp;
}

TEST(TlsLayer, CarriesTheQeliHandshakeBetweenOurClientAndTheTerminator) {
  crypto::DeterministicRng client_rng(3), server_rng(4), id_rng(5), tls_rng(6);
  const crypto::X25519KeyPair identity = crypto::x25519_generate(id_rng);
  handshake::ClientConfig cc;
  cc.mode = handshake::Mode::kFakeTls;
  cc.pinned_server_key = identity.public_key;
  cc.user = "alice";
  cc.password = "pw";
  cc.sni = {wire::Sni::Kind::kHost, "www.example.com"};
  handshake::ServerConfig sc;
  sc.mode = handshake::Mode::kFakeTls;
  sc.identity = &identity;
  handshake::AuthOk ok;
  ok.client_ip = "10.8.0.2";
  ok.server_ip = "10.8.0.1";
  ok.prefix = 24;

  StopSignal stop;
  LayerPair lp = tls_pair(tls_rng, stop);
  ASSERT_TRUE(lp.client && lp.server);
  EXPECT_EQ(lp.family, tls::HelloFamily::kChromium156);
  EXPECT_EQ(to_hex(lp.client_ekm), to_hex(lp.server_ekm));
  EXPECT_EQ(lp.client->overhead(), (transport::Overhead{5, 17, 16384}));
  std::thread server([&] {
    handshake::ServerHandshake hs(sc, server_rng);
    hs.start(Clock::now());
    EXPECT_EQ(drive_server_handshake(
                  hs, *lp.server, stop,
                  [&](handshake::ServerEvent&, handshake::ServerHandshake& h) { h.accept(ok); }),
              handshake::Failure::kNone);
  });
  handshake::ClientHandshake hs(cc, client_rng);
  hs.start(Clock::now());
  EXPECT_EQ(drive_client_handshake(hs, *lp.client, stop), handshake::Failure::kNone);
  server.join();
  EXPECT_EQ(hs.take_session().auth_ok->client_ip, "10.8.0.2");
}

TEST(TlsLayer, BulkDataBothWaysAcrossKeyUpdatesThenCloseNotify) {
  crypto::DeterministicRng tls_rng(7);
  StopSignal stop;
  LayerPair lp = tls_pair(tls_rng, stop);
  ASSERT_TRUE(lp.client && lp.server);
  auto& client_tls = static_cast<transport::TlsStream&>(*lp.client);
  auto& server_tls = static_cast<transport::TlsStream&>(*lp.server);
  std::thread reader([&] { read_chunks(*lp.server, 40, 16384, 7); });
  write_chunks(*lp.client, 40, 16384, 7);
  reader.join();
  write_chunks(*lp.server, 10, 1000, 9);
  read_chunks(*lp.client, 10, 1000, 9);
  // KeyUpdate(update_requested) from the client, answered by the server's next write.
  client_tls.request_key_update(true);
  write_chunks(*lp.client, 3, 5000, 11);
  read_chunks(*lp.server, 3, 5000, 11);
  EXPECT_EQ(client_tls.sender().key_updates_sent(), 1u);
  EXPECT_EQ(server_tls.receiver().key_updates_received(), 1u);
  write_chunks(*lp.server, 3, 5000, 12);
  read_chunks(*lp.client, 3, 5000, 12);
  EXPECT_EQ(server_tls.sender().key_updates_sent(), 1u);
  EXPECT_EQ(client_tls.receiver().key_updates_received(), 1u);
  // And one the server starts, not asking back.
  server_tls.request_key_update(false);
  write_chunks(*lp.server, 2, 16384, 13);
  read_chunks(*lp.client, 2, 16384, 13);
  write_chunks(*lp.client, 2, 100, 14);
  read_chunks(*lp.server, 2, 100, 14);
  EXPECT_EQ(client_tls.receiver().key_updates_received(), 2u);
  EXPECT_EQ(client_tls.sender().key_updates_sent(), 1u);
  // close_notify reads as kClosed on the other side.
  EXPECT_EQ(client_tls.close_notify(), transport::StreamStatus::kOk);
  std::uint8_t b[16];
  transport::ReadResult r{transport::StreamStatus::kWouldBlock};
  for (int i = 0; i < 100 && r.status == transport::StreamStatus::kWouldBlock; ++i) {
    r = lp.server->read(b);
    if (r.status == transport::StreamStatus::kWouldBlock)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(r.status, transport::StreamStatus::kClosed);
}

}  // namespace
}  // namespace qeli::engine
