// UdpWorker with a fake profile (UdpWorkerHost), a real loopback UDP socket and a TUN in
// memory: a real client handshake over the socket, its AUTH verdict from the host's
// "verification thread", data both ways, a rejected password, kicks and stop. No root.
#include "server/udp_worker.h"

#include <gtest/gtest.h>

#include <poll.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "../../fakes/channel_tun.h"
#include "../../fakes/datagram_ends.h"
#include "../../fakes/packet_builder.h"
#include "../../fakes/udp_loopback.h"
#include "crypto/random.h"
#include "crypto/x25519.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/client_roam.h"
#include "handshake/udp_client_handshake.h"
#include "server/auth_ok_builder.h"
#include "server/session_policy.h"
#include "server/session_table.h"
#include "transport/endpoint.h"
#include "wire/gso_chunk.h"
#include "wire/roam_nonce.h"
#include "wire/udp_cookie.h"

namespace qeli::server {
namespace {

using namespace std::chrono_literals;

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0/24, server 10.77.0.1

config::ProfileConfig udp_profile() {
  config::ProfileConfig p;
  p.name = "test";
  p.transport = config::Transport::kUdp;
  p.pool.cidr = config::Ipv4Cidr::parse("10.77.0.0/24").value();
  p.tun.address = config::Ipv4Addr::parse("10.77.0.1").value();
  p.tun.mtu = 1400;
  return p;
}

engine::SessionInbox::Geometry inbox_geometry(const config::ProfileConfig& p) {
  const tunnel::CarrierRoom room = carrier_room(p);
  tunnel::SessionParams params;
  params.apply(pushed_params(p.obf));
  return {64, wire::kMaxSuperPacket, room.headroom(), room.tailroom(params.send.padding)};
}

/// The profile a worker asks: admits every hello, verifies "pw" on a thread of its own,
/// admits into a real SessionTable, and records what the worker tells it.
class FakeProfile final : public UdpWorkerHost {
 public:
  explicit FakeProfile(const config::ProfileConfig& p)
      : p_(p), table_(IpPool(kNet, 24, kNet + 1), 0, inbox_geometry(p)) {}
  ~FakeProfile() override { join(); }
  /// Waits for the verifications in flight (their verdicts go to the worker: before it
  /// is destroyed).
  void join() {
    std::vector<std::thread> ts;
    {
      std::lock_guard lock(mu_);
      ts.swap(threads_);
    }
    for (auto& t : ts) t.join();
  }

  bool admit_new_session(SourceKey, Instant) override { return admit_hellos; }
  bool verify_auth(AuthContext ctx, AuthDone done) override {
    if (!verify) return false;
    verifications++;
    std::lock_guard lock(mu_);
    threads_.emplace_back([this, ctx = std::move(ctx), done = std::move(done)]() mutable {
      {
        std::unique_lock hold_lock(mu_);
        cv_.wait(hold_lock, [&] { return !hold; });
      }
      std::optional<handshake::AuthOk> ok;
      if (ctx.req.password == "pw") {
        AdmissionRequest ar;
        ar.user = ctx.req.user;
        ar.device_key = ctx.req.user;
        ar.peer = ctx.peer;
        auto s = table_.admit(ar);
        EXPECT_TRUE(s.ok());
        ctx.session = *s;
        ok = build_auth_ok(p_, nullptr, ctx.session->tunnel_ip, handshake::JoinToken{});
        if (!roam_key_hex.empty()) ok->x_roam_key = roam_key_hex;
      } else {
        ctx.reason = "wrong password";
      }
      done(std::move(ctx), std::move(ok));
    });
    return true;
  }
  void session_started(Session& s, const transport::SockAddr&, bool) override {
    std::lock_guard lock(mu_);
    for (const auto& sp : table_.list()) {
      if (sp.get() == &s) started_.push_back(sp);
    }
    cv_.notify_all();
  }
  void session_ended(const std::shared_ptr<Session>& s, tunnel::SessionEnd end) override {
    table_.remove(s);
    std::lock_guard lock(mu_);
    ended_.emplace_back(s, end);
    cv_.notify_all();
  }
  void release_session(const std::shared_ptr<Session>& s) override {
    table_.remove(s);
    released++;
  }
  UdpWorker* worker(std::size_t id) override {
    return workers != nullptr && id < workers->size() ? (*workers)[id].get() : nullptr;
  }

