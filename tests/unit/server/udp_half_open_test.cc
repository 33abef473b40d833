// UdpHalfOpenTable: eviction prefers the oldest handshake that never got to a key
// agreement, serials tell a reused address from the handshake a verdict was for, and the
// sweep drops what expired or failed.
#include "server/udp_half_open.h"

#include <gtest/gtest.h>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/udp_client_handshake.h"

namespace qeli::server {
namespace {

using std::chrono::seconds;

struct Fixture {
  crypto::DeterministicRng rng{7};
  crypto::X25519KeyPair identity = crypto::x25519_generate(rng);
  handshake::UdpServerConfig config() const {
    handshake::UdpServerConfig c;
    c.inner.mode = handshake::Mode::kFakeTls;
    c.inner.identity = &identity;
    c.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
    c.inner.timeout = seconds(15);
    return c;
  }
  std::unique_ptr<handshake::UdpServerHandshake> fresh() {
    return std::make_unique<handshake::UdpServerHandshake>(config(), rng);
  }
  /// A server handshake that received a whole ClientHello (its key agreement ran).
  std::unique_ptr<handshake::UdpServerHandshake> with_hello(Instant now) {
    auto s = fresh();
    handshake::UdpClientConfig cc;
    cc.inner.mode = handshake::Mode::kFakeTls;
    cc.inner.pinned_server_key = identity.public_key;
    cc.inner.user = "alice";
    cc.inner.password = "pw";
    cc.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
    handshake::UdpClientHandshake c(cc, rng);
    c.start(now);
    for (Bytes& d : c.take_datagrams()) s->on_datagram(d, now);
    EXPECT_TRUE(s->has_hello());
    return s;
  }
};

transport::SockAddr addr(std::uint16_t port) { return transport::SockAddr::ipv4(0x7f000001, port); }

TEST(UdpHalfOpenTable, FullTableEvictsTheOldestWithoutAHelloFirst) {
  Fixture f;
  UdpHalfOpenTable t(3);
  const Instant t0{};
  bool evicted = false;
  t.insert(addr(1), f.with_hello(t0), t0, evicted);  // oldest, but a real client
  t.insert(addr(2), f.fresh(), t0 + seconds(1), evicted);
  t.insert(addr(3), f.fresh(), t0 + seconds(2), evicted);
  EXPECT_FALSE(evicted);
  t.insert(addr(4), f.fresh(), t0 + seconds(3), evicted);
  EXPECT_TRUE(evicted);
  EXPECT_EQ(t.size(), 3U);
  EXPECT_TRUE(t.contains(addr(1)));   // kept: it has its key agreement
  EXPECT_FALSE(t.contains(addr(2)));  // the oldest without a hello went
  EXPECT_TRUE(t.contains(addr(3)));
  EXPECT_TRUE(t.contains(addr(4)));
}

TEST(UdpHalfOpenTable, WhenEveryEntryHasAHelloTheOldestGoes) {
  Fixture f;
  UdpHalfOpenTable t(2);
  const Instant t0{};
  bool evicted = false;
  t.insert(addr(1), f.with_hello(t0), t0 + seconds(5), evicted);
  t.insert(addr(2), f.with_hello(t0), t0 + seconds(1), evicted);
  t.insert(addr(3), f.with_hello(t0), t0 + seconds(9), evicted);
  EXPECT_TRUE(evicted);
  EXPECT_TRUE(t.contains(addr(1)));
  EXPECT_FALSE(t.contains(addr(2)));
  EXPECT_TRUE(t.contains(addr(3)));
}

TEST(UdpHalfOpenTable, AReusedAddressGetsANewSerial) {
  Fixture f;
  UdpHalfOpenTable t(8);
  bool evicted = false;
  const std::uint64_t first = t.insert(addr(1), f.fresh(), Instant{}, evicted).serial;
  EXPECT_NE(first, 0U);
  t.erase(addr(1));
  const std::uint64_t second = t.insert(addr(1), f.fresh(), Instant{}, evicted).serial;
  EXPECT_NE(second, first);  // a verdict for the first handshake is recognised as stale
  ASSERT_NE(t.find(addr(1)), nullptr);
  EXPECT_EQ(t.find(addr(1))->serial, second);
  EXPECT_EQ(t.find(addr(2)), nullptr);
}

TEST(UdpHalfOpenTable, SweepFiresTimeoutsAndDropsWhatOutlivedTheTtl) {
  Fixture f;
  UdpHalfOpenTable t(8);
  const Instant t0{};
  bool evicted = false;
  // Each armed with the handshake's timeout (15 s) from its hello.
  t.insert(addr(1), f.with_hello(t0), t0, evicted);
  t.insert(addr(2), f.with_hello(t0 + seconds(10)), t0 + seconds(10), evicted);
  auto send = [](const transport::SockAddr&, const std::vector<Bytes>&) {};
  t.sweep(t0 + seconds(14), seconds(60), send);
  EXPECT_EQ(t.size(), 2U);
  t.sweep(t0 + seconds(15), seconds(60), send);  // the first timed out → failed → dropped
  EXPECT_FALSE(t.contains(addr(1)));
  EXPECT_TRUE(t.contains(addr(2)));
  t.sweep(t0 + seconds(15), seconds(5), send);  // exactly the TTL old: still there
  EXPECT_TRUE(t.contains(addr(2)));
  t.sweep(t0 + seconds(16), seconds(5), send);  // older than the TTL, before its timeout
  EXPECT_TRUE(t.empty());
}

}  // namespace
}  // namespace qeli::server
