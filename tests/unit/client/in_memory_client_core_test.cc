// A whole ClientCore (client/core/client_core.h) against a whole server session, in one
// process (STYLE.md practice 15): the core dials through ClientEnv::dial_tcp and gets one
// end of a socket pair, the server's handshake and session run on the other end
// (tests/fakes/stream_server_session.h), and the tunnel the core asks its host for is a
// ChannelTun. No root, no namespaces, no network. They ping each other, move a bulk
// transfer, and stop() ends it with our close frame; bad options are an error value,
// never an exception.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "client/core/client_core.h"
#include "fakes/channel_tun.h"
#include "fakes/packet_builder.h"
#include "fakes/stream_server_session.h"
#include "transport/tcp_stream.h"

namespace qeli::client {
namespace {

using namespace std::chrono_literals;

crypto::X25519KeyPair server_identity() {
  crypto::DeterministicRng r(77);
  return crypto::x25519_generate(r);
}

handshake::AuthOk auth_ok() {
  handshake::AuthOk ok;
  ok.client_ip = "10.8.0.2";
  ok.server_ip = "10.8.0.1";
  ok.prefix = 24;
  ok.mtu = 1400;
  return ok;
}

ClientCoreOptions options(const handshake::X25519Public& pinned) {
  ClientCoreOptions o;
  o.config.server = {"vpn.example", 443};
  o.config.user = "alice";
  o.config.timeout = std::chrono::seconds(10);
  o.config.reconnect = false;
  o.password = "pw";
  o.servers = {transport::SockAddr::ipv4(0x7f000001, 443)};
  o.pinned = pinned;
  o.platform = "test";
  return o;
}

// The host's side of the tunnel: the test's ChannelTun (it outlives the core).
class ChannelTunnel final : public Tunnel {
 public:
  explicit ChannelTunnel(test::ChannelTun& tun) : tun_(tun) {}
  tunio::TunDevice& device() override { return tun_; }

 private:
  test::ChannelTun& tun_;
};

// An IPv4 UDP packet `from` → `to`, numbered by `n` (its source port and payload).
Bytes packet(bool up, std::uint16_t n, std::size_t payload) {
  test::PacketSpec s;
  s.proto = 17;
  s.src =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 2} : std::array<std::uint8_t, 16>{10, 8, 0, 1};
  s.dst =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 1} : std::array<std::uint8_t, 16>{10, 8, 0, 2};
  s.sport = n;
  s.payload = payload;
  s.payload_seed = static_cast<std::uint8_t>(n);
  return test::build_packet(s);
}

// One client core, one server session over a socket pair.
struct Fixture {
  explicit Fixture(bool bind_static = true) : identity(server_identity()) {
    int sv[2] = {-1, -1};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    client_end = transport::UniqueFd(sv[0]);
    server.emplace(std::make_unique<transport::TcpStream>(transport::UniqueFd(sv[1])), identity,
                   auth_ok(), bind_static);
  }
  ClientEnv env() {
    ClientEnv e;
    e.dial_tcp = [this](const transport::SockAddr&, std::chrono::milliseconds,
                        int) -> Result<transport::UniqueFd, std::string> {
      if (!client_end.valid()) return fail(std::string("one connection only"));
      ++dials;
      return std::move(client_end);
    };
    e.open_tunnel = [this](const TunnelConfig& tc) -> Result<std::unique_ptr<Tunnel>, std::string> {
      opened = tc;
      return std::unique_ptr<Tunnel>(std::make_unique<ChannelTunnel>(client_tun));
    };
    e.on_state = [this](ClientState s, const std::string&) {
      if (s == ClientState::kConnected) connected = true;
    };
    return e;
  }
  bool wait_connected(std::chrono::milliseconds d) const {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!connected.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(5ms);
    }
    return connected.load();
  }

  crypto::X25519KeyPair identity;
  transport::UniqueFd client_end;
  std::optional<test::StreamServerSession> server;
  test::ChannelTun client_tun;
  std::optional<TunnelConfig> opened;
  std::atomic<int> dials{0};
  std::atomic<bool> connected{false};
};