  std::shared_ptr<Session> wait_started(std::size_t n) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, 10s, [&] { return started_.size() >= n; })) return nullptr;
    return started_[n - 1];
  }
  std::optional<tunnel::SessionEnd> wait_ended(std::size_t n) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, 10s, [&] { return ended_.size() >= n; })) return std::nullopt;
    return ended_[n - 1].second;
  }
  std::size_t sessions() const { return table_.size(); }

  /// Verifications wait while this is set (release_held() lets them finish).
  void hold_verdicts() {
    std::lock_guard lock(mu_);
    hold = true;
  }
  void release_held() {
    {
      std::lock_guard lock(mu_);
      hold = false;
    }
    cv_.notify_all();
  }

  std::atomic<bool> admit_hellos{true};
  std::atomic<bool> verify{true};
  std::atomic<int> verifications{0};  ///< verify_auth calls that started one
  std::atomic<int> released{0};
  std::string roam_key_hex;  ///< AUTH OK's x_roam_key (roaming on); set before use
  const std::vector<std::unique_ptr<UdpWorker>>* workers = nullptr;  ///< hand-offs

 private:
  const config::ProfileConfig& p_;
  SessionTable table_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
  bool hold = false;  // guarded by mu_
  std::vector<std::shared_ptr<Session>> started_;
  std::vector<std::pair<std::shared_ptr<Session>, tunnel::SessionEnd>> ended_;
};

/// Workers on threads of their own, each over a loopback socket and a ChannelTun; with
/// roaming, one connection-id index for all (as the workers of one listener share it).
/// Unlike a real listener's SO_REUSEPORT sockets, each has its own port: a test picks
/// the worker a datagram reaches (what the kernel's flow hash does).
struct Server {
  explicit Server(std::size_t count = 1, bool roaming = false, std::size_t verify_slots = 64)
      : p(udp_profile()),
        host(p),
        identity(crypto::x25519_generate(crypto::system_rng())),
        budget(verify_slots) {
    std::shared_ptr<RoamIndex> roam;
    if (roaming) {
      roam = std::make_shared<RoamIndex>();
      host.roam_key_hex = to_hex(wire::roam_prp_key(identity.private_key).span());
    }
    for (std::size_t i = 0; i < count; ++i) {
      UdpWorkerSetup s;
      s.id = i;
      s.profile = &p;
      s.handshake.inner.mode = handshake::Mode::kFakeTls;
      s.handshake.inner.identity = &identity;
      s.handshake.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
      s.handshake.inner.timeout = 20s;
      auto t = std::make_unique<test::ChannelTun>();
      tuns.push_back(t.get());
      s.tun = std::move(t);
      s.roam = roam;
      s.stop = &stop;
      s.counters = &counters;
      s.verify_budget = &budget;
      workers.push_back(std::make_unique<UdpWorker>(host, test::loopback_udp(false), std::move(s)));
      addrs.push_back(workers.back()->socket().local_address());
    }
    host.workers = &workers;
    tun = tuns[0];
    addr = addrs[0];
    for (auto& w : workers) threads.emplace_back([wp = w.get()] { wp->run(); });
  }
  ~Server() {
    shut();
    host.join();
  }
  void shut() {
    stop.stop();
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  }

  config::ProfileConfig p;
  FakeProfile host;
  crypto::X25519KeyPair identity;
  VerifyBudget budget;  ///< before the workers: their half-open slots point here
  engine::StopSignal stop;
  ProfileCounters counters;
  std::vector<test::ChannelTun*> tuns;
  std::vector<std::unique_ptr<UdpWorker>> workers;
  std::vector<transport::SockAddr> addrs;
  test::ChannelTun* tun = nullptr;  ///< worker 0's
  transport::SockAddr addr;         ///< worker 0's
  std::vector<std::thread> threads;
};

