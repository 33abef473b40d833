// The AES-256-GCM switch of the data records (our extension, caps::kAesGcm;
// wire/record_aead.h, docs/PROTOCOL.md §18): a sender that switches mid-session, a
// receiver that takes both AEADs across the switch with a stream's rules (exact) and
// with datagrams' (reordering, bounded by the replay window).
#include <openssl/evp.h>

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "base/endian.h"
#include "crypto/nonce_prp.h"
#include "wire/packet_codec.h"

namespace qeli::wire {
namespace {

constexpr std::array<std::uint8_t, 4> kSeed = {9, 8, 7, 6};

std::array<std::uint8_t, 32> key_bytes() {
  std::array<std::uint8_t, 32> k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(0x40 + i);
  return k;
}

struct Link {
  explicit Link(Framing f = Framing::kTls) : tx(f, key_bytes(), kSeed), rx(f, key_bytes(), kSeed) {}
  PacketCodec tx;
  PacketCodec rx;

  /// A record carrying `n` bytes of a pattern that names its counter.
  Bytes seal(std::size_t n = 200) {
    Bytes data(n);
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>(tx.send_counter() + i);
    Bytes rec(record_size(tx.framing(), n, 4));
    EXPECT_TRUE(tx.seal(data, 4, rec).ok());
    return rec;
  }
};

/// Opens a copy of `rec`; the counter, or the error.
Result<std::uint64_t, OpenError> open(PacketCodec& rx, const Bytes& rec) {
  Bytes copy = rec;
  auto r = rx.open_in_place(copy);
  if (!r.ok()) return fail(r.error());
  // The data is intact, whichever AEAD opened it.
  for (std::size_t i = 0; i < r->data.size(); ++i) {
    EXPECT_EQ(r->data[i], static_cast<std::uint8_t>(r->counter + i)) << "byte " << i;
  }
  return r->counter;
}

/// The AES-256-GCM key of key_bytes() (HKDF-SHA256, info "qeli aes-256-gcm"), computed
/// outside qeli with Python's hmac/hashlib (docs/PROTOCOL.md §18).
constexpr std::string_view kAesKeyHex =
    "c1da8430519cabff4c4cfb4560cd65ae3b2362c8a2bf5575e9c25ee14dba90a2";

/// A valid ChaCha20-Poly1305 record of the same direction with `counter`: what a peer
/// that fell back, or someone forcing the old AEAD, would send.
Bytes forced_chacha(std::uint64_t counter) {
  PacketCodec forced(Framing::kTls, key_bytes(), kSeed);
  forced.set_send_counter_for_test(counter);
  const Bytes data(50, 1);
  Bytes rec(record_size(Framing::kTls, data.size(), 0));
  EXPECT_TRUE(forced.seal(data, 0, rec).ok());
  return rec;
}

TEST(PacketCodecAes, ARecordAfterTheSwitchIsAes256GcmUnderTheDerivedKey) {
  Link l;
  EXPECT_EQ(l.tx.send_aead(), RecordAeadKind::kChaCha20Poly1305);
  (void)l.seal();
  l.tx.set_send_aes();
  EXPECT_EQ(l.tx.send_aead(), RecordAeadKind::kAes256Gcm);
  const Bytes rec = l.seal(100);
  // Decrypt it with nothing of ours: EVP AES-256-GCM, the key computed outside, the wire
  // nonce.
  const Bytes aes_key = from_hex(kAesKeyHex).value();
  const std::size_t hdr = header_size(Framing::kTls);
  const std::size_t pt_len = rec.size() - hdr - kNonceSize - kTagSize;
  Bytes pt(pt_len);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int n = 0;
  ASSERT_EQ(EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), nullptr, aes_key.data(), rec.data() + hdr), 1);
  ASSERT_EQ(
      EVP_DecryptUpdate(c, pt.data(), &n, rec.data() + hdr + kNonceSize, static_cast<int>(pt_len)),
      1);
  ASSERT_EQ(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16,
                                const_cast<std::uint8_t*>(rec.data() + rec.size() - kTagSize)),
            1);
  EXPECT_EQ(EVP_DecryptFinal_ex(c, pt.data() + n, &n), 1) << "not AES-256-GCM under that key";
  EVP_CIPHER_CTX_free(c);
  EXPECT_EQ(load_be64(pt.data()), 1U) << "the counter kept counting across the switch";
  EXPECT_EQ(pt[kCounterSize], 1U);  // data byte 0 = counter + 0
  // The nonce is still the PRP of seed ‖ counter (keyed by the ChaCha key).
  const crypto::NoncePrp prp(key_bytes());
  const auto nonce = prp.permute(kSeed, 1);
  EXPECT_TRUE(std::equal(nonce.begin(), nonce.end(), rec.begin() + static_cast<long>(hdr)));
}

