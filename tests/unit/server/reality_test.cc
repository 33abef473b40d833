// REALITY on the server: the decision on a ClientHello (every verdict, built with the real
// client handshake), the replay cache and its file across a "restart", and the gate's
// peek-and-decide over real sockets (complete hello, stranger, stall).
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "handshake/client_handshake.h"
#include "server/reality_auth.h"
#include "server/reality_gate.h"
#include "server/reality_replay.h"
#include "server/tcp_carrier.h"

namespace qeli::server {
namespace {

constexpr std::uint64_t kNow = 1'800'000'000;
const config::ShortId kShared{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

struct Fixture {
  crypto::DeterministicRng rng{77};
  crypto::X25519KeyPair identity = crypto::x25519_generate(rng);
  UserDirectory users{UserSnapshot{}};
  RealityReplayCache replay;

  Fixture() {
    UserSnapshot s;
    config::UserConfig bob;
    bob.name = "bob";
    bob.reality_short_ids = {"b0b0000000000001"};
    config::UserConfig eve;
    eve.name = "eve";
    eve.enabled = false;
    eve.reality_short_ids = {"e7e0000000000001"};
    s.users = {bob, eve};
    users.replace(std::move(s));
  }
  RealityPolicy policy() {
    RealityPolicy p;
    p.identity = &identity;
    p.shared_ids = {kShared};
    p.users = &users;
    p.replay = &replay;
    return p;
  }
  // A real client's first record, with a token for `id` at `t` (or none).
  Bytes hello(std::optional<config::ShortId> id, std::uint64_t t,
              std::optional<crypto::X25519Public> key = std::nullopt) {
    handshake::ClientConfig c;
    c.pinned_server_key = key.value_or(identity.public_key);
    c.sni = {wire::Sni::Kind::kHost, "decoy.test"};
    if (id) c.reality = handshake::ClientConfig::RealityToken{*id, t};
    handshake::ClientHandshake hs(c, rng);
    hs.start(Instant{});
    return hs.take_output().front().bytes;
  }
};

TEST(RealityAuth, EveryVerdict) {
  Fixture f;
  const auto p = f.policy();
  const Bytes ok = f.hello(kShared, kNow);
  EXPECT_EQ(authenticate_hello(ok, p, kNow).verdict, RealityVerdict::kAccepted);
  EXPECT_EQ(authenticate_hello(ok, p, kNow).verdict, RealityVerdict::kReplay);
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow - 120), p, kNow).verdict,
            RealityVerdict::kAccepted);
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow + 120), p, kNow).verdict,
            RealityVerdict::kAccepted);
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow - 121), p, kNow).verdict,
            RealityVerdict::kExpired);
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow + 121), p, kNow).verdict,
            RealityVerdict::kExpired);
  EXPECT_EQ(authenticate_hello(f.hello(config::ShortId{9}, kNow), p, kNow).verdict,
            RealityVerdict::kUnknownShortId);
  EXPECT_EQ(authenticate_hello(f.hello(std::nullopt, kNow), p, kNow).verdict,
            RealityVerdict::kBadToken);
  crypto::DeterministicRng other_rng(5);
  const auto other = crypto::x25519_generate(other_rng);
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow, other.public_key), p, kNow).verdict,
            RealityVerdict::kBadToken);
  // A user's own id admits that user (named), a disabled user's id is revoked.
  const auto bob =
      authenticate_hello(f.hello(config::parse_short_id("b0b0000000000001"), kNow), p, kNow);
  EXPECT_EQ(bob.verdict, RealityVerdict::kAccepted);
  EXPECT_EQ(bob.owner, "bob");
  EXPECT_EQ(authenticate_hello(f.hello(config::parse_short_id("e7e0000000000001"), kNow), p, kNow)
                .verdict,
            RealityVerdict::kRevoked);
  f.users.disable("bob");
  EXPECT_EQ(authenticate_hello(f.hello(config::parse_short_id("b0b0000000000001"), kNow), p, kNow)
                .verdict,
            RealityVerdict::kRevoked);
  // The shared id is unaffected by one user's revocation.
  EXPECT_EQ(authenticate_hello(f.hello(kShared, kNow), p, kNow).verdict, RealityVerdict::kAccepted);
}

