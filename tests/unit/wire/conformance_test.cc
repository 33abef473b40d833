// packet-decode.json: whole data records from the reference implementation, opened by our
// PacketCodec. Every case must be present and pass (a missing file or case fails).
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "base/endian.h"
#include "crypto/sha256.h"
#include "support/conformance.h"
#include "wire/packet_codec.h"

namespace qeli::wire {
namespace {

// Checks every case of packet-decode.json's `cases` by the kind of expectation it carries.
test::Tally check_packet_decode(const nlohmann::json& j) {
  test::Tally t;
  for (const auto& c : test::cases(j, "cases", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const test::Expect kind = test::expectation(c);
    t.count(kind);
    const Bytes key = test::hex_field(c, "key");
    if (key.size() != 32) {
      ADD_FAILURE() << "key is not 32 bytes";
      continue;
    }
    const std::string framing = c["framing"].get<std::string>();
    EXPECT_TRUE(framing == "tls" || framing == "raw");
    const std::array<std::uint8_t, 4> seed{};
    PacketCodec codec(framing == "tls" ? Framing::kTls : Framing::kRaw,
                      std::span<const std::uint8_t, 32>(key.data(), 32), seed);
    Bytes record = test::hex_field(c, "record");
    auto r = codec.open_in_place(record);
    if (kind == test::Expect::kReject) {
      EXPECT_FALSE(r.ok());
    } else if (kind == test::Expect::kAccept) {
      if (!r.ok()) {
        ADD_FAILURE() << to_string(r.error());
        continue;
      }
      EXPECT_EQ(to_hex(r->data), c["expect"]["plaintext"].get<std::string>());
      EXPECT_EQ(r->counter, c["expect"]["counter"].get<std::uint64_t>());
    } else {
      ADD_FAILURE() << "a record is opened or refused, never " << test::to_string(kind);
    }
  }
  return t;
}

TEST(conformance, packet_decode) {
  const auto j = test::load_conformance("packet-decode.json");
  test::require_ids(j, "cases",
                    {"packet-decode/cases/00", "packet-decode/cases/01", "packet-decode/cases/04",
                     "packet-decode/cases/05", "packet-decode/cases/06", "packet-decode/cases/07"});
  const auto t = check_packet_decode(j);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), j["cases"].size());
  EXPECT_GE(t.accept, 2);
  EXPECT_GE(t.reject, 4);
}

// A newer reference may add cases: the test counts by kind, it never pins totals.
TEST(conformance, packet_decode_accepts_a_superset) {
  const auto j = test::load_conformance("packet-decode.json");
  auto extra_accept = j["cases"][0];
  extra_accept["id"] = "superset/accept";
  auto extra_reject = j["cases"][0];
  extra_reject["id"] = "superset/reject";
  std::string rec = extra_reject["record"].get<std::string>();
  rec += "00";  // a trailing byte: the record no longer consumes the buffer exactly
  extra_reject["record"] = rec;
  extra_reject["expect"] = {{"reject", true}};
  const auto big = test::with_extra_cases(j, "cases", {extra_accept, extra_reject});
  const auto t = check_packet_decode(big);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), big["cases"].size());
  EXPECT_GE(t.accept, 3);
  EXPECT_GE(t.reject, 5);
}

// The reference vectors pin the record layout and the AEAD, not how the sender chose its
// nonce (their nonces do not invert to seed ‖ counter under the key-derived PRP key, so
// the generator supplied them). We pin our side instead: inverting the Feistel network
// (independently of crypto::NoncePrp) on our wire nonce must give back seed ‖ counter.
std::array<std::uint8_t, 12> invert_prp(ByteSpan key, ByteSpan nonce) {
  const crypto::Digest32 prp_key = crypto::sha256({as_bytes("qeli-nonce-prp-v1"), key});
  std::array<std::uint8_t, 6> l{}, r{};
  std::copy(nonce.begin(), nonce.begin() + 6, l.begin());
  std::copy(nonce.begin() + 6, nonce.begin() + 12, r.begin());
  for (int round = 3; round >= 0; --round) {
    // forward: (L, R) -> (R, L ^ F(R)); backward: (L', R') -> (R' ^ F(L'), L').
    const std::uint8_t idx = static_cast<std::uint8_t>(round);
    const crypto::Digest32 f = crypto::sha256({ByteSpan(prp_key), ByteSpan(&idx, 1), ByteSpan(l)});
    std::array<std::uint8_t, 6> prev_l{};
    for (std::size_t i = 0; i < 6; ++i) prev_l[i] = static_cast<std::uint8_t>(r[i] ^ f[i]);
    r = l;
    l = prev_l;
  }
  std::array<std::uint8_t, 12> raw{};
  std::copy(l.begin(), l.end(), raw.begin());
  std::copy(r.begin(), r.end(), raw.begin() + 6);
  return raw;
}

TEST(conformance, packet_sealed_nonce_is_prp_of_seed_and_counter) {
  const auto j = test::load_conformance("packet-decode.json");
  const Bytes key = test::hex_field(test::cases(j, "cases", 6)[0], "key");
  ASSERT_EQ(key.size(), 32U);
  const std::array<std::uint8_t, 4> seed{0xaa, 0xbb, 0xcc, 0xdd};
  PacketCodec codec(Framing::kTls, std::span<const std::uint8_t, 32>(key.data(), 32), seed);
  Bytes rec(record_size(Framing::kTls, 10, 0));
  for (std::uint64_t counter = 0; counter < 3; ++counter) {
    ASSERT_TRUE(codec.seal(as_bytes("hello qeli"), 0, rec).ok());
    const auto raw = invert_prp(key, ByteSpan(rec).subspan(kTlsHeaderSize, kNonceSize));
    EXPECT_EQ(to_hex(ByteSpan(raw).first(4)), "aabbccdd");
    EXPECT_EQ(load_be64(raw.data() + 4), counter);
  }
}

}  // namespace
}  // namespace qeli::wire
