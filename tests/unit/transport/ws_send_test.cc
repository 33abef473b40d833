// The client's send path of TCP obfs behind the WebSocket front, byte for byte against a
// straightforward reference: RFC 6455 frames built by hand (FIN binary, 16-bit or 7-bit
// length, a fresh mask key per frame XORed byte by byte) over obfs bytes computed apart
// (0.7.16: one ChaCha20 pass over the whole stream; between two of ours, the record
// walker on its own keystream). Random chunk sizes (0 to 16384 bytes) in random batches,
// each chunk in a buffer with random bytes around it that must survive, so whatever the
// layers do in place (one pass or two, any word width) puts the same bytes on the wire.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "crypto/chacha20.h"
#include "crypto/chacha20_stream.h"
#include "fakes/capture_stream.h"
#include "transport/obfs_stream.h"
#include "transport/ws_stream.h"
#include "wire/udp_obfs.h"
#include "wire/ws_frame.h"

namespace qeli::transport {
namespace {

constexpr std::uint64_t kRngSeed = 77;
const ObfsNonce kNonce{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2};

// The client's mask keys: the next four bytes of its Rng, in frame order. The test Rng is
// one continuous keystream, so however many keys the stream draws per call (it pools
// them), it must use them in order and skip none.
class ReferenceMasks {
 public:
  std::array<std::uint8_t, 4> next() {
    std::array<std::uint8_t, 4> m{};
    rng_.fill(m);
    return m;
  }

 private:
  crypto::DeterministicRng rng_{kRngSeed};
};

// One client frame of `payload` (≤ 16384 bytes), RFC 6455 §5.2 by hand.
void reference_frame(ByteSpan payload, ReferenceMasks& masks, Bytes& wire) {
  const std::size_t n = payload.size();
  wire.push_back(0x82);
  if (n <= 125) {
    wire.push_back(static_cast<std::uint8_t>(0x80 | n));
  } else {
    wire.push_back(0x80 | 126);
    wire.push_back(static_cast<std::uint8_t>(n >> 8));
    wire.push_back(static_cast<std::uint8_t>(n & 0xFF));
  }
  const auto m = masks.next();
  wire.insert(wire.end(), m.begin(), m.end());
  for (std::size_t i = 0; i < n; ++i) wire.push_back(payload[i] ^ m[i % 4]);
}

// A batch of chunk buffers: each chunk `head` bytes into its own buffer of random bytes.
struct Batch {
  std::vector<Bytes> bufs;
  std::vector<std::size_t> at, len;
  std::vector<MutableByteSpan> chunks() {
    std::vector<MutableByteSpan> c;
    for (std::size_t i = 0; i < bufs.size(); ++i) c.emplace_back(bufs[i].data() + at[i], len[i]);
    return c;
  }
};

// Cuts `data` into batches of 1..max_batch chunks of random sizes (0 allowed, ≤ 16384),
// each with 8 bytes of head room at a random alignment and random bytes around it.
std::vector<Batch> cut(ByteSpan data, std::mt19937_64& gen, std::size_t max_batch) {
  std::vector<Batch> out;
  std::size_t pos = 0;
  while (pos < data.size()) {
    Batch b;
    const std::size_t count = 1 + gen() % max_batch;
    for (std::size_t k = 0; k < count && pos < data.size(); ++k) {
      const std::size_t pick = gen() % 4;
      std::size_t n = pick == 0 ? gen() % 130 : pick == 1 ? 16384 : gen() % 16385;
      n = std::min(n, data.size() - pos);
      const std::size_t at = wire::kWsMaskedDataHeader + gen() % 64;
      Bytes buf(at + n + 64);
      for (auto& x : buf) x = static_cast<std::uint8_t>(gen());
      std::copy_n(data.data() + pos, n, buf.data() + at);
      b.bufs.push_back(std::move(buf));
      b.at.push_back(at);
      b.len.push_back(n);
      pos += n;
    }
    out.push_back(std::move(b));
  }
  return out;
}

Bytes random_bytes(std::size_t n, std::mt19937_64& gen) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(gen());
  return b;
}

// The bytes of every buffer outside its chunk and head room: must be as they were.
Bytes outside(const std::vector<Batch>& batches) {
  Bytes out;
  for (const Batch& b : batches) {
    for (std::size_t i = 0; i < b.bufs.size(); ++i) {
      const auto& buf = b.bufs[i];
      const std::size_t head = b.at[i] - wire::kWsMaskedDataHeader;
      out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(head));
      out.insert(out.end(), buf.begin() + static_cast<std::ptrdiff_t>(b.at[i] + b.len[i]),
                 buf.end());
    }
  }
  return out;
}

