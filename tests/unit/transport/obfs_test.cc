// TCP obfs as stream layers: the set-up flight of both ends run against each other in
// memory (front on/off, junk on/off, bytes split anywhere), the data phase over a real
// socket pair, the keystream continuity across any split, WebSocket framing by hand
// (fragmentation, Ping/Pong, Close, 2^63 lengths), and the server's refusals.
#include <poll.h>

#include <gtest/gtest.h>

#include <thread>

#include "crypto/chacha20.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/stream_read.h"
#include "transport/obfs_setup.h"
#include "transport/obfs_stream.h"
#include "transport/stream_io.h"
#include "transport/ws_stream.h"
#include "wire/nginx_decoy.h"
#include "wire/udp_obfs.h"

namespace qeli::transport {
namespace {

using test::read_exactly;

using Clock = std::chrono::steady_clock;

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 31 + (i >> 7));
  return b;
}

ObfsParams params(bool ws, std::uint32_t jc) {
  ObfsParams p;
  p.key = wire::derive_obfs_key("unit-psk");
  p.websocket = ws;
  p.junk = wire::JunkPlan::from_config(jc > 0, jc, 10, 200);
  p.host = "vpn.example";
  p.unix_now = 1785834753;
  return p;
}

// Moves every output of `from` into `to`, cut into pieces of `step` bytes.
void pump(ObfsSetup& from, ObfsSetup& to, std::size_t step) {
  for (auto& o : from.take_output()) {
    for (std::size_t at = 0; at < o.bytes.size(); at += step) {
      to.on_bytes(ByteSpan(o.bytes).subspan(at, std::min(step, o.bytes.size() - at)), Clock::now());
    }
  }
}

struct Pair {
  std::unique_ptr<Stream> client, server;
};

// Runs both set-ups to the end in memory, then builds the two stacks over a socket pair.
Pair connect(bool ws, std::uint32_t jc, std::size_t step, crypto::Rng& rng) {
  ObfsSetup c(ObfsSetup::Side::kClient, params(ws, jc), rng);
  ObfsSetup s(ObfsSetup::Side::kServer, params(ws, jc), rng);
  c.start(Clock::now());
  s.start(Clock::now());
  for (int i = 0;
       i < 20 && (c.state() == SetupState::kRunning || s.state() == SetupState::kRunning); ++i) {
    pump(c, s, step);
    pump(s, c, step);
  }
  EXPECT_EQ(c.state(), SetupState::kDone) << c.failure();
  EXPECT_EQ(s.state(), SetupState::kDone) << s.failure();
  auto sp = test::socket_stream_pair();
  Pair p;
  p.client = c.into_stream(std::make_unique<TcpStream>(std::move(sp.a)));
  p.server = s.into_stream(std::make_unique<TcpStream>(std::move(sp.b)));
  return p;
}

// Writes `data` through `s` in chunks of `step` with the stack's head/tail room.
void write_all(Stream& s, ByteSpan data, std::size_t step) {
  ASSERT_EQ(write_copy(s, data.first(0), std::chrono::seconds(1)), IoResult::kOk);
  const Overhead o = s.overhead();
  step = std::min(step, o.max_chunk);
  Bytes buf(o.head + step + o.tail);
  for (std::size_t at = 0; at < data.size(); at += step) {
    const std::size_t n = std::min(step, data.size() - at);
    std::copy_n(data.data() + at, n, buf.data() + o.head);
    MutableByteSpan c(buf.data() + o.head, n);
    StreamStatus st = s.write({&c, 1});
    if (st == StreamStatus::kWouldBlock) {
      ASSERT_EQ(finish_write(s, std::chrono::seconds(10)), IoResult::kOk);
    } else {
      ASSERT_EQ(st, StreamStatus::kOk);
    }
  }
}

TEST(ObfsSetup, BothEndsAgreeWithAndWithoutFrontAndJunkAtAnySplit) {
  crypto::DeterministicRng rng(11);
  for (bool ws : {true, false}) {
    for (std::uint32_t jc : {0U, 3U}) {
      for (std::size_t step : {1U, 5U, 100000U}) {
        SCOPED_TRACE(testing::Message() << "ws=" << ws << " jc=" << jc << " step=" << step);
        Pair p = connect(ws, jc, step, rng);
        ASSERT_TRUE(p.client && p.server);
        const Bytes up = pattern(70000, 1), down = pattern(50000, 2);
        std::thread t([&] { write_all(*p.client, up, 1000); });
        EXPECT_EQ(read_exactly(*p.server, up.size()), up);
        t.join();
        std::thread u([&] { write_all(*p.server, down, 16384); });
        EXPECT_EQ(read_exactly(*p.client, down.size()), down);
        u.join();
        EXPECT_EQ(p.client->overhead(), ws ? (Overhead{8, 0, 16384}) : (Overhead{}));
        EXPECT_EQ(p.server->overhead(), ws ? (Overhead{4, 0, 16384}) : (Overhead{}));
      }
    }
  }
}

