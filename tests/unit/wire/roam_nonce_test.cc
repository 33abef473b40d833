// Roaming connection ids in the record nonce (wire/roam_nonce.h, docs/PROTOCOL.md §20).
#include "wire/roam_nonce.h"

#include <gtest/gtest.h>

#include "fakes/test_keys.h"

#include <set>

#include "crypto/random.h"
#include "wire/packet_codec.h"
#include "wire/udp_envelope.h"
#include "wire/udp_obfs.h"

namespace qeli::wire {
namespace {

using test::key_of;

// A profile's roaming nonce key (what AUTH OK `x_roam_key` carries).
std::array<std::uint8_t, 32> pub_of(std::uint8_t base) {
  const crypto::Key32 k = roam_prp_key(key_of(static_cast<std::uint8_t>(base * 3)));
  std::array<std::uint8_t, 32> p{};
  std::copy(k.data(), k.data() + 32, p.begin());
  return p;
}

TEST(NoncePrpInverse, InvertsEveryPermutation) {
  const crypto::Key32 k = key_of(9);
  const crypto::NoncePrp prp(crypto::NoncePrp::FromPrpKey{}, k.span());
  crypto::DeterministicRng rng(4);
  for (int i = 0; i < 200; ++i) {
    std::array<std::uint8_t, 12> block;
    rng.fill(block);
    const auto n = prp.permute_block(block);
    EXPECT_FALSE(std::equal(n.begin(), n.end(), block.begin()));
    EXPECT_EQ(prp.invert_block(n), block);
  }
}

TEST(RoamPrpKey, ComesFromTheStaticPrivateKeyOnly) {
  const crypto::Key32 a = roam_prp_key(key_of(1));
  EXPECT_TRUE(std::equal(a.data(), a.data() + 32, roam_prp_key(key_of(1)).data()));
  EXPECT_FALSE(std::equal(a.data(), a.data() + 32, roam_prp_key(key_of(2)).data()));
}

TEST(RoamCid, DependsOnSecretAndEpoch) {
  const crypto::Key32 a = key_of(1), b = key_of(2);
  EXPECT_EQ(roam_cid(a, 0), roam_cid(a, 0));
  std::set<RoamCid> seen;
  for (std::uint32_t e = 0; e < 64; ++e) {
    EXPECT_TRUE(seen.insert(roam_cid(a, e)).second) << e;
    EXPECT_TRUE(seen.insert(roam_cid(b, e)).second) << e;
  }
}

TEST(RoamNonces, TheServerReadsTheCidAndTheLowCounter) {
  const crypto::Key32 secret = key_of(5);
  const auto pub = pub_of(1);
  RoamNonces tx(secret, pub);
  const crypto::NoncePrp server_prp(crypto::NoncePrp::FromPrpKey{}, pub);
  for (std::uint64_t c : {0ULL, 1ULL, 77ULL, 0xFFFFFFFFULL}) {
    const RoamId id = read_roam_id(server_prp, tx.nonce(c));
    EXPECT_EQ(id.cid, roam_cid(secret, 0)) << c;
    EXPECT_EQ(id.low_counter, static_cast<std::uint32_t>(c));
  }
  // Past 2^32 records the epoch moves on, so no (cid, low counter) pair repeats.
  EXPECT_EQ(read_roam_id(server_prp, tx.nonce(1ULL << 32)).cid, roam_cid(secret, 1));
  // A new path: the next CID at once.
  tx.next_path();
  EXPECT_EQ(read_roam_id(server_prp, tx.nonce(78)).cid, roam_cid(secret, 1));
  EXPECT_EQ(tx.epoch(78), 1U);
  EXPECT_EQ(tx.epoch((1ULL << 32) + 5), 2U);
  // Without the profile's key the nonce says nothing.
  const crypto::NoncePrp other(crypto::NoncePrp::FromPrpKey{}, pub_of(2));
  EXPECT_NE(read_roam_id(other, tx.nonce(79)).cid, roam_cid(secret, 1));
}

TEST(RoamNonces, NoncesNeverRepeatAcrossPathsAndCounters) {
  RoamNonces tx(key_of(3), pub_of(3));
  std::set<crypto::Nonce12> seen;
  std::uint64_t c = 0;
  for (int path = 0; path < 4; ++path) {
    for (int i = 0; i < 500; ++i) EXPECT_TRUE(seen.insert(tx.nonce(c++)).second);
    tx.next_path();
  }
}

// The receiver takes the nonce from the wire as it is: a roaming sender's records open
// with an ordinary codec (a server that never looks at the CID, or one before it does).
TEST(RoamNonces, RecordsOpenWithAnOrdinaryReceiver) {
  crypto::DeterministicRng rng(8);
  const crypto::Key32 key = key_of(11);
  PacketCodec tx(Framing::kTls, key, rng);
  PacketCodec rx(Framing::kTls, key, rng);
  const auto pub = pub_of(4);
  tx.set_send_roam(std::make_unique<RoamNonces>(key_of(12), pub));
  const crypto::NoncePrp server_prp(crypto::NoncePrp::FromPrpKey{}, pub);
  Bytes buf(max_record_size(Framing::kTls));
  const Bytes data = {0x45, 0, 0, 20, 1, 2, 3, 4};
  for (std::uint64_t i = 0; i < 5; ++i) {
    auto n = tx.seal(data, 3, buf);
    ASSERT_TRUE(n.ok());
    const RoamId id =
        read_roam_id(server_prp, std::span<const std::uint8_t, 12>(buf.data() + 5, 12));
    EXPECT_EQ(id.cid, roam_cid(key_of(12), 0));
    EXPECT_EQ(id.low_counter, i);
    auto r = rx.open_in_place(MutableByteSpan(buf.data(), *n));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(Bytes(r->data.begin(), r->data.end()), data);
    EXPECT_EQ(r->counter, i);
  }
}

// What a server reads from a datagram of an unknown address: the CID through every
// envelope a client's data datagram can have, nothing from anything else.
TEST(RoamIdInDatagram, ThroughEveryEnvelopeAndNothingElse) {
  crypto::DeterministicRng rng(21);
  const crypto::Key32 key = key_of(30);
  const auto pub = pub_of(6);
  const crypto::NoncePrp server_prp(crypto::NoncePrp::FromPrpKey{}, pub);
  PacketCodec tx(Framing::kTls, key, rng);
  tx.set_send_roam(std::make_unique<RoamNonces>(key_of(31), pub));
  Bytes rec(max_record_size(Framing::kTls));
  const Bytes data(100, 0x45);
  auto n = tx.seal(data, 0, rec);
  ASSERT_TRUE(n.ok());
  rec.resize(*n);
  UdpObfs obfs_tx(std::string_view("roam-test-psk")), obfs_rx(std::string_view("roam-test-psk"));
  for (const bool quic : {false, true}) {
    for (UdpObfs* o : {static_cast<UdpObfs*>(nullptr), &obfs_tx}) {
      UdpEnvelope env{quic, {1, 2, 3, 4}, o};
      Bytes d = env.wrap(rec, false, 7, rng);
      const auto id = roam_id_in_datagram(d, o ? &obfs_rx : nullptr, server_prp);
      ASSERT_TRUE(id) << quic << " " << (o != nullptr);
      EXPECT_EQ(id->cid, roam_cid(key_of(31), 0));
      EXPECT_EQ(id->low_counter, 0U);
      // A long header (a handshake's) is never a roaming datagram.
      Bytes l = env.wrap(rec, true, 7, rng);
      if (quic) {
        EXPECT_FALSE(roam_id_in_datagram(l, o ? &obfs_rx : nullptr, server_prp));
      }
    }
  }
  Bytes cut(rec.begin(), rec.end() - 1);  // the length field no longer matches
  EXPECT_FALSE(roam_id_in_datagram(cut, nullptr, server_prp));
  Bytes frag = {0xF0, 0x9B, 0x71, 1, 0, 2};
  frag.resize(80, 0);
  EXPECT_FALSE(roam_id_in_datagram(frag, nullptr, server_prp));
  Bytes tiny = {0x17, 0x03, 0x03, 0x00, 0x01, 0x00};
  EXPECT_FALSE(roam_id_in_datagram(tiny, nullptr, server_prp));
  EXPECT_FALSE(roam_id_in_datagram(MutableByteSpan(), nullptr, server_prp));
}

}  // namespace
}  // namespace qeli::wire