// Writes every batch through `s` (the top of a client stack over a CaptureStream) and
// returns the reference wire: each chunk's stretch of `payload` (what the front should
// get for it) framed by hand, in order.
Bytes write_batches(Stream& s, std::vector<Batch>& batches, ByteSpan payload) {
  Bytes expect;
  ReferenceMasks masks;
  std::size_t pos = 0;
  for (Batch& b : batches) {
    for (const std::size_t n : b.len) {
      reference_frame(payload.subspan(pos, n), masks, expect);
      pos += n;
    }
    auto chunks = b.chunks();
    EXPECT_EQ(s.write(chunks), StreamStatus::kOk);
  }
  return expect;
}

TEST(WsSendPath, ClientFramesMatchAReferenceFramer) {
  std::mt19937_64 gen(1);
  for (int round = 0; round < 8; ++round) {
    const Bytes data = random_bytes(300000, gen);
    auto batches = cut(data, gen, 40);
    const Bytes before = outside(batches);
    crypto::DeterministicRng rng(kRngSeed);
    auto capture = std::make_unique<test::CaptureStream>();
    const test::CaptureStream& cap = *capture;
    WebSocketStream ws(std::move(capture), /*client=*/true, rng);
    const Bytes expect = write_batches(ws, batches, data);
    EXPECT_EQ(cap.wire(), expect) << round;
    EXPECT_EQ(outside(batches), before) << round;
  }
}

TEST(WsSendPath, ObfsOverTheFrontMatchesOneKeystreamPassAndAReferenceFramer) {
  // 0.7.16's obfs (every byte keyed): the frames' payloads are the plain stream XORed
  // with one ChaCha20 keystream from block 0, however the writes cut it.
  std::mt19937_64 gen(2);
  const auto key = wire::derive_obfs_key("ws-send");
  for (int round = 0; round < 8; ++round) {
    const Bytes data = random_bytes(250000 + gen() % 1000, gen);
    Bytes keyed = data;
    crypto::ChaCha20(key.span()).xor_in_place(kNonce, 0, keyed);
    auto batches = cut(data, gen, 1 + round * 5);
    const Bytes before = outside(batches);
    crypto::DeterministicRng rng(kRngSeed);
    auto capture = std::make_unique<test::CaptureStream>();
    const test::CaptureStream& cap = *capture;
    ObfsXorStream x(std::make_unique<WebSocketStream>(std::move(capture), true, rng), key, kNonce,
                    ObfsNonce{});
    const Bytes expect = write_batches(x, batches, keyed);
    EXPECT_EQ(cap.wire(), expect) << round;
    EXPECT_EQ(outside(batches), before) << round;
    EXPECT_EQ(x.sent_bytes(), data.size());
  }
}

// TLS-framed records (a flight record, then data records of random sizes up to the
// largest record) as the obfs layer's walker follows them.
Bytes records(std::mt19937_64& gen, std::size_t total) {
  Bytes out;
  std::uint8_t type = 0x16;
  while (out.size() < total) {
    const std::size_t len = gen() % 3 == 0 ? gen() % 64 : gen() % 16677;
    out.insert(out.end(), {type, 0x03, 0x03, static_cast<std::uint8_t>(len >> 8),
                           static_cast<std::uint8_t>(len)});
    for (std::size_t i = 0; i < len; ++i) out.push_back(static_cast<std::uint8_t>(gen()));
    type = 0x17;
  }
  return out;
}

TEST(WsSendPath, HeaderOnlyObfsOverTheFrontMatchesTheWalkerAndAReferenceFramer) {
  // Between two of ours (caps::kObfsHeaderXor): the obfs bytes are what the record walker
  // makes of the stream on a keystream of its own (its own tests hold it to the spec);
  // the front frames and masks them as it always did. Chunks cut records anywhere.
  std::mt19937_64 gen(3);
  const auto key = wire::derive_obfs_key("ws-send");
  for (int round = 0; round < 8; ++round) {
    const Bytes data = records(gen, 200000);
    auto batches = cut(data, gen, 1 + round * 5);
    const Bytes before = outside(batches);
    Bytes keyed = data;
    {
      crypto::ChaCha20Stream ks(key.span(), kNonce);
      ObfsRecordWalker w(true);
      bool switched = false;
      ASSERT_TRUE(w.seal(ks, keyed, true, switched));
      EXPECT_TRUE(switched);
      EXPECT_EQ(w.mode(), ObfsRecordWalker::Mode::kHeadersOnly);
    }
    crypto::DeterministicRng rng(kRngSeed);
    auto capture = std::make_unique<test::CaptureStream>();
    const test::CaptureStream& cap = *capture;
    ObfsXorStream x(std::make_unique<WebSocketStream>(std::move(capture), true, rng), key, kNonce,
                    ObfsNonce{}, {}, crypto::kChaCha20StreamLimit, /*header_xor=*/true);
    x.begin_header_only();
    const Bytes expect = write_batches(x, batches, keyed);
    EXPECT_EQ(cap.wire(), expect) << round;
    EXPECT_EQ(outside(batches), before) << round;
    EXPECT_TRUE(x.sent_switch());
  }
}

}  // namespace
}  // namespace qeli::transport