TEST(ObfsStream, KeystreamIsContinuousAcrossArbitraryWriteSplits) {
  const auto key = wire::derive_obfs_key("k");
  const ObfsNonce n1{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, n2{};
  const Bytes plain = pattern(10000, 9);
  // Reference: one ChaCha20 pass over the whole stream, block counter 0.
  Bytes expect = plain;
  crypto::ChaCha20 c(key.span());
  c.xor_in_place(n1, 0, expect);
  for (std::size_t step : {1U, 63U, 64U, 65U, 4096U}) {
    auto sp = test::socket_stream_pair();
    ObfsXorStream x(std::make_unique<TcpStream>(std::move(sp.a)), key, n1, n2);
    std::thread t([&] { write_all(x, plain, step); });
    EXPECT_EQ(read_exactly(sp.b, plain.size()), expect) << step;
    t.join();
    EXPECT_EQ(x.sent_bytes(), plain.size());
  }
  // And the receiving side undoes it at any read split.
  auto sp = test::socket_stream_pair();
  ObfsXorStream rx(std::make_unique<TcpStream>(std::move(sp.b)), key, n2, n1);
  ASSERT_EQ(write_copy(sp.a, expect, std::chrono::seconds(5)), IoResult::kOk);
  Bytes got;
  std::uint8_t buf[97];
  while (got.size() < plain.size()) {
    const auto r = rx.read(MutableByteSpan(buf, 1 + got.size() % 97));
    if (r.status == StreamStatus::kOk) got.insert(got.end(), buf, buf + r.bytes);
  }
  EXPECT_EQ(got, plain);
}

TEST(ObfsStream, EndsAtTheKeystreamLimitInsteadOfReusingIt) {
  auto sp = test::socket_stream_pair();
  const auto key = wire::derive_obfs_key("k");
  ObfsXorStream x(std::make_unique<TcpStream>(std::move(sp.a)), key, ObfsNonce{}, ObfsNonce{}, {},
                  100);
  std::uint8_t buf[60] = {};
  MutableByteSpan c(buf, 60);
  EXPECT_EQ(x.write({&c, 1}), StreamStatus::kOk);
  c = MutableByteSpan(buf, 60);
  EXPECT_EQ(x.write({&c, 1}), StreamStatus::kError);
  EXPECT_NE(x.failure().find("256 GiB"), std::string::npos);
}

// A WebSocketStream client over one end; the test speaks raw frames on the other.
struct WsFixture {
  crypto::DeterministicRng rng{5};
  test::SocketStreamPair sp = test::socket_stream_pair();
  std::unique_ptr<WebSocketStream> client =
      std::make_unique<WebSocketStream>(std::make_unique<TcpStream>(std::move(sp.a)), true, rng);
  void send_raw(const Bytes& b) {
    ASSERT_EQ(write_copy(sp.b, b, std::chrono::seconds(5)), IoResult::kOk);
  }
  ReadResult read_some(MutableByteSpan out) {
    for (int i = 0; i < 2000; ++i) {
      const ReadResult r = client->read(out);
      if (r.status != StreamStatus::kWouldBlock) return r;
      pollfd p{client->fd(), POLLIN, 0};
      ::poll(&p, 1, 1);
    }
    return {StreamStatus::kWouldBlock};
  }
};

Bytes frame(std::uint8_t b0, const Bytes& payload) {
  Bytes f(wire::kWsMaxHeader + payload.size());
  const std::size_t h = wire::write_ws_header(f.data(), static_cast<wire::WsOpcode>(b0 & 0x0F),
                                              payload.size(), nullptr);
  f[0] = b0;
  std::copy(payload.begin(), payload.end(), f.begin() + static_cast<std::ptrdiff_t>(h));
  f.resize(h + payload.size());
  return f;
}

TEST(WebSocketStream, FragmentedAndInterleavedFramesDeliverTheByteStream) {
  WsFixture f;
  Bytes wire_bytes;
  append(wire_bytes, frame(0x02, {1, 2, 3}));        // binary, not FIN
  append(wire_bytes, frame(0x89, {'p'}));            // Ping in between (allowed: RFC 6455 §5.4)
  append(wire_bytes, frame(0x00, {4, 5}));           // continuation
  append(wire_bytes, frame(0x81, {'t', 'x', 't'}));  // text: skipped
  append(wire_bytes, frame(0x80, {6}));              // final continuation
  append(wire_bytes, frame(0x82, {}));               // empty binary
  append(wire_bytes, frame(0x82, {7}));
  f.send_raw(wire_bytes);
  EXPECT_EQ(read_exactly(*f.client, 7), (Bytes{1, 2, 3, 4, 5, 6, 7}));
  // The Pong rides in front of the next write, masked, echoing the Ping's body.
  std::uint8_t buf[64] = {};
  MutableByteSpan c(buf + 8, 2);
  buf[8] = 0xAB;
  buf[9] = 0xCD;
  ASSERT_EQ(f.client->write({&c, 1}), StreamStatus::kOk);
  EXPECT_EQ(f.client->replies_sent(), 1U);
  const Bytes raw = read_exactly(f.sp.b, 7 + 8);
  ASSERT_EQ(raw.size(), 15U);
  EXPECT_EQ(raw[0], 0x8A);  // Pong, FIN
  EXPECT_EQ(raw[1], 0x81);  // masked, 1 byte
  EXPECT_EQ(raw[6] ^ raw[2], 'p');
  EXPECT_EQ(raw[7], 0x82);
  EXPECT_EQ(raw[8], 0x82);
  EXPECT_EQ(raw[13] ^ raw[9], 0xAB);
}

TEST(WebSocketStream, CloseIsAnsweredAndEndsTheStream) {
  WsFixture f;
  f.send_raw(frame(0x82, {9}));
  f.send_raw(frame(0x88, {0x03, 0xE8}));  // Close 1000
  std::uint8_t buf[16];
  auto r = f.read_some(buf);
  ASSERT_EQ(r.status, StreamStatus::kOk);
  EXPECT_EQ(r.bytes, 1U);
  EXPECT_EQ(f.read_some(buf).status, StreamStatus::kClosed);
  f.client.reset();  // the echo goes out as the stream is dropped
  const Bytes raw = read_exactly(f.sp.b, 8);
  ASSERT_EQ(raw.size(), 8U);
  EXPECT_EQ(raw[0], 0x88);
  EXPECT_EQ(raw[1], 0x82);
  EXPECT_EQ(raw[6] ^ raw[2], 0x03);
  EXPECT_EQ(raw[7] ^ raw[3], 0xE8);
}

TEST(WebSocketStream, HostileFramesEndTheStreamWithAReason) {
  for (const Bytes& bad : {Bytes{0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0},  // 2^63
                           Bytes{0x82, 0x7E, 0x40, 0x01},                 // 16385
                           Bytes{0x82, 0x81, 1, 2, 3, 4, 5},              // masked from server
                           Bytes{0xF2, 0x00}}) {
    WsFixture f;
    f.send_raw(bad);
    std::uint8_t buf[16];
    EXPECT_EQ(f.read_some(buf).status, StreamStatus::kError) << to_hex(bad);
    EXPECT_FALSE(f.client->failure().empty());
  }
}

TEST(WebSocketStream, APingFloodOwesAtMostEightReplies) {
  WsFixture f;
  Bytes pings;
  for (int i = 0; i < 100; ++i) append(pings, frame(0x89, {}));
  append(pings, frame(0x82, {1}));
  f.send_raw(pings);
  EXPECT_EQ(read_exactly(*f.client, 1), Bytes{1});
  std::uint8_t buf[32] = {};
  MutableByteSpan c(buf + 8, 0);
  ASSERT_EQ(f.client->write({&c, 1}), StreamStatus::kOk);
  EXPECT_EQ(f.client->replies_sent(), WebSocketStream::kMaxOwed);
}

std::string text_of(std::vector<SetupOutput> out) {
  std::string t;
  for (const auto& o : out) t.append(o.bytes.begin(), o.bytes.end());
  return t;
}

TEST(ObfsSetup, ServerAnswersAnythingButTheUpgradeAsNginxKeepingItAlive) {
  crypto::DeterministicRng rng(4);
  ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
  const auto t0 = Clock::now();
  s.start(t0);
  s.on_bytes(as_bytes("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n"), t0);
  EXPECT_EQ(s.state(), SetupState::kRunning) << "nginx keeps an HTTP/1.1 connection open";
  EXPECT_EQ(s.reject_reason(), wire::WsReject::kWrongPath);
  EXPECT_EQ(text_of(s.take_output()),
            wire::nginx_answer("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n", 1, 1785834753).bytes);
  ASSERT_TRUE(s.deadline());
  EXPECT_EQ(*s.deadline(), t0 + std::chrono::seconds(75));
  // A body is read past; the next request, 10 s later, is dated then; HEAD gets no body.
  const auto t1 = t0 + std::chrono::seconds(10);
  s.on_bytes(as_bytes("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab"), t1);
  s.on_bytes(as_bytes("cdeHEAD /b HTTP/1.1\r\nHost: x\r\n\r\n"), t1);
  const std::string two = text_of(s.take_output());
  EXPECT_EQ(
      two,
      wire::nginx_answer("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 2, 1785834763)
              .bytes +
          wire::nginx_answer("HEAD /b HTTP/1.1\r\nHost: x\r\n\r\n", 3, 1785834763).bytes);
  EXPECT_EQ(s.state(), SetupState::kRunning);
  EXPECT_EQ(*s.deadline(), t1 + std::chrono::seconds(75));
  // Connection: close is answered and ends it, counted as answered.
  s.on_bytes(as_bytes("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), t1);
  EXPECT_NE(text_of(s.take_output()).find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_EQ(s.state(), SetupState::kFailed);
  EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
}

TEST(ObfsSetup, ADecoyConnectionEndsAsAnsweredHoweverItEnds) {
  crypto::DeterministicRng rng(4);
  const auto t0 = Clock::now();
  {  // idle past nginx's keepalive_timeout
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(t0);
    s.on_bytes(as_bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), t0);
    s.on_timer(t0 + std::chrono::seconds(74));
    EXPECT_EQ(s.state(), SetupState::kRunning);
    s.on_timer(t0 + std::chrono::seconds(75));
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
  }
  {  // the peer closes
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(t0);
    s.on_bytes(as_bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), t0);
    s.on_peer_closed();
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
  }
  {  // a body over 64 KiB: answered, then closed
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(t0);
    s.on_bytes(as_bytes("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n"), t0);
    EXPECT_NE(text_of(s.take_output()).find("404 Not Found"), std::string::npos);
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
  }
  {  // a head without its end after the answer: closed at 4096 bytes, unanswered
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(t0);
    s.on_bytes(as_bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), t0);
    (void)s.take_output();
    s.on_bytes(as_bytes("GET / HTTP/1.1\r\nX: " + std::string(5000, 'a')), t0);
    EXPECT_TRUE(s.take_output().empty());
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
  }
  {  // the upgrade after a decoy answer is not honoured: nginx's answer again
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(t0);
    s.on_bytes(as_bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), t0);
    (void)s.take_output();
    crypto::DeterministicRng crng(9);
    const std::string up = wire::build_ws_request("x", params(true, 0).key, crng);
    s.on_bytes(as_bytes(up), t0);
    EXPECT_NE(text_of(s.take_output()).find("HTTP/1.1 404 Not Found"), std::string::npos);
    EXPECT_EQ(s.state(), SetupState::kRunning);
  }
}

TEST(ObfsSetup, WithoutKeepAliveEveryAnswerCloses) {
  crypto::DeterministicRng rng(4);
  ObfsParams p = params(true, 0);
  p.decoy_keepalive = Duration::zero();
  ObfsSetup s(ObfsSetup::Side::kServer, std::move(p), rng);
  s.start(Clock::now());
  s.on_bytes(as_bytes("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n"), Clock::now());
  EXPECT_EQ(s.failure_kind(), ObfsFailure::kNotUpgrade);
  EXPECT_EQ(text_of(s.take_output()), wire::nginx_404(1785834753));
}

TEST(ObfsSetup, ServerRefusesAHeadWithoutCrlfCrlfAndOverlongJunk) {
  crypto::DeterministicRng rng(4);
  {
    ObfsSetup s(ObfsSetup::Side::kServer, params(true, 0), rng);
    s.start(Clock::now());
    const std::string head = "GET / HTTP/1.1\r\nX: " + std::string(5000, 'a');
    s.on_bytes(as_bytes(head), Clock::now());
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kHeadTooLarge);
    EXPECT_TRUE(s.take_output().empty()) << "no answer to a head that never ended";
  }
  {
    ObfsSetup s(ObfsSetup::Side::kServer, params(false, 2), rng);
    s.start(Clock::now());
    s.on_bytes(Bytes{0xFF, 0xFF}, Clock::now());
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kJunkTooLong);
  }
  {
    ObfsSetup s(ObfsSetup::Side::kServer, params(false, 2), rng);
    const auto t0 = Clock::now();
    s.start(t0);
    ASSERT_TRUE(s.deadline());
    EXPECT_LE(*s.deadline(), t0 + std::chrono::seconds(15));
    s.on_timer(t0 + std::chrono::seconds(16));
    EXPECT_EQ(s.failure_kind(), ObfsFailure::kTimeout);
  }
}

TEST(ObfsSetup, ClientRefusesANon101Answer) {
  crypto::DeterministicRng rng(4);
  ObfsSetup c(ObfsSetup::Side::kClient, params(true, 0), rng);
  c.start(Clock::now());
  c.on_bytes(as_bytes(wire::nginx_404(0)), Clock::now());
  EXPECT_EQ(c.failure_kind(), ObfsFailure::kBadResponse);
}

}  // namespace
}  // namespace qeli::transport