TEST(PacketCodecAes, ReceiverWithoutTheExtensionRefusesAesRecords) {
  Link l;
  l.tx.set_send_aes();
  EXPECT_EQ(open(l.rx, l.seal()).error(), OpenError::kAuthFailed);  // as a 0.7.16 peer would
}

TEST(PacketCodecAes, StreamChaChaThenAesThenOnlyAes) {
  Link l;
  l.rx.set_accept_aes(/*stream=*/true);
  // Accepting before the peer switched: ChaCha records open as before.
  for (std::uint64_t c = 0; c < 3; ++c) EXPECT_EQ(open(l.rx, l.seal()).value(), c);
  EXPECT_FALSE(l.rx.recv_aes_seen());
  l.tx.set_send_aes();
  for (std::uint64_t c = 3; c < 6; ++c) EXPECT_EQ(open(l.rx, l.seal()).value(), c);
  EXPECT_TRUE(l.rx.recv_aes_seen());
  EXPECT_TRUE(l.rx.recv_aes_only());
  // A ChaCha record after the first AES one is refused on a stream.
  EXPECT_EQ(open(l.rx, forced_chacha(6)).error(), OpenError::kAuthFailed);
  // And the session goes on with AES.
  EXPECT_EQ(open(l.rx, l.seal()).value(), 6U);
}

TEST(PacketCodecAes, StreamReceiverAcceptingAfterTheFirstAesRecordArrivesStillOpensIt) {
  // The other order: the sender's switch is already sealed when the receiver learns of it
  // (the server's receiver reads the client's capability frame, then its AES records).
  Link l;
  const Bytes chacha = l.seal();
  l.tx.set_send_aes();
  const Bytes aes = l.seal();
  EXPECT_EQ(open(l.rx, chacha).value(), 0U);
  l.rx.set_accept_aes(true);
  EXPECT_EQ(open(l.rx, aes).value(), 1U);
  EXPECT_TRUE(l.rx.recv_aes_only());
}

TEST(PacketCodecAes, RefusedAgainBeforeTheFirstAesRecordOnlyChaChaOpens) {
  // The server offered the bit, the client's capability frame said no: ChaCha only.
  Link l;
  l.rx.set_accept_aes(true);
  EXPECT_EQ(open(l.rx, l.seal()).value(), 0U);
  l.rx.set_refuse_aes();
  EXPECT_FALSE(l.rx.recv_accepts_aes());
  l.tx.set_send_aes();
  EXPECT_EQ(open(l.rx, l.seal()).error(), OpenError::kAuthFailed);
  // Once an AES record was taken, refusing changes nothing.
  Link m;
  m.rx.set_accept_aes(false);
  m.tx.set_send_aes();
  EXPECT_EQ(open(m.rx, m.seal()).value(), 0U);
  m.rx.set_refuse_aes();
  EXPECT_EQ(open(m.rx, m.seal()).value(), 1U);
}

