// Two whole endpoints in one unit test (STYLE.md practice 15): a qeli client and a
// server session run their real handshake, then the engine's one session loop over every
// mode the table has (wire/modes.h), through in-memory carriers and channel TUNs
// (tests/fakes/in_memory_tunnel.h) — no root, no namespaces, no network. They ping each
// other, move a bulk transfer both ways (MTU-sized packets and 64 KiB TCP super-packets),
// and end with the close extension. Datagram modes also run with loss and reordering.
//
// The test-only XOR layer (tests/fakes/xor_stream.h) shows what a new outer layer costs:
// one transport::Stream + StreamSetup and one ModeSpec row (kXorMode below); nothing in
// src/ changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "fakes/in_memory_tunnel.h"
#include "fakes/packet_builder.h"
#include "fakes/xor_stream.h"
#include "transport/obfs_setup.h"
#include "tunio/offload_validate.h"

namespace qeli::test {
namespace {

using namespace std::chrono_literals;
using tunnel::SessionCounter;
using tunnel::SessionEnd;

// The new layer's row: fake-tls records inside the test-only XOR framing.
constexpr wire::Layer kXorLayers[] = {wire::Layer::kExternal};
constexpr wire::ModeSpec kXorMode{"test-xor",
                                  wire::Carrier::kStream,
                                  wire::Framing::kTls,
                                  wire::Flight::kFakeTls,
                                  kXorLayers,
                                  {},
                                  "fake-tls inside the test-only XOR layer"};

struct Case {
  std::string name;
  const wire::ModeSpec* mode;
  bool padding = false;
  bool frag = false;
  bool quic = false;
  bool impaired = false;
  bool no_front = false;  ///< TCP obfs: the raw XOR stream, no WebSocket upgrade
  bool junk = false;      ///< TCP obfs: AmneziaWG-style junk records before the nonces
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

const wire::ModeSpec* mode(wire::Carrier c, const char* name) {
  const wire::ModeSpec* m = wire::find_mode(c, name);
  if (m == nullptr) std::abort();
  return m;
}

// Every mode this build carries (a built row of the table is never skipped: a new one
// fails here until it has a case), each switch that changes the bytes, and the XOR row.
std::vector<Case> cases() {
  using wire::Carrier;
  std::vector<Case> out = {
      {"tcp_plain", mode(Carrier::kStream, "plain")},
      {"tcp_fake_tls", mode(Carrier::kStream, "fake-tls")},
      {"tcp_padding", mode(Carrier::kStream, "fake-tls"), true},
      {"tcp_frag", mode(Carrier::kStream, "fake-tls"), false, true},
      {"tcp_xor_layer", &kXorMode},
      {"tcp_obfs_websocket", mode(Carrier::kStream, "obfs")},
      {"tcp_obfs_raw_junk_padding", mode(Carrier::kStream, "obfs"), true, false, false, false, true,
       true},
      {"udp_fake_tls", mode(Carrier::kDatagram, "fake-tls")},
      {"udp_padding", mode(Carrier::kDatagram, "fake-tls"), true},
      {"udp_quic", mode(Carrier::kDatagram, "fake-tls"), false, false, true},
      {"udp_obfs", mode(Carrier::kDatagram, "obfs")},
      {"udp_quic_obfs_lossy", mode(Carrier::kDatagram, "obfs"), true, false, true, true},
      {"udp_fake_tls_lossy", mode(Carrier::kDatagram, "fake-tls"), false, false, false, true},
  };
  return out;
}

TunnelOptions options(const Case& c) {
  TunnelOptions o;
  o.mode = c.mode;
  o.padding = c.padding;
  o.fragmentation = c.frag;
  o.quic = c.quic;
  o.obfs = wire::has_layer(*c.mode, wire::Layer::kObfsSeal);
  o.impaired = c.impaired;
  if (wire::has_layer(*c.mode, wire::Layer::kObfsXor)) {
    // Each end builds its own parameters (the key is a move-only secret).
    o.layers.push_back([c](bool client) -> std::unique_ptr<transport::StreamSetup> {
      transport::ObfsParams params;
      params.key = wire::derive_obfs_key("in-memory");
      params.websocket = !c.no_front;
      params.junk = wire::JunkPlan::from_config(c.junk, 3, 40, 300);
      params.host = "example.com";
      using Side = transport::ObfsSetup::Side;
      return std::make_unique<transport::ObfsSetup>(client ? Side::kClient : Side::kServer,
                                                    std::move(params), crypto::system_rng());
    });
  }
  if (c.mode == &kXorMode) {
    o.layers.push_back([](bool client) -> std::unique_ptr<transport::StreamSetup> {
      return std::make_unique<XorSetup>(client);
    });
  }
  return o;
}

// A UDP packet of `payload` bytes between the tunnel addresses, numbered by `n`.
Bytes numbered(bool up, std::uint32_t n, std::size_t payload) {
  PacketSpec s;
  s.proto = 17;
  s.src =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 2} : std::array<std::uint8_t, 16>{10, 8, 0, 1};
  s.dst =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 1} : std::array<std::uint8_t, 16>{10, 8, 0, 2};
  s.sport = static_cast<std::uint16_t>(1000 + n % 50000);
  s.dport = 9;
  s.payload = payload;
  s.payload_seed = static_cast<std::uint8_t>(n);
  s.ip_id = static_cast<std::uint16_t>(n);
  return build_packet(s);
}

// A 64 KiB TCP super-packet between the tunnel addresses as a TUN with TSO reads it.
struct Super {
  Bytes bytes;
  tunio::GsoMetadata meta;
  std::vector<Bytes> segments;
};
Super super_packet(bool up, std::uint32_t seq) {
  PacketSpec s;
  s.src =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 2} : std::array<std::uint8_t, 16>{10, 8, 0, 1};
  s.dst =
      up ? std::array<std::uint8_t, 16>{10, 8, 0, 1} : std::array<std::uint8_t, 16>{10, 8, 0, 2};
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.seq = seq;
  s.payload = 40 * 1348;  // segments of exactly the tunnel MTU (1400)
  s.partial_csum = true;
  Super out;
  out.bytes = build_packet(s);
  auto m = tunio::validate_offload({1, 1, 52, 1348, 20, 16}, out.bytes);
  if (!m.ok()) std::abort();
  out.meta = *m;
  tunio::PacketBatch segs(64, 1500);
  if (!tunio::gso_split_all(out.bytes, out.meta, segs).ok()) std::abort();
  for (std::size_t i = 0; i < segs.size(); ++i) {
    out.segments.emplace_back(segs.packet(i).begin(), segs.packet(i).end());
  }
  return out;
}