TEST(RealityAuth, HostileHellosAreStrangers) {
  Fixture f;
  const auto p = f.policy();
  Bytes h = f.hello(kShared, kNow);
  EXPECT_EQ(authenticate_hello(ByteSpan(h).first(h.size() - 1), p, kNow).verdict,
            RealityVerdict::kBadHello);
  EXPECT_EQ(authenticate_hello(Bytes{0x16, 3, 1, 0, 0}, p, kNow).verdict,
            RealityVerdict::kBadHello);
  // The X25519 share replaced by a low-order point (all zero): never accepted.
  const Bytes mine(f.identity.public_key.begin(), f.identity.public_key.end());
  (void)mine;
  handshake::ClientConfig c;
  c.pinned_server_key = f.identity.public_key;
  handshake::ClientHandshake hs(c, f.rng);
  hs.start(Instant{});
  Bytes rec = hs.take_output().front().bytes;
  // Find the 0x001D entry (00 1d 00 20 ‖ key) and zero the key.
  for (std::size_t i = 0; i + 36 <= rec.size(); ++i) {
    if (rec[i] == 0x00 && rec[i + 1] == 0x1d && rec[i + 2] == 0x00 && rec[i + 3] == 0x20) {
      std::fill(rec.begin() + static_cast<std::ptrdiff_t>(i + 4),
                rec.begin() + static_cast<std::ptrdiff_t>(i + 36), 0);
    }
  }
  EXPECT_EQ(authenticate_hello(rec, p, kNow).verdict, RealityVerdict::kBadHello);
}

TEST(RealityReplay, ForgetsAfterTheTtlAndBoundsItsSize) {
  RealityReplayCache c(240, 3);
  wire::RealityToken t{};
  t[0] = 1;
  EXPECT_TRUE(c.observe(t, 1000));
  EXPECT_FALSE(c.observe(t, 1239));
  EXPECT_TRUE(c.observe(t, 1241));  // forgotten after 240 s, remembered again
  for (std::uint8_t i = 2; i < 10; ++i) {
    wire::RealityToken u{};
    u[0] = i;
    EXPECT_TRUE(c.observe(u, 1300));
  }
  EXPECT_LE(c.size(), 3U);
}

TEST(RealityReplay, SurvivesARestartThroughItsFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("qeli-replay-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "e2e.key.reality-replay").string();
  wire::RealityToken a{}, b{};
  a[0] = 0xA;
  b[0] = 0xB;
  {
    RealityReplayCache c;
    ASSERT_TRUE(c.attach(path, 1000).ok());
    EXPECT_TRUE(c.observe(a, 1000));
    EXPECT_TRUE(c.observe(b, 1100));
  }
  {
    RealityReplayCache c;  // the server restarted 100 s later
    ASSERT_TRUE(c.attach(path, 1200).ok());
    EXPECT_EQ(c.size(), 2U);
    EXPECT_FALSE(c.observe(a, 1200));
    EXPECT_FALSE(c.observe(b, 1200));
  }
  {
    RealityReplayCache c;  // much later: a expired (1240), b (1340) too at 1400
    ASSERT_TRUE(c.attach(path, 1300).ok());
    EXPECT_EQ(c.size(), 1U);
    EXPECT_TRUE(c.observe(a, 1300));
  }
  EXPECT_EQ(std::filesystem::file_size(path) % 40, 0U);
  std::filesystem::remove_all(dir);
}

// The gate over socket pairs: one end is the "accepted" connection.
struct GateFixture {
  Fixture f;
  CarrierCounters counters;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<Bytes, std::optional<CarrierCounter>>> results;  // nullopt = client
  transport::SockAddr client_peer;  ///< what on_client was given
  std::uint16_t next_port = 40000;
  RealityGate gate{RealityGate::Options{std::chrono::milliseconds(300), 4}, f.policy(), counters,
                   [this](transport::UniqueFd, const transport::SockAddr& peer, Bytes b,
                          std::optional<std::string>) {
                     std::lock_guard l(mu);
                     client_peer = peer;
                     results.emplace_back(std::move(b), std::nullopt);
                     cv.notify_all();
                   },
                   [this](transport::UniqueFd, Bytes b, CarrierCounter why) {
                     std::lock_guard l(mu);
                     results.emplace_back(std::move(b), why);
                     cv.notify_all();
                   }};
  int connect() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    // The peer as accept() reported it (a socket pair has none: the gate must not ask).
    EXPECT_TRUE(
        gate.add(transport::UniqueFd(sv[0]), transport::SockAddr::ipv4(0xc0000201, next_port++)));
    return sv[1];
  }
  std::pair<Bytes, std::optional<CarrierCounter>> wait_one() {
    std::unique_lock l(mu);
    cv.wait_for(l, std::chrono::seconds(5), [&] { return !results.empty(); });
    if (results.empty()) return {};
    auto r = std::move(results.front());
    results.erase(results.begin());
    return r;
  }
};