bool ping(test::ChannelTun& from, test::ChannelTun& to, bool up) {
  to.clear_received();
  const Bytes echo = packet(up, 0xffff, 56);
  from.inject(echo);
  if (!to.wait_for(1, 5s)) return false;
  const auto got = to.received_segments();
  return !got.empty() && got.front() == echo;
}

TEST(InMemoryClientCore, PingsBothWaysMovesABulkTransferAndSaysGoodbyeOnStop) {
  Fixture f;
  ClientCore core(options(f.identity.public_key), f.env());
  ASSERT_TRUE(core.start().ok());
  ASSERT_TRUE(f.wait_connected(10s));
  ASSERT_TRUE(f.server->wait_session(10s));

  // What the host was asked to carry: what the server pushed.
  ASSERT_TRUE(f.opened.has_value());
  EXPECT_EQ(f.opened->pushed.client_ip, "10.8.0.2");
  EXPECT_EQ(f.opened->pushed.prefix, 24);
  EXPECT_EQ(f.opened->mtu, 1400u);
  EXPECT_EQ(f.opened->server.ipv4_host(), 0x7f000001u);

  EXPECT_TRUE(ping(f.client_tun, f.server->tun, true));
  EXPECT_TRUE(ping(f.server->tun, f.client_tun, false));

  // Bulk: 2000 packets of every size up to the MTU, each way.
  constexpr std::size_t kBulk = 2000;
  f.server->tun.clear_received();
  f.client_tun.clear_received();
  for (std::size_t i = 0; i < kBulk; ++i) {
    f.client_tun.inject(packet(true, static_cast<std::uint16_t>(i + 1), 100 + (i * 37) % 1272));
    f.server->tun.inject(packet(false, static_cast<std::uint16_t>(i + 1), 100 + (i * 53) % 1272));
  }
  EXPECT_TRUE(f.server->tun.wait_for(kBulk, 20s)) << f.server->tun.received_logical();
  EXPECT_TRUE(f.client_tun.wait_for(kBulk, 20s)) << f.client_tun.received_logical();
  const auto up = f.server->tun.received_segments();
  ASSERT_EQ(up.size(), kBulk);
  for (std::size_t i = 0; i < kBulk; i += 97) {
    EXPECT_EQ(up[i], packet(true, static_cast<std::uint16_t>(i + 1), 100 + (i * 37) % 1272));
  }

  const ClientCoreStatus st = core.status();
  EXPECT_EQ(st.state, ClientState::kConnected);
  EXPECT_TRUE(st.running);
  EXPECT_EQ(st.sessions, 1u);
  EXPECT_TRUE(st.tunnel.has_value());
  EXPECT_GE(st.tx_packets, kBulk + 1);
  EXPECT_GE(st.rx_packets, kBulk + 1);

  // stop(): the session says goodbye (our close extension) and run() returns ok.
  core.stop();
  EXPECT_TRUE(core.join().ok());
  ASSERT_TRUE(f.server->wait_end(5s));
  EXPECT_EQ(f.server->end(), tunnel::SessionEnd::kClosedByPeer);
  EXPECT_EQ(f.server->close_heard(), wire::CloseReason::kClientStopping);
  EXPECT_FALSE(core.status().running);
  EXPECT_FALSE(core.status().error.has_value());
  EXPECT_EQ(f.dials.load(), 1);
}

TEST(InMemoryClientCore, AnotherServerKeyIsAFatalErrorValue) {
  Fixture f;
  handshake::X25519Public wrong = f.identity.public_key;
  wrong[0] ^= 1;
  ClientCore core(options(wrong), f.env());
  ASSERT_TRUE(core.start().ok());
  const auto result = core.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ClientErrc::kFatal);
  EXPECT_NE(result.error().detail.find("SERVER KEY MISMATCH"), std::string::npos);
  EXPECT_FALSE(f.connected.load());
  ASSERT_TRUE(core.status().error.has_value());
  EXPECT_EQ(core.status().error->code, ClientErrc::kFatal);
}