// Sends a ping from one TUN until the other side's TUN has it (a lossy path may lose a
// few); true when an intact copy arrived.
bool ping(ChannelTun& from, ChannelTun& to, bool up) {
  const Bytes echo = numbered(up, 0xffff, 56);
  for (int attempt = 0; attempt < 20; ++attempt) {
    from.inject(echo);
    if (to.wait_for(1, 500ms)) {
      const auto got = to.received_segments();
      to.clear_received();
      return !got.empty() && got.front() == echo;
    }
  }
  return false;
}

// Injects `n` numbered packets and `supers` super-packets into `from` and waits for
// `to`; every arrival must be one that was sent (intact). Returns how many arrived.
std::size_t bulk(ChannelTun& from, ChannelTun& to, bool up, std::size_t n, std::size_t supers,
                 std::size_t must_arrive) {
  std::map<Bytes, int> sent;
  std::size_t logical = 0;
  for (std::size_t i = 0; i < supers; ++i) {
    Super s = super_packet(up, static_cast<std::uint32_t>(1 + i * 60000));
    for (const Bytes& seg : s.segments) ++sent[seg];
    logical += s.segments.size();
    from.inject(s.bytes, s.meta);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // 228..1400 bytes: every size up to the tunnel MTU, full-size ones included.
    const Bytes p = numbered(up, static_cast<std::uint32_t>(i), 200 + (i * 37) % 1173);
    ++sent[p];
    ++logical;
    from.inject(p);
  }
  to.wait_for(must_arrive, 20s);
  std::this_thread::sleep_for(must_arrive < logical ? 300ms : 0ms);  // stragglers
  std::size_t got = 0;
  for (const Bytes& r : to.received_segments()) {
    auto it = sent.find(r);
    EXPECT_TRUE(it != sent.end() && it->second > 0) << "a packet arrived that was not sent";
    if (it != sent.end() && it->second > 0) {
      --it->second;
      ++got;
    }
  }
  to.clear_received();
  return got;
}