/// The UDP handshake config of a client of `s`.
handshake::UdpClientConfig client_config(const Server& s, std::string password = "pw") {
  handshake::UdpClientConfig cfg;
  cfg.inner.mode = handshake::Mode::kFakeTls;
  cfg.inner.pinned_server_key = s.identity.public_key;
  cfg.inner.user = "alice";
  cfg.inner.password = std::move(password);
  cfg.inner.extensions = handshake::our_extensions(handshake::Carrier::kDatagram);
  cfg.inner.timeout = 20s;
  return cfg;
}

/// A client on its own loopback socket: the real UDP handshake, then one record at a time.
struct Client {
  Client(const Server& s, std::string password = "pw")
      : cfg(client_config(s, std::move(password))), sock(test::loopback_udp(false)) {}
  handshake::Failure connect(const transport::SockAddr& server) {
    handshake::UdpClientHandshake hs(cfg, crypto::system_rng());
    const auto f = engine::drive_udp_client_handshake(hs, sock, server, stop);
    if (f != handshake::Failure::kNone) return f;
    auto udp = hs.take_session();
    EXPECT_TRUE(transport::parse_ipv4(udp.session.auth_ok->client_ip, tunnel_ip));
    if (auto roam = handshake::client_roam_nonces(udp.session)) {  // as ClientCore does
      udp.session.send.set_send_roam(std::move(roam));
      roams = true;
    }
    send_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, nullptr,
                                                              udp.next_packet_number, rng());
    recv_env = std::make_unique<engine::WireDatagramEnvelope>(udp.envelope, nullptr, 0, rng());
    tx.emplace(std::move(udp.session.send), tunnel::PaddingPolicy{}, 1400, rng(), counters,
               *send_env);
    rx.emplace(std::move(udp.session.recv), counters, *recv_env);
    return f;
  }
  /// An IPv4/UDP packet from the client's tunnel address.
  test::PacketBytes packet(std::uint8_t seed) const {
    test::PacketSpec spec;
    spec.proto = 17;
    for (int i = 0; i < 4; ++i) spec.src[i] = static_cast<std::uint8_t>(tunnel_ip >> (24 - 8 * i));
    spec.dst = {10, 77, 0, 1};
    spec.payload = 200;
    spec.payload_seed = seed;
    return test::build_packet(spec);
  }
  /// Receives until an IP packet arrives (heartbeats and control frames pass by).
  std::optional<Bytes> receive(const transport::SockAddr& server) {
    tunio::PacketBatch batch(8, 2048, 128, 64);
    for (auto until = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < until;) {
      batch.clear();
      auto got = rx->receive(sock, server, batch);
      if (got.ok() && batch.size() > 0) {
        return Bytes(batch.packet(0).begin(), batch.packet(0).end());
      }
      std::this_thread::sleep_for(5ms);
    }
    return std::nullopt;
  }
  static crypto::Rng& rng() { return crypto::system_rng(); }

  handshake::UdpClientConfig cfg;
  transport::UdpSocket sock;
  engine::StopSignal stop;
  tunnel::SessionCounters counters;
  std::uint32_t tunnel_ip = 0;
  bool roams = false;  ///< the session negotiated roaming
  std::unique_ptr<engine::WireDatagramEnvelope> send_env, recv_env;
  std::optional<test::DatagramTx> tx;
  std::optional<test::DatagramRx> rx;
};

