// The return-routability messages (wire/udp_cookie.h): exact sizes, the one validation
// gate (kind, single fragment, exact length), the marker's tag, and known bytes.
#include "wire/udp_cookie.h"

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/random.h"

namespace qeli::wire {
namespace {

CookieNonce nonce_of(std::uint8_t seed) {
  CookieNonce n{};
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::uint8_t>(seed + i);
  return n;
}
Cookie cookie_of(std::uint8_t seed) {
  Cookie c{};
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<std::uint8_t>(seed * 3 + i);
  return c;
}

TEST(UdpCookie, SizesAndKinds) {
  const Bytes marker = build_cookie_marker(nonce_of(1));
  const Bytes challenge = build_cookie_challenge({nonce_of(1), cookie_of(2)});
  const Bytes echo = build_cookie_echo(cookie_of(2));
  EXPECT_EQ(marker.size(), 6U + 16U);
  EXPECT_EQ(challenge.size(), 6U + 24U);
  EXPECT_EQ(echo.size(), 6U + 16U);
  EXPECT_EQ(classify_datagram(marker), DatagramKind::kJunk);  // a 0.7.16 peer drops it
  EXPECT_EQ(classify_datagram(challenge), DatagramKind::kCookieChallenge);
  EXPECT_EQ(classify_datagram(echo), DatagramKind::kCookieEcho);
  EXPECT_TRUE(is_fragment(DatagramKind::kCookieChallenge));
  EXPECT_TRUE(is_fragment(DatagramKind::kCookieEcho));
  // Single fragments: idx 0, count 1, which any 0.7.16 fragment parser accepts.
  for (const Bytes* d : {&marker, &challenge, &echo}) {
    auto f = parse_fragment(*d);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->index, 0);
    EXPECT_EQ(f->count, 1);
  }
}

TEST(UdpCookie, KnownBytes) {
  EXPECT_EQ(to_hex(build_cookie_challenge({nonce_of(1), cookie_of(2)})),
            "f09b71070001"
            "0102030405060708"
            "060708090a0b0c0d0e0f101112131415");
  EXPECT_EQ(to_hex(build_cookie_echo(cookie_of(2))),
            "f09b71080001"
            "060708090a0b0c0d0e0f101112131415");
  // Marker: nonce ‖ SHA-256("qeli udp cookie marker v1" ‖ nonce)[0..8] (Python hashlib).
  EXPECT_EQ(to_hex(build_cookie_marker(nonce_of(1))),
            "f09b71030001"
            "0102030405060708"
            "c442acc2957d3b74");
}

TEST(UdpCookie, RoundTrips) {
  const CookieChallenge c{nonce_of(9), cookie_of(4)};
  auto pc = parse_cookie_challenge(build_cookie_challenge(c));
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc->nonce, c.nonce);
  EXPECT_EQ(pc->cookie, c.cookie);
  auto pe = parse_cookie_echo(build_cookie_echo(c.cookie));
  ASSERT_TRUE(pe.ok());
  EXPECT_EQ(*pe, c.cookie);
  auto pm = parse_cookie_marker(build_cookie_marker(c.nonce));
  ASSERT_TRUE(pm.ok());
  EXPECT_EQ(*pm, c.nonce);
}

TEST(UdpCookie, BadLengthsAndHeadersAreRefused) {
  const Bytes challenge = build_cookie_challenge({nonce_of(1), cookie_of(2)});
  const Bytes echo = build_cookie_echo(cookie_of(2));
  const Bytes marker = build_cookie_marker(nonce_of(1));
  // Every length but the exact one: shorter (down to nothing) and longer.
  for (std::size_t n = 0; n < challenge.size(); ++n) {
    EXPECT_EQ(parse_cookie_challenge(ByteSpan(challenge).first(n)).error(), FragError::kBadCookie);
  }
  for (std::size_t n = 0; n < echo.size(); ++n) {
    EXPECT_EQ(parse_cookie_echo(ByteSpan(echo).first(n)).error(), FragError::kBadCookie);
    EXPECT_FALSE(parse_cookie_marker(ByteSpan(marker).first(n)).ok());
  }
  Bytes longer = challenge;
  longer.push_back(0);
  EXPECT_FALSE(parse_cookie_challenge(longer).ok());
  longer = echo;
  longer.push_back(0);
  EXPECT_FALSE(parse_cookie_echo(longer).ok());
  longer = marker;
  longer.push_back(0);
  EXPECT_FALSE(parse_cookie_marker(longer).ok());
  // Right length, wrong header: another kind, idx, count, magic.
  for (std::size_t at : {0UL, 3UL, 4UL, 5UL}) {
    Bytes c = challenge, e = echo;
    c[at] ^= 0x01;
    e[at] ^= 0x01;
    EXPECT_FALSE(parse_cookie_challenge(c).ok()) << at;
    EXPECT_FALSE(parse_cookie_echo(e).ok()) << at;
  }
  // An echo is not a challenge and the other way round, nor is either a marker.
  EXPECT_FALSE(parse_cookie_challenge(echo).ok());
  EXPECT_FALSE(parse_cookie_echo(challenge).ok());
  EXPECT_FALSE(parse_cookie_marker(echo).ok());
}

TEST(UdpCookie, OrdinaryJunkIsNoMarker) {
  // Junk of the marker's very length with a wrong tag, and random junk of every length.
  Bytes forged = build_cookie_marker(nonce_of(1));
  forged.back() ^= 0x80;
  EXPECT_EQ(parse_cookie_marker(forged).error(), FragError::kBadCookie);
  crypto::DeterministicRng rng(5);
  for (std::size_t len = 1; len <= 64; ++len) {
    EXPECT_FALSE(parse_cookie_marker(build_junk(len, rng)).ok()) << len;
  }
}

}  // namespace
}  // namespace qeli::wire