TEST(InMemoryClientCore, BadOptionsAreRefusedWithoutThrowing) {
  Fixture f;
  {
    ClientCoreOptions o = options(f.identity.public_key);
    o.servers.clear();
    ClientCore core(o, f.env());
    const auto st = core.start();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, ClientErrc::kBadConfig);
    EXPECT_FALSE(core.run().ok());  // the blocking form refuses them too
  }
  {
    ClientEnv e = f.env();
    e.open_tunnel = nullptr;
    ClientCore core(options(f.identity.public_key), std::move(e));
    const auto st = core.start();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, ClientErrc::kBadConfig);
  }
  {
    // A host that cannot open the tunnel: the core stops with that error, no exception.
    ClientEnv e = f.env();
    e.open_tunnel = [](const TunnelConfig&) -> Result<std::unique_ptr<Tunnel>, std::string> {
      return fail(std::string("no TUN here"));
    };
    ClientCore core(options(f.identity.public_key), std::move(e));
    ASSERT_TRUE(core.start().ok());
    EXPECT_FALSE(core.start().ok());  // running already (or done): never two loops
    const auto result = core.join();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ClientErrc::kFatal);
    EXPECT_EQ(result.error().detail, "no TUN here");
  }
}

TEST(InMemoryClientCore, AnUnpinnedKeyIsOfferedToTheHostOnFirstUse) {
  Fixture f(/*bind_static=*/false);
  ClientCoreOptions o = options(f.identity.public_key);
  o.pinned.reset();
  o.config.bind_static = false;  // the bound key schedule needs the key beforehand
  ClientEnv e = f.env();
  std::optional<handshake::X25519Public> offered;
  e.trust_on_first_use = [&](const handshake::X25519Public& key) -> std::string {
    offered = key;
    return {};
  };
  ClientCore core(std::move(o), std::move(e));
  ASSERT_TRUE(core.start().ok());
  ASSERT_TRUE(f.wait_connected(10s));
  ASSERT_TRUE(offered.has_value());
  EXPECT_EQ(*offered, f.identity.public_key);
  EXPECT_TRUE(ping(f.client_tun, f.server->tun, true));
  core.stop();
  EXPECT_TRUE(core.join().ok());
}

// confirm_server sees every session's key, pinned too, before the tunnel opens; a refusal
// is fatal and no tunnel is ever opened.
TEST(InMemoryClientCore, TheHostConfirmsEveryServerKeyAndMayRefuseIt) {
  for (const bool refuse : {false, true}) {
    Fixture f;
    ClientEnv e = f.env();
    int asked = 0;
    bool was_pinned = false;
    e.confirm_server = [&](const handshake::X25519Public& key, bool pinned) -> std::string {
      ++asked;
      was_pinned = pinned;
      EXPECT_EQ(key, f.identity.public_key);
      return refuse ? "not in my known hosts" : "";
    };
    ClientCore core(options(f.identity.public_key), std::move(e));
    if (refuse) {
      const auto result = core.run();
      ASSERT_FALSE(result.ok());
      EXPECT_EQ(result.error().code, ClientErrc::kFatal);
      EXPECT_EQ(result.error().detail, "not in my known hosts");
      EXPECT_EQ(core.status().sessions, 0U);  // no tunnel
    } else {
      ASSERT_TRUE(core.start().ok());
      ASSERT_TRUE(f.wait_connected(10s));
      EXPECT_TRUE(ping(f.client_tun, f.server->tun, true));
      core.stop();
      EXPECT_TRUE(core.join().ok());
    }
    EXPECT_EQ(asked, 1);
    EXPECT_TRUE(was_pinned);
  }
}

// The socket hook sees every socket before it connects (TCP) or binds (UDP); a socket it
// refuses never reaches the network. With reconnect off the core then gives up.
TEST(InMemoryClientCore, EverySocketPassesTheProtectHookFirst) {
  for (const auto proto : {config::Transport::kTcp, config::Transport::kUdp}) {
    ClientCoreOptions o = options(server_identity().public_key);
    o.config.proto = proto;
    o.servers = {transport::SockAddr::ipv4(0x7f000001, 9)};
    std::vector<int> seen;
    ClientEnv e;
    e.protect = [&](int fd) {
      seen.push_back(fd);
      return false;
    };
    e.open_tunnel = [](const TunnelConfig&) -> Result<std::unique_ptr<Tunnel>, std::string> {
      return fail(std::string("never reached"));
    };
    ClientCore core(std::move(o), std::move(e));
    const auto result = core.run();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ClientErrc::kGaveUp);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_GE(seen.front(), 0);
  }
}

}  // namespace
}  // namespace qeli::client