TEST(UdpWorker, HandshakeAuthAndDataBothWays) {
  Server s;
  Client c(s);
  ASSERT_EQ(c.connect(s.addr), handshake::Failure::kNone);
  auto session = s.host.wait_started(1);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->tunnel_ip, c.tunnel_ip);
  EXPECT_EQ(s.counters.sessions_started.load(), 0U);  // the host counts that, not the worker

  // Uplink: client → worker → the session's receiver and inbound filter → the TUN.
  const auto up = c.packet(1);
  ASSERT_EQ(c.tx->send_one(c.sock, s.addr, up, 0, c.stop), engine::WriteStatus::kOk);
  ASSERT_TRUE(s.tun->wait_for(1, 10s));
  const auto got = s.tun->received_segments();
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0], Bytes(up.begin(), up.end()));

  // A packet from an address that is not the client's: the inbound filter drops it.
  test::PacketSpec spoofed;
  spoofed.proto = 17;
  spoofed.src = {10, 77, 0, 250};
  ASSERT_EQ(c.tx->send_one(c.sock, s.addr, test::build_packet(spoofed), 0, c.stop),
            engine::WriteStatus::kOk);
  for (auto until = std::chrono::steady_clock::now() + 10s;
       session->counters.get(tunnel::SessionCounter::kDropBadSource) == 0 &&
       std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(2ms);
  }
  EXPECT_EQ(session->counters.get(tunnel::SessionCounter::kDropBadSource), 1U);
  EXPECT_EQ(s.tun->received_logical(), 1U);  // the spoofed one never arrived

  // Downlink: what the TUN readers queue for the session → its sender thread → the client.
  const auto down = c.packet(2);
  ASSERT_TRUE(session->inbox.push(down));
  session->inbox.notify();
  const auto back = c.receive(s.addr);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, Bytes(down.begin(), down.end()));

  // Stop: the session ends with the worker, reported once.
  s.shut();
  EXPECT_EQ(s.host.wait_ended(1), tunnel::SessionEnd::kStopped);
  EXPECT_EQ(s.host.sessions(), 0U);
}

TEST(UdpWorker, WrongPasswordIsRejectedAndCounted) {
  Server s;
  Client c(s, "nope");
  c.cfg.inner.timeout = 3s;  // a UDP rejection is silent (0.7.16): the client times out
  EXPECT_NE(c.connect(s.addr), handshake::Failure::kNone);
  EXPECT_EQ(s.counters.auth_failed.load(), 1U);
  EXPECT_EQ(s.host.sessions(), 0U);
}

TEST(UdpWorker, AKickedSessionEndsAtTheNextSweep) {
  Server s;
  Client c(s);
  ASSERT_EQ(c.connect(s.addr), handshake::Failure::kNone);
  auto session = s.host.wait_started(1);
  ASSERT_NE(session, nullptr);
  session->end(wire::CloseReason::kKicked);
  EXPECT_TRUE(s.host.wait_ended(1).has_value());
  EXPECT_EQ(s.host.sessions(), 0U);
}

TEST(UdpWorker, VerificationsOverCapacityAreShed) {
  Server s;
  s.host.verify = false;  // the host has too many verifications in flight
  Client c(s);
  c.cfg.inner.timeout = 3s;  // the worker stays silent: the client gives up on its own
  EXPECT_NE(c.connect(s.addr), handshake::Failure::kNone);
  EXPECT_GE(s.counters.over_capacity.load(), 1U);
  EXPECT_EQ(s.host.sessions(), 0U);
}

/// Waits until `f()` holds (10 s at most).
template <class F>
bool eventually(F f) {
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(2ms)) {
    if (f()) return true;
  }
  return f();
}

// Verification slots: with one, a second client's hello waits unanswered (over_capacity)
// while the first one's AUTH is verified, and its retransmit is answered once that verdict
// is in — so no AUTH is left unanswered for want of capacity (a client reads that as a
// refusal). Without the slots both AUTHs would be verifying at once.
TEST(UdpWorker, HellosWaitForAVerificationSlot) {
  Server s(1, false, /*verify_slots=*/1);
  s.host.hold_verdicts();
  Client a(s), b(s);
  handshake::Failure fa = handshake::Failure::kTimeout, fb = handshake::Failure::kTimeout;
  std::thread ta([&] { fa = a.connect(s.addr); });
  EXPECT_TRUE(eventually([&] { return s.host.verifications.load() >= 1; }));
  std::thread tb([&] { fb = b.connect(s.addr); });
  EXPECT_TRUE(eventually([&] { return s.counters.over_capacity.load() >= 1; }));
  EXPECT_EQ(s.host.verifications.load(), 1);  // b never got as far as AUTH
  s.host.release_held();
  ta.join();
  tb.join();
  EXPECT_EQ(fa, handshake::Failure::kNone);
  EXPECT_EQ(fb, handshake::Failure::kNone);
  EXPECT_EQ(s.host.verifications.load(), 2);
  EXPECT_NE(s.host.wait_started(2), nullptr);  // (one device key: b's replaced a's)
  EXPECT_TRUE(eventually([&] { return s.budget.in_use() == 0; }));
}

