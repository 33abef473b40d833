#include "wire/packet_codec.h"

#include <gtest/gtest.h>

#include "fakes/test_keys.h"

#include <algorithm>
#include <vector>

#include "base/endian.h"
#include "crypto/random.h"

namespace qeli::wire {
namespace {

crypto::Key32 test_key(std::uint8_t base) { return test::key_of(base); }

struct Pair {
  explicit Pair(Framing f, std::uint64_t seed = 1) : rng(seed), tx(f, key, rng), rx(f, key, rng) {}
  crypto::Key32 key = test_key(7);
  crypto::DeterministicRng rng;
  PacketCodec tx;
  PacketCodec rx;
};

Bytes pattern(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 31 + 5);
  return b;
}

class CodecFraming : public ::testing::TestWithParam<Framing> {};
INSTANTIATE_TEST_SUITE_P(packet_codec, CodecFraming,
                         ::testing::Values(Framing::kTls, Framing::kRaw), [](const auto& p) {
                           return std::string(p.param == Framing::kTls ? "tls" : "raw");
                         });

TEST_P(CodecFraming, every_data_length_zero_to_max_round_trips) {
  Pair p(GetParam());
  Bytes buf(max_record_size(GetParam()));
  for (std::size_t len = 0; len <= kMaxTunnelMtu; ++len) {  // every length
    const Bytes data = pattern(len);
    auto n = p.tx.seal(data, 0, buf);
    ASSERT_TRUE(n.ok()) << len;
    ASSERT_EQ(*n, record_size(GetParam(), len, 0));
    auto r = p.rx.open_in_place(MutableByteSpan(buf.data(), *n));
    ASSERT_TRUE(r.ok()) << len << " " << to_string(r.error());
    ASSERT_EQ(Bytes(r->data.begin(), r->data.end()), data) << len;
  }
  // The exact maximum, then one over.
  const Bytes max = pattern(kMaxTunnelMtu);
  auto n = p.tx.seal(max, 0, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, max_record_size(GetParam()));
  EXPECT_TRUE(p.rx.open_in_place(MutableByteSpan(buf.data(), *n)).ok());
  EXPECT_EQ(p.tx.seal(max, 1, buf).error(), SealError::kTooLarge);
  EXPECT_EQ(p.tx.seal(pattern(kMaxTunnelMtu + 1), 0, buf).error(), SealError::kTooLarge);
}

TEST_P(CodecFraming, padding_is_hidden_and_stripped) {
  Pair p(GetParam());
  for (std::size_t pad : {0U, 1U, 32U, 511U, 4000U}) {
    const Bytes data = pattern(100);
    Bytes buf(record_size(GetParam(), 100, pad));
    auto n = p.tx.seal(data, pad, buf);
    ASSERT_TRUE(n.ok());
    auto r = p.rx.open_in_place(buf);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(Bytes(r->data.begin(), r->data.end()), data);
  }
}

TEST_P(CodecFraming, empty_plaintext_is_a_heartbeat_record) {
  Pair p(GetParam());
  Bytes buf(record_size(GetParam(), 0, 16));
  ASSERT_TRUE(p.tx.seal({}, 16, buf).ok());
  auto r = p.rx.open_in_place(buf);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->data.empty());
}

TEST_P(CodecFraming, seal_in_place_uses_headroom_without_moving_data) {
  Pair p(GetParam());
  const Bytes data = pattern(1400);
  Bytes buf(record_size(GetParam(), data.size(), 8));
  std::copy(data.begin(), data.end(), buf.begin() + static_cast<long>(seal_headroom(GetParam())));
  auto n = p.tx.seal_in_place(buf, data.size(), 8);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, buf.size());
  auto r = p.rx.open_in_place(buf);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data.data(), buf.data() + seal_headroom(GetParam()));  // opened in place too
  EXPECT_EQ(Bytes(r->data.begin(), r->data.end()), data);
}

