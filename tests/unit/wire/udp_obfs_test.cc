#include "wire/udp_obfs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "crypto/random.h"

namespace qeli::wire {
namespace {

// (Sized up front: GCC 12 -O2 warns falsely on inserting into a 13-byte vector.)
Bytes with_headroom(std::string_view payload) {
  Bytes d(kObfsSealSize + payload.size());
  std::copy(payload.begin(), payload.end(), d.begin() + kObfsSealSize);
  return d;
}

// Known answer computed with an independent ChaCha20 (Python `cryptography`) from the
// documented construction: key = SHA-256("qeli-obfs-key-v1" ‖ "correct horse"), nonce
// 00112233445566778899aabb, block counter 0, flag bits 5.
TEST(UdpObfs, KnownAnswer) {
  const crypto::Key32 key = derive_obfs_key("correct horse");
  EXPECT_EQ(to_hex(key.span()), "51d13858bd85b8b5cbc2381d12a962736e838ec7756e2f118db612db87723397");
  UdpObfs obfs("correct horse");
  const std::array<std::uint8_t, 12> nonce{0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
                                           0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  Bytes d = with_headroom("qeli obfs seal");
  obfs.seal(nonce, 0x05, d);
  EXPECT_EQ(to_hex(d), "4500112233445566778899aabbe2925ba90abf349c2d8b478b0d64");
  auto p = obfs.open(d);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(std::string(p->begin(), p->end()), "qeli obfs seal");
  EXPECT_EQ(p->data(), d.data() + kObfsSealSize);  // in place
}

TEST(UdpObfs, FlagAlwaysLooksLikeShortHeader) {
  UdpObfs obfs("k");
  crypto::DeterministicRng rng(7);
  bool saw_low = false, saw_high = false;
  for (int i = 0; i < 200; ++i) {
    Bytes d = with_headroom("x");
    obfs.seal(d, rng);
    EXPECT_EQ(d[0] & 0xC0, 0x40);
    saw_low |= (d[0] & 0x3F) < 8;
    saw_high |= (d[0] & 0x3F) > 55;
  }
  EXPECT_TRUE(saw_low && saw_high);  // the 6 bits really are random
}

TEST(UdpObfs, EmptyPayloadAndBadInput) {
  UdpObfs obfs("k");
  crypto::DeterministicRng rng(1);
  Bytes d(kObfsSealSize);
  obfs.seal(d, rng);
  auto p = obfs.open(d);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->empty());

  Bytes short_d(kObfsSealSize - 1, 0x40);
  EXPECT_EQ(obfs.open(short_d).error(), ObfsError::kTooShort);
  Bytes quic_like = with_headroom("payload");
  quic_like[0] = 0xC3;  // an unsealed long header is not an obfs datagram
  EXPECT_EQ(obfs.open(quic_like).error(), ObfsError::kBadFlag);
}

TEST(UdpObfs, WrongKeyGivesOtherBytes) {
  crypto::DeterministicRng rng(3);
  Bytes d = with_headroom("secret payload");
  UdpObfs a("a"), b("b");
  a.seal(d, rng);
  auto p = b.open(d);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(std::string(p->begin(), p->end()), "secret payload");
}

}  // namespace
}  // namespace qeli::wire