// A hello whose sender never sends AUTH (a spoofed source never sees the reply) holds its
// slot for kAuthGrace only: then a real client gets it and connects.
TEST(UdpWorker, AHelloWithoutAuthGivesItsSlotBackAfterTheGrace) {
  Server s(1, false, /*verify_slots=*/1);
  Client silent(s);
  handshake::UdpClientHandshake hs(silent.cfg, crypto::system_rng());
  hs.start(std::chrono::steady_clock::now());
  for (const Bytes& d : hs.take_datagrams()) {
    const transport::OutDatagram out{d.data(), d.size(), &s.addr};
    ASSERT_EQ(silent.sock.send({&out, 1}).sent, 1U);
  }
  ASSERT_TRUE(eventually([&] { return s.budget.in_use() == 1; }));
  Client b(s);
  EXPECT_EQ(b.connect(s.addr), handshake::Failure::kNone);
  EXPECT_GE(s.counters.over_capacity.load(), 1U) << "b waited for the slot";
  EXPECT_EQ(s.host.verifications.load(), 1);
}

TEST(UdpWorker, HellosOverTheNewSessionLimitGetNoAnswer) {
  Server s;
  s.host.admit_hellos = false;
  Client c(s);
  c.cfg.inner.timeout = 2s;
  EXPECT_EQ(c.connect(s.addr), handshake::Failure::kTimeout);
  EXPECT_GE(s.counters.new_session_rate_limited.load(), 1U);
}

TEST(UdpWorker, AStrangersJunkGetsNothingBack) {
  Server s;
  transport::UdpSocket stranger = test::loopback_udp(false);
  Bytes junk(64, 0x42);
  const transport::OutDatagram d{junk.data(), junk.size(), &s.addr};
  ASSERT_EQ(stranger.send({&d, 1}).sent, 1U);
  pollfd pf{stranger.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&pf, 1, 1000), 0) << "the worker answered a stranger's junk";
  // And a real client still gets in after it.
  Client c(s);
  EXPECT_EQ(c.connect(s.addr), handshake::Failure::kNone);
}

TEST(UdpWorker, RoamsOnAnAuthenticDatagramFromANewAddressAndNeverOnAReplay) {
  Server s(1, /*roaming=*/true);
  Client c(s);
  ASSERT_EQ(c.connect(s.addr), handshake::Failure::kNone);
  ASSERT_TRUE(c.roams);
  auto session = s.host.wait_started(1);
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(c.tx->send_one(c.sock, s.addr, c.packet(1), 0, c.stop), engine::WriteStatus::kOk);
  ASSERT_TRUE(s.tun->wait_for(1, 10s));

  // The client's next datagram, caught on the way (a tap) and sent from a new address.
  transport::UdpSocket tap = test::loopback_udp(false), moved = test::loopback_udp(false),
                       forger = test::loopback_udp(false);
  const transport::SockAddr tap_addr = tap.local_address();  // the framer keeps a reference
  ASSERT_EQ(c.tx->send_one(c.sock, tap_addr, c.packet(2), 0, c.stop), engine::WriteStatus::kOk);
  std::array<std::uint8_t, 2048> buf{};
  pollfd pf{tap.fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&pf, 1, 5000), 1);
  transport::RecvSlot slot = transport::RecvSlot::over(buf.data(), buf.size());
  ASSERT_EQ(*tap.recv({&slot, 1}), 1U);
  const Bytes datagram(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(slot.len));
  const transport::OutDatagram d{datagram.data(), datagram.size(), &s.addr};
  ASSERT_EQ(moved.send({&d, 1}).sent, 1U);
  ASSERT_TRUE(s.tun->wait_for(2, 10s));  // delivered, and the session moved with it
  EXPECT_TRUE(eventually([&] { return s.counters.udp_roams.load() == 1; }));
  EXPECT_EQ(session->current_peer(), moved.local_address());

  // The same bytes again from a third address: a replay moves nothing.
  ASSERT_EQ(forger.send({&d, 1}).sent, 1U);
  EXPECT_TRUE(eventually([&] { return s.counters.udp_roams_refused.load() == 1; }));
  EXPECT_EQ(s.counters.udp_roams.load(), 1U);
  EXPECT_EQ(session->current_peer(), moved.local_address());
  EXPECT_EQ(s.tun->received_logical(), 2U);

  // The session answers at its new address: the downlink follows it.
  const auto down = c.packet(3);
  ASSERT_TRUE(session->inbox.push(down));
  session->inbox.notify();
  pollfd mp{moved.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&mp, 1, 5000), 1) << "nothing reached the new address";
}