TEST(PacketCodecAes, TamperedAesRecordsAreRefusedBeforeAndAfterTheSwitch) {
  for (const bool stream : {true, false}) {
    Link l(stream ? Framing::kRaw : Framing::kTls);
    l.rx.set_accept_aes(stream);
    l.tx.set_send_aes();
    for (int round = 0; round < 2; ++round) {  // round 0: both taken; round 1: AES seen
      const Bytes rec = l.seal();
      const std::size_t hdr = header_size(l.rx.framing());
      for (const std::size_t at : {hdr, hdr + kNonceSize + 3, rec.size() - 1}) {
        Bytes bad = rec;
        bad[at] ^= 0x20;  // the nonce, the ciphertext, the tag
        EXPECT_EQ(open(l.rx, bad).error(), OpenError::kAuthFailed) << stream << " @" << at;
      }
      // The failed trials left nothing behind: the genuine record still opens, once.
      EXPECT_TRUE(open(l.rx, rec).ok()) << stream << " round " << round;
      EXPECT_EQ(open(l.rx, rec).error(), OpenError::kReplay);
    }
  }
}

TEST(PacketCodecAes, DatagramReorderedChaChaWithinTheWindowThenRefused) {
  Link l;
  l.rx.set_accept_aes(/*stream=*/false);
  std::vector<Bytes> chacha;
  for (int i = 0; i < 4; ++i) chacha.push_back(l.seal());  // counters 0..3
  l.tx.set_send_aes();
  EXPECT_EQ(open(l.rx, chacha[0]).value(), 0U);
  EXPECT_EQ(open(l.rx, l.seal()).value(), 4U);  // AES overtook ChaCha 1..3
  EXPECT_EQ(open(l.rx, l.seal()).value(), 5U);
  EXPECT_TRUE(l.rx.recv_aes_seen());
  EXPECT_FALSE(l.rx.recv_aes_only());
  EXPECT_EQ(open(l.rx, chacha[2]).value(), 2U);  // late, but sealed before the switch: taken
  EXPECT_EQ(open(l.rx, chacha[2]).error(), OpenError::kReplay);
  // A ChaCha record with a counter at or above the peer's AES ones cannot be from before
  // its switch: refused although it authenticates.
  EXPECT_EQ(open(l.rx, forced_chacha(7)).error(), OpenError::kAuthFailed);
  // Run the AES counters on (6..2049): counter 3 is still inside the replay window.
  for (std::uint64_t c = 6; c < 2050; ++c) ASSERT_TRUE(open(l.rx, l.seal(20)).ok()) << c;
  EXPECT_FALSE(l.rx.recv_aes_only());
  EXPECT_EQ(open(l.rx, chacha[3]).value(), 3U);
  EXPECT_EQ(open(l.rx, l.seal(20)).value(), 2050U);
  EXPECT_FALSE(l.rx.recv_aes_only());  // top − 3 = 2047: a counter 3 could still pass
  EXPECT_EQ(open(l.rx, l.seal(20)).value(), 2051U);
  // top − 3 = 2048: no counter below the lowest AES one (4) can pass the window: AES only.
  EXPECT_TRUE(l.rx.recv_aes_only());
  EXPECT_EQ(open(l.rx, chacha[1]).error(), OpenError::kAuthFailed);
}

TEST(PacketCodecAes, DatagramAesOverReorderedAesKeepsTheLowestSwitchCounter) {
  Link l;
  l.rx.set_accept_aes(false);
  const Bytes c0 = l.seal();
  const Bytes c1 = l.seal();
  l.tx.set_send_aes();
  const Bytes a2 = l.seal();
  const Bytes a3 = l.seal();
  EXPECT_EQ(open(l.rx, a3).value(), 3U);
  EXPECT_EQ(open(l.rx, a2).value(), 2U);  // an older AES record lowers the switch point
  EXPECT_EQ(open(l.rx, c1).value(), 1U);
  EXPECT_EQ(open(l.rx, c0).value(), 0U);
}

}  // namespace
}  // namespace qeli::wire