TEST_P(CodecFraming, batched_records_back_to_back_in_one_buffer) {
  Pair p(GetParam());
  Bytes batch(64 * 1024);
  std::vector<std::size_t> sizes;
  std::size_t off = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    auto n = p.tx.seal(pattern(i * 37), i % 5, MutableByteSpan(batch).subspan(off));
    ASSERT_TRUE(n.ok());
    sizes.push_back(*n);
    off += *n;
  }
  off = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    auto r = p.rx.open_in_place(MutableByteSpan(batch).subspan(off, sizes[i]));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->counter, i);
    EXPECT_EQ(Bytes(r->data.begin(), r->data.end()), pattern(i * 37));
    off += sizes[i];
  }
}

TEST_P(CodecFraming, too_small_buffer_is_refused_and_counter_kept) {
  Pair p(GetParam());
  Bytes buf(record_size(GetParam(), 10, 0) - 1);
  EXPECT_EQ(p.tx.seal(pattern(10), 0, buf).error(), SealError::kBufferTooSmall);
  EXPECT_EQ(p.tx.send_counter(), 0U);
}

TEST_P(CodecFraming, every_flipped_bit_is_rejected) {
  Pair p(GetParam());
  Bytes rec(record_size(GetParam(), 20, 3));
  ASSERT_TRUE(p.tx.seal(pattern(20), 3, rec).ok());
  for (std::size_t bit = 0; bit < rec.size() * 8; ++bit) {
    Bytes copy = rec;
    copy[bit / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    crypto::DeterministicRng rng(2);
    PacketCodec fresh(GetParam(), p.key, rng);
    EXPECT_FALSE(fresh.open_in_place(copy).ok()) << bit;
  }
  EXPECT_TRUE(p.rx.open_in_place(rec).ok());
}

TEST_P(CodecFraming, replay_is_rejected_after_authentication) {
  Pair p(GetParam());
  Bytes rec(record_size(GetParam(), 5, 0));
  ASSERT_TRUE(p.tx.seal(pattern(5), 0, rec).ok());
  Bytes copy = rec;
  ASSERT_TRUE(p.rx.open_in_place(rec).ok());
  EXPECT_EQ(p.rx.open_in_place(copy).error(), OpenError::kReplay);
}

TEST_P(CodecFraming, wrong_key_fails_authentication) {
  Pair p(GetParam());
  Bytes rec(record_size(GetParam(), 5, 0));
  ASSERT_TRUE(p.tx.seal(pattern(5), 0, rec).ok());
  crypto::DeterministicRng rng(3);
  PacketCodec other(GetParam(), test_key(8), rng);
  EXPECT_EQ(other.open_in_place(rec).error(), OpenError::kAuthFailed);
}

TEST_P(CodecFraming, counter_exhaustion_refuses_to_seal) {
  Pair p(GetParam());
  Bytes buf(record_size(GetParam(), 1, 0));
  p.tx.set_send_counter_for_test(kSealCounterLimit - 1);
  EXPECT_TRUE(p.tx.seal(pattern(1), 0, buf).ok());
  EXPECT_EQ(p.tx.seal(pattern(1), 0, buf).error(), SealError::kCounterExhausted);
  EXPECT_EQ(p.tx.send_counter(), kSealCounterLimit);
}

TEST_P(CodecFraming, length_errors_are_distinguished) {
  Pair p(GetParam());
  Bytes rec(record_size(GetParam(), 5, 0));
  ASSERT_TRUE(p.tx.seal(pattern(5), 0, rec).ok());
  Bytes longer = rec;
  longer.push_back(0);
  EXPECT_EQ(p.rx.open_in_place(longer).error(), OpenError::kLengthMismatch);
  Bytes shorter(rec.begin(), rec.end() - 1);
  EXPECT_EQ(p.rx.open_in_place(shorter).error(), OpenError::kLengthMismatch);
  Bytes tiny(1);
  EXPECT_EQ(p.rx.open_in_place(tiny).error(), OpenError::kTruncated);
  // A header announcing 37 bytes (one less than the minimum).
  const std::size_t hdr = header_size(GetParam());
  Bytes small(hdr + 37);
  if (GetParam() == Framing::kTls) {
    small[0] = 0x17, small[1] = 3, small[2] = 3;
  }
  store_be16(small.data() + hdr - 2, 37);
  EXPECT_EQ(p.rx.open_in_place(small).error(), OpenError::kTooSmall);
  Bytes big(hdr + kMaxRecordPayload + 1);
  if (GetParam() == Framing::kTls) {
    big[0] = 0x17, big[1] = 3, big[2] = 3;
  }
  store_be16(big.data() + hdr - 2, static_cast<std::uint16_t>(kMaxRecordPayload + 1));
  EXPECT_EQ(p.rx.open_in_place(big).error(), OpenError::kTooLarge);
}

TEST(packet_codec, tls_header_must_be_17_03_03) {
  Pair p(Framing::kTls);
  Bytes rec(record_size(Framing::kTls, 5, 0));
  ASSERT_TRUE(p.tx.seal(pattern(5), 0, rec).ok());
  EXPECT_EQ(rec[0], 0x17);
  EXPECT_EQ(load_be16(rec.data() + 1), 0x0303);
  EXPECT_EQ(load_be16(rec.data() + 3), rec.size() - 5);
  Bytes bad = rec;
  bad[0] = 0x16;
  EXPECT_EQ(p.rx.open_in_place(bad).error(), OpenError::kBadHeader);
  bad = rec;
  bad[2] = 0x01;
  EXPECT_EQ(p.rx.open_in_place(bad).error(), OpenError::kBadHeader);
}

TEST(packet_codec, nonces_do_not_expose_the_counter) {
  Pair p(Framing::kRaw);
  Bytes a(record_size(Framing::kRaw, 0, 0)), b(a.size());
  ASSERT_TRUE(p.tx.seal({}, 0, a).ok());
  ASSERT_TRUE(p.tx.seal({}, 0, b).ok());
  // Consecutive counters: the nonces differ in many bytes, not just the last one.
  int differing = 0;
  for (std::size_t i = 2; i < 14; ++i) differing += a[i] != b[i];
  EXPECT_GE(differing, 6);
}

// TLS-bound records (docs/PROTOCOL.md §16): same layout, nonce and tag zero, plaintext in
// clear; taken only by a receiver told so, and still through the replay window.
TEST(PacketCodecTlsBound, RoundTripsOnlyWhereAcceptedAndKeepsTheReplayWindow) {
  Pair p(Framing::kTls);
  const Bytes data = pattern(1000);
  Bytes rec(record_size(Framing::kTls, data.size(), 8));
  p.tx.set_send_tls_bound(true);
  ASSERT_EQ(p.tx.seal(data, 8, rec).value(), rec.size());
  // Nonce and tag are zero and the data travels in clear (the TLS record protects it).
  EXPECT_EQ(to_hex(ByteSpan(rec).subspan(5, 12)), std::string(24, '0'));
  EXPECT_EQ(to_hex(ByteSpan(rec).last(16)), std::string(32, '0'));
  EXPECT_TRUE(std::equal(data.begin(), data.end(), rec.begin() + seal_headroom(Framing::kTls)));

  Bytes copy = rec;
  EXPECT_EQ(p.rx.open_in_place(copy).error(), OpenError::kAuthFailed);  // not accepted yet
  p.rx.set_accept_tls_bound(true);
  copy = rec;
  auto opened = p.rx.open_in_place(copy);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(Bytes(opened->data.begin(), opened->data.end()), data);
  EXPECT_EQ(opened->counter, 0U);
  copy = rec;
  EXPECT_EQ(p.rx.open_in_place(copy).error(), OpenError::kReplay);

  // Sealed records still open next to bound ones, and a bound receiver still checks them.
  p.tx.set_send_tls_bound(false);
  Bytes sealed(record_size(Framing::kTls, data.size(), 0));
  ASSERT_TRUE(p.tx.seal(data, 0, sealed).ok());
  Bytes bad = sealed;
  bad[30] ^= 1;
  EXPECT_EQ(p.rx.open_in_place(bad).error(), OpenError::kAuthFailed);
  ASSERT_TRUE(p.rx.open_in_place(sealed).ok());
}

}  // namespace
}  // namespace qeli::wire