TEST(UdpWorker, ASessionMovesToTheWorkerItsNewAddressReaches) {
  Server s(2, /*roaming=*/true);
  Client c(s);
  ASSERT_EQ(c.connect(s.addrs[0]), handshake::Failure::kNone);  // worker 0's session
  ASSERT_TRUE(c.roams);
  auto session = s.host.wait_started(1);
  ASSERT_NE(session, nullptr);
  // From a new address, at worker 1 (as if the kernel hashed the new flow there): worker 1
  // hands the datagram to worker 0, which checks it and hands the session to worker 1.
  transport::UdpSocket moved = test::loopback_udp(false);
  ASSERT_EQ(c.tx->send_one(moved, s.addrs[1], c.packet(1), 0, c.stop), engine::WriteStatus::kOk);
  ASSERT_TRUE(s.tuns[0]->wait_for(1, 10s));  // opened by its owner, worker 0
  EXPECT_TRUE(eventually([&] { return s.counters.udp_roams.load() == 1; }));
  EXPECT_EQ(session->current_peer(), moved.local_address());
  // From now on worker 1 serves it itself.
  ASSERT_EQ(c.tx->send_one(moved, s.addrs[1], c.packet(2), 0, c.stop), engine::WriteStatus::kOk);
  EXPECT_TRUE(s.tuns[1]->wait_for(1, 10s)) << "worker 1 did not take the session over";
  EXPECT_EQ(s.tuns[0]->received_logical(), 1U);
  // Stopping ends it once, wherever it lives.
  s.shut();
  EXPECT_EQ(s.host.wait_ended(1), tunnel::SessionEnd::kStopped);
  EXPECT_EQ(s.host.sessions(), 0U);
}

// ---- Return routability (issue 21; docs/PROTOCOL.md §11) ----------------------------------

/// Sources that never answer (as spoofed ones never see a reply): each socket sends one
/// real first flight — a cookie marker and a fresh ClientHello — and never reads.
void send_hellos(const Server& s, std::vector<transport::UdpSocket>& sockets) {
  for (transport::UdpSocket& sock : sockets) {
    handshake::UdpClientHandshake hs(client_config(s), crypto::system_rng());
    hs.start(std::chrono::steady_clock::now());
    for (const Bytes& d : hs.take_datagrams()) {
      const transport::OutDatagram out{d.data(), d.size(), &s.addr};
      ASSERT_EQ(sock.send({&out, 1}).sent, 1U);
    }
  }
}

std::vector<transport::UdpSocket> sockets(std::size_t n) {
  std::vector<transport::UdpSocket> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(test::loopback_udp(false));
  return v;
}

/// A flood of hellos from sources that never answer, renewed every 100 ms from the same
/// sockets (new hellos: each takes a slot again once the last one's grace is over) until
/// destroyed.
struct Flood {
  Flood(const Server& s, std::size_t sources) : socks(sockets(sources)) {
    send_hellos(s, socks);
    t = std::thread([this, &s] {
      while (!stop.load()) {
        std::this_thread::sleep_for(100ms);
        send_hellos(s, socks);
      }
    });
  }
  ~Flood() {
    stop = true;
    t.join();
  }
  std::vector<transport::UdpSocket> socks;
  std::atomic<bool> stop{false};
  std::thread t;
};

