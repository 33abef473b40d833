// WireDatagramEnvelope: the data path's QUIC short header and obfs seal, in place, for
// every combination of the two layers; checked against the wire parsers (a separate
// UdpObfs with the same key, parse_quic), and end to end over loopback UDP sockets with
// a tunnel::Sender / Receiver pair behind DatagramFramers.
#include <poll.h>

#include <gtest/gtest.h>

#include <cstring>

#include "engine/wire_datagram_envelope.h"
#include "fakes/datagram_ends.h"
#include "fakes/packet_builder.h"
#include "fakes/udp_loopback.h"

namespace qeli::engine {
namespace {

crypto::Key32 obfs_key() { return wire::derive_obfs_key("test-psk"); }

wire::UdpEnvelope quic_env(bool quic) {
  wire::UdpEnvelope e;
  e.quic = quic;
  e.cid = {0xa1, 0xb2, 0xc3, 0xd4};
  return e;
}

struct Layers {
  bool quic;
  bool obfs;
};

class EnvelopeLayers : public ::testing::TestWithParam<Layers> {};

TEST_P(EnvelopeLayers, WrapsInPlaceAndTheWireParsersReadItBack) {
  const auto [quic, obfs] = GetParam();
  crypto::DeterministicRng rng(3);
  const crypto::Key32 key = obfs_key();
  WireDatagramEnvelope send(quic_env(quic), obfs ? &key : nullptr, 2, rng);
  WireDatagramEnvelope recv(quic_env(quic), obfs ? &key : nullptr, 0, rng);
  EXPECT_EQ(send.headroom(), (obfs ? 13u : 0u) + (quic ? 9u : 0u));
  EXPECT_EQ(send.tailroom(), 0u);

  const Bytes record = {0x17, 0x03, 0x03, 0x00, 0x04, 9, 8, 7, 6};
  for (std::uint32_t n = 0; n < 3; ++n) {
    Bytes d(send.headroom() + record.size());
    std::memcpy(d.data() + send.headroom(), record.data(), record.size());
    send.wrap(d);
    if (obfs) {
      EXPECT_NE(Bytes(d.end() - 9, d.end()), record) << "the seal left the record in clear";
    }
    // What a peer's wire layer sees: the seal opens with the key, then a short header
    // with our CID and a packet number counting from 2.
    Bytes copy = d;
    wire::UdpObfs peer_obfs(key);
    wire::UdpEnvelope peer = quic_env(quic);
    peer.obfs = obfs ? &peer_obfs : nullptr;
    auto opened = wire::open_datagram(peer, copy);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(Bytes(opened->inner.begin(), opened->inner.end()), record);
    if (quic) {
      EXPECT_FALSE(opened->long_header);
      EXPECT_EQ(opened->pn, 2 + n);
      EXPECT_EQ(opened->peer_cid, quic_env(true).cid);
    }
    auto inner = recv.unwrap(d);
    ASSERT_TRUE(inner.has_value());
    EXPECT_EQ(Bytes(inner->begin(), inner->end()), record);
  }
  EXPECT_EQ(send.next_packet_number(), quic ? 5u : 2u) << "only the QUIC shape numbers datagrams";
}

INSTANTIATE_TEST_SUITE_P(All, EnvelopeLayers,
                         ::testing::Values(Layers{false, false}, Layers{true, false},
                                           Layers{false, true}, Layers{true, true}));

TEST(WireDatagramEnvelope, RejectsWhatIsNotWrapped) {
  crypto::DeterministicRng rng(4);
  const crypto::Key32 key = obfs_key();
  WireDatagramEnvelope quic(quic_env(true), nullptr, 0, rng);
  Bytes bare = {0x17, 0x03, 0x03, 0x00, 0x01, 0};
  EXPECT_FALSE(quic.unwrap(bare).has_value()) << "a bare record is not a QUIC-shaped datagram";
  WireDatagramEnvelope sealed(quic_env(false), &key, 0, rng);
  Bytes short_one(12, 0x40);
  EXPECT_FALSE(sealed.unwrap(short_one).has_value()) << "shorter than the 13-byte seal";
  Bytes bad_flag(40, 0x17);
  EXPECT_FALSE(sealed.unwrap(bad_flag).has_value()) << "flag bits are not 01";
}

// The whole data path with both layers on, over loopback: writer and receiver each with
// their own envelope (and UdpObfs), as a client's send thread and receive loop have.
TEST(WireDatagramEnvelope, CarriesADataPathWithBothLayers) {
  crypto::DeterministicRng rng(5);
  const crypto::Key32 key = obfs_key();
  const crypto::Key32 aead_key;
  const std::array<std::uint8_t, 4> seed = {4, 3, 2, 1};
  WireDatagramEnvelope send_env(quic_env(true), &key, 2, rng);
  WireDatagramEnvelope recv_env(quic_env(true), &key, 0, rng);
  tunnel::SessionCounters sent, got;
  const tunnel::PaddingPolicy pad{true, 16, 64, true, 1.0};
  test::DatagramTx writer(wire::PacketCodec(wire::Framing::kTls, aead_key.span(), seed), pad, 1400,
                          rng, sent, send_env);
  test::DatagramRx receiver(wire::PacketCodec(wire::Framing::kTls, aead_key.span(), seed), got,
                            recv_env);
  auto a = test::loopback_udp(true);
  auto b = test::loopback_udp(true);
  const auto a_addr = a.local_address();
  const auto b_addr = b.local_address();
  tunio::PacketBatch out(16, 1400 + test::DatagramTx::tailroom(pad, send_env),
                         test::DatagramTx::headroom(send_env));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(out.push(test::udp4(200 + static_cast<std::size_t>(i))));
  StopSignal stop;
  ASSERT_EQ(writer.send(a, b_addr, out, stop), WriteStatus::kOk);
  EXPECT_EQ(send_env.next_packet_number(), 12u);
  auto in = DatagramSource::make_batch(64);
  std::size_t packets = 0;
  while (packets < 10) {
    pollfd p{b.fd(), POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) break;
    in.clear();
    auto r = receiver.receive(b, a_addr, in);
    if (r.ok()) packets += *r;
  }
  EXPECT_EQ(packets, 10u);
  EXPECT_EQ(got.get(tunnel::SessionCounter::kRxPackets), 10u);
  EXPECT_EQ(receiver.drops().total(), 0u);
}

}  // namespace
}  // namespace qeli::engine