TEST(RealityGate, DecidesOnTheWholeHelloSplitAnywhereAndBridgesTheRest) {
  GateFixture g;
  ASSERT_TRUE(g.gate.start().ok());
  // A valid hello in two segments, with a gap under the stall limit.
  const Bytes h = g.f.hello(kShared, unix_now());
  const int c = g.connect();
  ASSERT_EQ(::write(c, h.data(), 100), 100);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(::write(c, h.data() + 100, h.size() - 100), static_cast<ssize_t>(h.size() - 100));
  auto r = g.wait_one();
  EXPECT_FALSE(r.second.has_value()) << "the client was not recognised";
  EXPECT_EQ(r.first, h) << "the handshake gets exactly the bytes read";
  EXPECT_EQ(g.client_peer, transport::SockAddr::ipv4(0xc0000201, 40000)) << "its own peer";
  // A stranger's HTTP request: bridged at once with what it sent.
  const int s = g.connect();
  ASSERT_EQ(::write(s, "GET / HTTP/1.1\r\n", 16), 16);
  r = g.wait_one();
  EXPECT_EQ(r.second, CarrierCounter::kRealityNotTls);
  EXPECT_EQ(std::string(r.first.begin(), r.first.end()), "GET / HTTP/1.1\r\n");
  // A hello that stalls: bridged after the budget, with the prefix it sent.
  const int d = g.connect();
  ASSERT_EQ(::write(d, h.data(), 10), 10);
  const auto t0 = std::chrono::steady_clock::now();
  r = g.wait_one();
  EXPECT_EQ(r.second, CarrierCounter::kRealityPeekTimeout);
  EXPECT_EQ(r.first, Bytes(h.begin(), h.begin() + 10));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  // The same valid hello again: a replay, bridged.
  const int e = g.connect();
  ASSERT_EQ(::write(e, h.data(), h.size()), static_cast<ssize_t>(h.size()));
  r = g.wait_one();
  EXPECT_EQ(r.second, CarrierCounter::kRealityReplay);
  EXPECT_EQ(g.counters.get(CarrierCounter::kRealityAccepted), 1U);
  EXPECT_EQ(g.counters.get(CarrierCounter::kRealityReplay), 1U);
  g.gate.stop();
  for (int fd : {c, s, d, e}) ::close(fd);
}

TEST(RealityGate, BoundsTheConnectionsItWatches) {
  GateFixture g;  // max_pending 4, not started: nothing leaves the queue
  std::vector<int> ends;
  for (int i = 0; i < 4; ++i) ends.push_back(g.connect());
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  EXPECT_FALSE(g.gate.add(transport::UniqueFd(sv[0]), transport::SockAddr::ipv4(0x7f000001, 1)));
  EXPECT_EQ(g.counters.get(CarrierCounter::kRealityGateFull), 1U);
  ::close(sv[1]);
  for (int fd : ends) ::close(fd);
}

}  // namespace
}  // namespace qeli::server