// Hellos from many sources that never answer fill the unverified half of the login slots
// and no more (each is challenged instead); a client that answers its challenge takes a
// slot of the other half and gets its session while the flood goes on.
TEST(UdpWorker, AFloodFillsOnlyTheUnverifiedShareAndAnAnsweringClientGetsIn) {
  Server s(1, false, /*verify_slots=*/8);
  ASSERT_EQ(s.budget.unverified_limit(), 4U);
  Flood flood(s, 16);
  ASSERT_TRUE(eventually([&] { return s.counters.udp_unverified_refused.load() >= 12; }));
  EXPECT_EQ(s.budget.in_use(), 4U) << "the flood holds the unverified share, not every slot";
  EXPECT_GE(s.counters.udp_cookie_challenges.load(), 12U);  // they sent markers

  Client c(s);
  EXPECT_EQ(c.connect(s.addr), handshake::Failure::kNone);
  EXPECT_NE(s.host.wait_started(1), nullptr);
  EXPECT_EQ(s.counters.udp_cookies_accepted.load(), 1U);
  EXPECT_EQ(s.counters.udp_cookies_refused.load(), 0U);
  EXPECT_EQ(s.counters.over_capacity.load(), 0U);
  EXPECT_EQ(s.host.verifications.load(), 1);  // only the real client ever sent AUTH
  EXPECT_LE(s.budget.in_use(), s.budget.limit());
}

// A client without extensions (a 0.7.16 client: no marker, and it would abort on a
// challenge) is never challenged. Without a flood it connects at once; under one it
// waits for a slot of the unverified share, as every client did before the cookies.
TEST(UdpWorker, ALegacyClientIsNeverChallenged) {
  Server s(1, false, /*verify_slots=*/8);
  Client quiet(s);
  quiet.cfg.inner.extensions = 0;
  EXPECT_EQ(quiet.connect(s.addr), handshake::Failure::kNone);
  EXPECT_EQ(s.counters.udp_cookie_challenges.load(), 0U);
  EXPECT_EQ(s.counters.udp_unverified_refused.load(), 0U);
  ASSERT_NE(s.host.wait_started(1), nullptr);

  // Four flooding sources take the share (no renewal: their slots come back after 1 s).
  std::vector<transport::UdpSocket> flood = sockets(4);
  send_hellos(s, flood);
  ASSERT_TRUE(eventually([&] { return s.budget.in_use() == 4; }));
  Client legacy(s);
  legacy.cfg.inner.extensions = 0;
  const std::uint64_t challenges = s.counters.udp_cookie_challenges.load();
  EXPECT_EQ(legacy.connect(s.addr), handshake::Failure::kNone);
  EXPECT_GE(s.counters.udp_unverified_refused.load(), 1U) << "it waited for the share";
  EXPECT_EQ(s.counters.udp_cookie_challenges.load(), challenges);
}

// A cookie echo that is not the source's own — made up, malformed, or another address's —
// is refused and counted, gets nothing back and leaves no state.
TEST(UdpWorker, AForgedCookieIsRefusedAndAnsweredByNothing) {
  Server s(1, false, /*verify_slots=*/8);
  transport::UdpSocket stranger = test::loopback_udp(false);
  Bytes made_up = wire::build_cookie_echo(wire::Cookie{});
  Bytes malformed = made_up;
  malformed.push_back(0);
  for (const Bytes* d : {&made_up, &malformed}) {
    const transport::OutDatagram out{d->data(), d->size(), &s.addr};
    ASSERT_EQ(stranger.send({&out, 1}).sent, 1U);
  }
  EXPECT_TRUE(eventually([&] { return s.counters.udp_cookies_refused.load() == 2; }));
  pollfd pf{stranger.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&pf, 1, 300), 0) << "the worker answered a cookie echo";
  EXPECT_EQ(s.counters.udp_cookies_accepted.load(), 0U);
}

}  // namespace
}  // namespace qeli::server
