#include "wire/udp_envelope.h"

#include <gtest/gtest.h>

#include "wire/udp_frag.h"

namespace qeli::wire {
namespace {

TEST(UdpEnvelope, EveryLayerCombinationRoundTrips) {
  UdpObfs key("psk");
  crypto::DeterministicRng rng(11);
  const Bytes inner = fragment_message(udp_msg::kClientHello, Bytes(1500, 0x16)).value()[0];
  for (bool quic : {false, true}) {
    for (bool obfs : {false, true}) {
      for (bool long_header : {false, true}) {
        SCOPED_TRACE(testing::Message() << quic << obfs << long_header);
        UdpEnvelope env{quic, {1, 2, 3, 4}, obfs ? &key : nullptr};
        Bytes d = env.wrap(inner, long_header, 7, rng);
        EXPECT_EQ(d.size(), inner.size() + env.overhead(long_header, inner.size()));
        if (!obfs) {
          EXPECT_EQ(looks_like_quic(d), quic && long_header);
        }
        auto o = open_datagram(env, d);
        ASSERT_TRUE(o.ok());
        EXPECT_EQ(Bytes(o->inner.begin(), o->inner.end()), inner);
        if (quic) {
          EXPECT_EQ(o->long_header, long_header);
          EXPECT_EQ(o->pn, 7U);
          EXPECT_EQ(o->peer_cid, env.cid);
        }
      }
    }
  }
  // The worst case of a full fragment: 6 + 1163 + 18 + 13 = 1200 bytes of UDP payload.
  UdpEnvelope full{true, {}, &key};
  EXPECT_EQ(full.overhead(true, kFragHeaderSize + kFragMaxChunk), 31U);
}

TEST(UdpEnvelope, MismatchedLayersAreRefused) {
  UdpObfs key("psk");
  crypto::DeterministicRng rng(12);
  const Bytes inner{0x17, 0x03, 0x03, 0x00, 0x00};
  UdpEnvelope bare{};
  Bytes d = bare.wrap(inner, false, 0, rng);
  EXPECT_EQ(open_datagram(UdpEnvelope{true, {}, nullptr}, d).error(), EnvelopeError::kQuic);
  d = bare.wrap(inner, false, 0, rng);
  EXPECT_EQ(open_datagram(UdpEnvelope{false, {}, &key}, d).error(), EnvelopeError::kObfs);
  Bytes tiny(5, 0x40);
  EXPECT_EQ(open_datagram(UdpEnvelope{false, {}, &key}, tiny).error(), EnvelopeError::kObfs);
}

}  // namespace
}  // namespace qeli::wire
