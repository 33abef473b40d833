// CookieJar (return-routability cookies): a cookie is good for its source address and
// port only, under the current and the previous epoch's secret, and no longer; the MAC
// matches an independent computation of the documented layout.
#include "server/cookie_jar.h"

#include <gtest/gtest.h>

#include "crypto/sha256.h"

namespace qeli::server {
namespace {

using namespace std::chrono_literals;
using transport::SockAddr;

const SockAddr kA = SockAddr::ipv4(0xC0000207, 40000);  // 192.0.2.7:40000

TEST(CookieJar, AcceptsItsOwnCookieOnlyForTheSameAddressAndPort) {
  crypto::DeterministicRng rng(1);
  const Instant t0{};
  CookieJar jar(rng, t0);
  const wire::Cookie c = jar.make(kA, t0 + 1s);
  EXPECT_TRUE(jar.check(kA, c, t0 + 2s));
  EXPECT_FALSE(jar.check(kA.with_port(40001), c, t0 + 2s));                // other port
  EXPECT_FALSE(jar.check(SockAddr::ipv4(0xC0000208, 40000), c, t0 + 2s));  // other IP
  const std::uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  EXPECT_FALSE(jar.check(SockAddr::ipv6(v6, 40000), c, t0 + 2s));
  wire::Cookie flipped = c;
  flipped[15] ^= 1;
  EXPECT_FALSE(jar.check(kA, flipped, t0 + 2s));
  EXPECT_FALSE(jar.check(kA, wire::Cookie{}, t0 + 2s));
  // IPv6 sources have cookies of their own.
  const wire::Cookie c6 = jar.make(SockAddr::ipv6(v6, 40000), t0 + 3s);
  EXPECT_TRUE(jar.check(SockAddr::ipv6(v6, 40000), c6, t0 + 3s));
  EXPECT_NE(c6, c);
}

TEST(CookieJar, CurrentAndPreviousEpochsAreAcceptedOlderOnesNot) {
  crypto::DeterministicRng rng(2);
  const Instant t0{};
  CookieJar jar(rng, t0);
  const wire::Cookie e0 = jar.make(kA, t0 + 119s);  // epoch 0, just before a rotation
  EXPECT_TRUE(jar.check(kA, e0, t0 + 121s));        // epoch 1: previous, accepted
  const wire::Cookie e1 = jar.make(kA, t0 + 121s);
  EXPECT_NE(e1, e0);  // a new secret each epoch
  EXPECT_TRUE(jar.check(kA, e1, t0 + 239s));
  EXPECT_FALSE(jar.check(kA, e0, t0 + 241s));  // epoch 2: e0's secret is gone
  EXPECT_TRUE(jar.check(kA, e1, t0 + 241s));   // e1 is the previous now
  EXPECT_FALSE(jar.check(kA, e1, t0 + 361s));  // epoch 3: refused
  EXPECT_EQ(jar.epoch(), 3U);
}

TEST(CookieJar, AGapOfEpochsForgetsEverySecret) {
  crypto::DeterministicRng rng(3);
  const Instant t0{};
  CookieJar jar(rng, t0);
  const wire::Cookie e0 = jar.make(kA, t0);
  // Nothing happened for five epochs: the last secret made cookies 5 epochs ago.
  EXPECT_FALSE(jar.check(kA, e0, t0 + 600s));
  EXPECT_TRUE(jar.check(kA, jar.make(kA, t0 + 601s), t0 + 601s));
}

TEST(CookieJar, TheMacIsTheDocumentedLayout) {
  // Two jars from the same seed make the same secrets; the cookie is HMAC-SHA256 over
  // ::ffff:ip ‖ port BE ‖ epoch BE, truncated to 16 bytes.
  crypto::DeterministicRng r1(4), r2(4);
  const Instant t0{};
  CookieJar jar(r1, t0);
  std::array<std::uint8_t, 32> secret{};
  r2.fill(secret);
  const std::uint8_t in[26] = {0, 0, 0, 0,    0,    0, 0, 0, 0, 0, 0xff, 0xff, 192,
                               0, 2, 7, 0x9c, 0x40, 0, 0, 0, 0, 0, 0,    0,    0};
  const crypto::Digest32 want = crypto::hmac_sha256(secret, in);
  const wire::Cookie got = jar.make(kA, t0);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
}

}  // namespace
}  // namespace qeli::server
