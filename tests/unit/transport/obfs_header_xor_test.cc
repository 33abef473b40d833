// The header-only obfs keystream (capability bit caps::kObfsHeaderXor; docs/PROTOCOL.md
// §17): the exact wire bytes against a reference written from the spec (one ChaCha20
// keystream, consumed by every byte before the switch and by header bytes after it; the
// switch record's type sealed as 0x18), the receiver at any read split, an end without
// the extension (the 0.7.16 bytes, a 0x18 left for the codec to refuse), and two streams
// over a real socket pair where the server follows the client's switch.
#include <gtest/gtest.h>

#include <thread>

#include "crypto/chacha20.h"
#include "fakes/socket_stream_pair.h"
#include "fakes/stream_read.h"
#include "transport/obfs_stream.h"
#include "transport/stream_io.h"
#include "wire/udp_obfs.h"

namespace qeli::transport {
namespace {

using test::read_exactly;

const ObfsNonce kNonceA{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
const ObfsNonce kNonceB{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};

Bytes record(std::uint8_t type, std::size_t len, std::uint8_t seed) {
  Bytes r{type, 0x03, 0x03, static_cast<std::uint8_t>(len >> 8), static_cast<std::uint8_t>(len)};
  for (std::size_t i = 0; i < len; ++i) r.push_back(static_cast<std::uint8_t>(seed * 7 + i * 13));
  return r;
}

// A flight record, then data records of assorted sizes (0-byte body included).
std::vector<Bytes> records() {
  std::vector<Bytes> v{record(0x16, 300, 1), record(0x17, 38, 2), record(0x17, 0, 3)};
  for (std::size_t n : {1400U, 16676U, 5U, 9000U, 64U}) {
    v.push_back(record(0x17, n, static_cast<std::uint8_t>(n)));
  }
  return v;
}

Bytes concat(const std::vector<Bytes>& v) {
  Bytes out;
  for (const auto& r : v) out.insert(out.end(), r.begin(), r.end());
  return out;
}

// The spec, independently: records [0, switch_at) take the keystream on every byte;
// record `switch_at` gets type 0x18 and, like every later one, the keystream on its 5
// header bytes only. The keystream is one ChaCha20 pass, consumed only by XORed bytes.
Bytes reference_wire(const std::vector<Bytes>& recs, std::size_t switch_at, const ObfsNonce& n) {
  Bytes ks(1 << 20, 0);
  crypto::ChaCha20(wire::derive_obfs_key("k").span()).xor_in_place(n, 0, ks);
  std::size_t k = 0;
  Bytes out;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    Bytes r = recs[i];
    if (i == switch_at) r[0] = 0x18;
    const std::size_t xored = i < switch_at ? r.size() : 5;
    for (std::size_t j = 0; j < xored; ++j) r[j] ^= ks[k++];
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

// Seals `plain` through a walker in pieces of `step`, requesting the switch from byte
// `request_at` on.
Bytes seal(ByteSpan plain, std::size_t step, std::size_t request_at, bool track, bool* sw) {
  crypto::ChaCha20Stream ks(wire::derive_obfs_key("k").span(), kNonceA);
  ObfsRecordWalker w(track);
  Bytes out(plain.begin(), plain.end());
  bool switched = false;
  for (std::size_t at = 0; at < out.size();) {
    std::size_t n = std::min(step, out.size() - at);
    if (at < request_at) n = std::min(n, request_at - at);  // a write ends where it comes
    EXPECT_TRUE(w.seal(ks, MutableByteSpan(out).subspan(at, n), at >= request_at, switched));
    at += n;
  }
  if (sw != nullptr) *sw = switched;
  return out;
}

TEST(ObfsHeaderXor, SenderWireMatchesTheSpecAtAnyWriteSplit) {
  const auto recs = records();
  const Bytes plain = concat(recs);
  // The switch is requested while the flight record goes by: it lands on the first
  // data record after the request (a 0x16 record never carries it).
  for (std::size_t step : {1U, 3U, 5U, 6U, 1000U, 100000U}) {
    bool switched = false;
    EXPECT_EQ(seal(plain, step, 0, true, &switched), reference_wire(recs, 1, kNonceA)) << step;
    EXPECT_TRUE(switched);
    // Requested later, at the start of record 4: records 0..3 keep the full keystream.
    std::size_t start4 = 0;
    for (std::size_t i = 0; i < 4; ++i) start4 += recs[i].size();
    EXPECT_EQ(seal(plain, step, start4, true, nullptr), reference_wire(recs, 4, kNonceA)) << step;
  }
  // Never requested, or an end without the extension: 0.7.16's bytes (all XORed).
  const Bytes all = reference_wire(recs, recs.size(), kNonceA);
  EXPECT_EQ(seal(plain, 7, plain.size(), true, nullptr), all);
  EXPECT_EQ(seal(plain, 7, 0, false, nullptr), all);
}

TEST(ObfsHeaderXor, ReceiverRestoresTheRecordsAtAnyReadSplit) {
  const auto recs = records();
  const Bytes plain = concat(recs);
  const Bytes wire = reference_wire(recs, 3, kNonceA);
  for (std::size_t step : {1U, 2U, 5U, 7U, 4096U, 100000U}) {
    crypto::ChaCha20Stream ks(wire::derive_obfs_key("k").span(), kNonceA);
    ObfsRecordWalker w(true);
    Bytes got = wire;
    bool switched = false;
    for (std::size_t at = 0; at < got.size(); at += step) {
      const std::size_t n = std::min(step, got.size() - at);
      ASSERT_TRUE(w.open(ks, MutableByteSpan(got).subspan(at, n), true, switched));
    }
    EXPECT_EQ(got, plain) << step;  // 0x18 restored to 0x17
    EXPECT_TRUE(switched);
    EXPECT_EQ(w.mode(), ObfsRecordWalker::Mode::kHeadersOnly);
  }
}

TEST(ObfsHeaderXor, AnEndWithoutTheExtensionLeavesTheSwitchForTheCodecToRefuse) {
  const auto recs = records();
  const Bytes wire = reference_wire(recs, 3, kNonceA);
  for (bool track : {false, true}) {
    crypto::ChaCha20Stream ks(wire::derive_obfs_key("k").span(), kNonceA);
    ObfsRecordWalker w(track);
    Bytes got = wire;
    bool switched = false;
    ASSERT_TRUE(w.open(ks, got, /*accept_switch=*/false, switched));
    EXPECT_FALSE(switched);
    std::size_t at = recs[0].size() + recs[1].size() + recs[2].size();
    EXPECT_EQ(got[at], 0x18);  // not a record type 0.7.16 or our codec accepts
    EXPECT_TRUE(std::equal(recs[0].begin(), recs[0].end(), got.begin()));
  }
}

TEST(ObfsHeaderXor, ABadVersionStopsFollowingAndKeepsTheFullKeystream) {
  // Not TLS records at all (a peer we misjudged): the receiver stops following them, so
  // no switch can be read into them, and every byte keeps the keystream.
  Bytes plain(5000);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::uint8_t>(i * 5 + 1);
  plain[0] = 0x17;
  plain[1] = 0x42;  // not 03
  plain[5] = 0x18;  // would read as a switch if the walker still followed
  Bytes wire = plain;
  crypto::ChaCha20(wire::derive_obfs_key("k").span()).xor_in_place(kNonceA, 0, wire);
  crypto::ChaCha20Stream ks(wire::derive_obfs_key("k").span(), kNonceA);
  ObfsRecordWalker w(true);
  bool switched = false;
  ASSERT_TRUE(w.open(ks, wire, true, switched));
  EXPECT_EQ(wire, plain);
  EXPECT_FALSE(switched);
  EXPECT_EQ(w.mode(), ObfsRecordWalker::Mode::kUntracked);
}

TEST(ObfsHeaderXor, TheServerFollowsTheClientsSwitchOverARealSocket) {
  const auto key = wire::derive_obfs_key("k");
  auto sp = test::socket_stream_pair();
  ObfsXorStream client(std::make_unique<TcpStream>(std::move(sp.a)), key, kNonceA, kNonceB, {},
                       crypto::kChaCha20StreamLimit, true);
  ObfsXorStream server(std::make_unique<TcpStream>(std::move(sp.b)), key, kNonceB, kNonceA, {},
                       crypto::kChaCha20StreamLimit, true);
  auto send = [](ObfsXorStream& s, const std::vector<Bytes>& recs) {
    for (const Bytes& r : recs) {
      Bytes copy = r;
      ASSERT_EQ(write_copy(s, copy, std::chrono::seconds(5)), IoResult::kOk);
    }
  };
  const auto recs = records();
  const Bytes plain = concat(recs);
  // Before the switch: full keystream both ways.
  send(client, {recs[0]});
  EXPECT_EQ(read_exactly(server, recs[0].size()), recs[0]);
  client.begin_header_only();
  std::thread t([&] { send(client, {recs.begin() + 1, recs.end()}); });
  const Bytes rest(plain.begin() + static_cast<std::ptrdiff_t>(recs[0].size()), plain.end());
  EXPECT_EQ(read_exactly(server, rest.size()), rest);
  t.join();
  EXPECT_TRUE(client.sent_switch());
  EXPECT_TRUE(server.saw_switch());
  EXPECT_FALSE(server.sent_switch());  // it follows with its next data record
  std::thread u([&] { send(server, recs); });
  EXPECT_EQ(read_exactly(client, plain.size()), plain);
  u.join();
  EXPECT_TRUE(server.sent_switch());
  EXPECT_TRUE(client.saw_switch());
}

}  // namespace
}  // namespace qeli::transport