class InMemorySession : public ::testing::TestWithParam<Case> {};

TEST_P(InMemorySession, PingBothWaysBulkTransferAndClose) {
  const Case& c = GetParam();
  InMemoryTunnel t(options(c));
  ASSERT_TRUE(t.connected()) << "handshake over " << c.name;

  ASSERT_TRUE(ping(t.client_tun, t.server_tun, true)) << "client → server";
  ASSERT_TRUE(ping(t.server_tun, t.client_tun, false)) << "server → client";

  const bool stream = c.mode->carrier == wire::Carrier::kStream;
  // Lossy paths deliver most (3 % random loss), exact ones everything.
  constexpr std::size_t kPackets = 1500, kSupers = 4;
  const std::size_t all = kPackets + kSupers * 40;
  const std::size_t need = c.impaired ? all * 85 / 100 : all;
  EXPECT_GE(bulk(t.client_tun, t.server_tun, true, kPackets, kSupers, need), need);
  EXPECT_GE(bulk(t.server_tun, t.client_tun, false, kPackets, kSupers, need), need);
  if (stream) {
    // Between two qeli ends the super-packets crossed whole (the GSO extension).
    EXPECT_NE(t.negotiated() & handshake::caps::kGsoSuperPackets, 0U);
    EXPECT_EQ(t.server_counters.get(SessionCounter::kDropBadGso), 0U);
  }
  EXPECT_EQ(t.client_counters.get(SessionCounter::kDropTooBig), 0U);
  EXPECT_EQ(t.server_counters.get(SessionCounter::kDropTooBig), 0U);

  // The server ends the session: the client hears why and ends at once (on a lossy path
  // one of the three copies of the farewell gets through).
  t.stop_server();
  EXPECT_EQ(t.server_end(), SessionEnd::kStopped);
  ASSERT_TRUE(t.wait_client_end(5s)) << "the close frame did not end the client";
  EXPECT_EQ(t.client_end(), SessionEnd::kClosedByPeer);
  EXPECT_EQ(t.close_heard(), wire::CloseReason::kShutdown);
}

INSTANTIATE_TEST_SUITE_P(Modes, InMemorySession, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// `reality` and `reality-tls` are fake-tls (a case above) behind a server-side gate that
// peeks at the ClientHello on the socket itself (epoll + MSG_PEEK), which an in-memory
// carrier does not have: their two endpoints meet over a socket pair in
// tests/unit/server/carrier_modes_test.cc (reality-tls: with the TLS 1.3 layer between).
constexpr std::string_view kOverSocketsOnly[] = {"reality", "reality-tls"};

TEST(InMemorySessionModes, EveryBuiltModeHasACase) {
  const auto all = cases();
  for (const wire::ModeSpec& m : wire::all_modes()) {
    if (!wire::is_built(m)) continue;
    if (std::find(std::begin(kOverSocketsOnly), std::end(kOverSocketsOnly), m.name) !=
        std::end(kOverSocketsOnly)) {
      continue;
    }
    const bool covered =
        std::any_of(all.begin(), all.end(), [&](const Case& c) { return c.mode == &m; });
    EXPECT_TRUE(covered) << m.name << " over " << wire::to_string(m.carrier);
  }
}

TEST(InMemoryClose, ClientGoodbyeEndsTheServerSession) {
  for (const char* name : {"fake-tls"}) {
    for (wire::Carrier carrier : {wire::Carrier::kStream, wire::Carrier::kDatagram}) {
      TunnelOptions o;
      o.mode = mode(carrier, name);
      InMemoryTunnel t(o);
      ASSERT_TRUE(t.connected());
      ASSERT_TRUE(ping(t.client_tun, t.server_tun, true));
      t.stop_client();
      EXPECT_EQ(t.client_end(), SessionEnd::kStopped);
      ASSERT_TRUE(t.wait_server_end(5s)) << wire::to_string(carrier);
      EXPECT_EQ(t.server_end(), SessionEnd::kClosedByPeer);
    }
  }
}

}  // namespace
}  // namespace qeli::test
