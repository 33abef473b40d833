// Record protection against RFC 8448 §3's seven protected records (sealed byte for byte
// and opened in sequence), plus the §5.2/§5.4 rules: padding removed, bad type/zero
// plaintext/oversize refused, tampering detected, key limits enforced.
#include "tls/record_protection.h"

#include <gtest/gtest.h>

#include "tls/record_buffer.h"
#include "tls_test_util.h"

namespace qeli::tls {
namespace {

using test::hex;
using test::rfc8448;
using test::rfc8448_bytes;

Secret secret_of(const std::string& name) {
  return test::secret_hex(rfc8448()["secrets"][name].get<std::string>());
}

Bytes plaintext_of(const nlohmann::json& r) {
  const std::string p = r["plaintext"];
  if (p == "ee+cert+cv+sf") {
    Bytes b = rfc8448_bytes("encrypted_extensions");
    append(b, rfc8448_bytes("certificate"));
    append(b, rfc8448_bytes("certificate_verify"));
    append(b, rfc8448_bytes("server_finished"));
    return b;
  }
  if (p == "cf") return rfc8448_bytes("client_finished");
  if (p == "nst") return rfc8448_bytes("new_session_ticket");
  return hex(p);
}

TEST(TlsRecordProtection, Rfc8448RecordsSealAndOpenByteForByte) {
  constexpr auto kSuite = CipherSuite::kAes128GcmSha256;
  // Records under one secret are taken in sequence order, so one object per secret.
  const char* order[] = {"server_handshake", "client_finished", "server_ticket", "client_data",
                         "server_data",      "client_alert",    "server_alert"};
  std::map<std::string, std::pair<RecordProtection, RecordProtection>> dirs;
  for (const char* name : order) {
    const auto& r = rfc8448()["records"][name];
    const std::string sname = r["secret"];
    auto it = dirs.find(sname);
    if (it == dirs.end()) {
      it = dirs.emplace(sname, std::make_pair(RecordProtection(kSuite, secret_of(sname)),
                                              RecordProtection(kSuite, secret_of(sname))))
               .first;
    }
    auto& [sealer, opener] = it->second;
    ASSERT_EQ(sealer.sequence(), r["seq"].get<std::uint64_t>()) << name;
    const Bytes pt = plaintext_of(r);
    Bytes buf(kSealHead + pt.size() + seal_tail(0));
    std::copy(pt.begin(), pt.end(), buf.begin() + kSealHead);
    auto n = sealer.seal(buf, pt.size(), static_cast<ContentType>(r["type"].get<int>()));
    ASSERT_TRUE(n.ok()) << name;
    buf.resize(*n);
    Bytes want = hex(r["header"].get<std::string>());
    append(want, hex(r["body"].get<std::string>()));
    EXPECT_EQ(to_hex(buf), to_hex(want)) << name;

    auto opened = opener.open(want);
    ASSERT_TRUE(opened.ok()) << name;
    EXPECT_EQ(static_cast<int>(opened->type), r["type"].get<int>()) << name;
    EXPECT_EQ(to_hex(opened->content), to_hex(pt)) << name;
  }
}

struct Pair {
  RecordProtection seal, open;
};
Pair pair_for(CipherSuite s) {
  const Secret k(Bytes(crypto::digest_size(hash_of(s)), 7));
  return {RecordProtection(s, k), RecordProtection(s, k)};
}

Bytes seal(RecordProtection& p, ByteSpan content, ContentType t, std::size_t pad) {
  Bytes buf(kSealHead + content.size() + seal_tail(pad));
  std::copy(content.begin(), content.end(), buf.begin() + kSealHead);
  auto n = p.seal(buf, content.size(), t, pad);
  EXPECT_TRUE(n.ok());
  buf.resize(n.ok() ? *n : 0);
  return buf;
}

TEST(TlsRecordProtection, EverySuiteRoundTripsWithPaddingHidden) {
  for (CipherSuite s : {CipherSuite::kAes128GcmSha256, CipherSuite::kAes256GcmSha384,
                        CipherSuite::kChaCha20Poly1305Sha256}) {
    Pair p = pair_for(s);
    const Bytes msg = {1, 2, 3, 0, 0};  // trailing zeros in the content survive
    Bytes rec = seal(p.seal, msg, ContentType::kApplicationData, 100);
    EXPECT_EQ(rec.size(), 5 + msg.size() + 1 + 100 + 16);
    auto o = p.open.open(rec);
    ASSERT_TRUE(o.ok()) << to_string(s);
    EXPECT_EQ(o->type, ContentType::kApplicationData);
    EXPECT_EQ(to_hex(o->content), to_hex(msg));
    // Empty application data is allowed (§5.4), an empty handshake record is not.
    Bytes empty = seal(p.seal, {}, ContentType::kApplicationData, 0);
    auto e = p.open.open(empty);
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(e->content.empty());
    Bytes bad = seal(p.seal, {}, ContentType::kHandshake, 3);
    auto b = p.open.open(bad);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error(), TlsError::kUnexpectedMessage);
  }
}

TEST(TlsRecordProtection, RefusesWhatSection5Forbids) {
  Pair p = pair_for(CipherSuite::kAes128GcmSha256);
  // All-zero inner plaintext (no type byte): unexpected_message.
  {
    Bytes rec = seal(p.seal, {}, ContentType::kInvalid, 4);
    auto o = p.open.open(rec);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error(), TlsError::kUnexpectedMessage);
  }
  // A CCS inside protection: unexpected_message.
  {
    const Bytes one = {1};
    Bytes rec = seal(p.seal, one, ContentType::kChangeCipherSpec, 0);
    auto o = p.open.open(rec);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error(), TlsError::kUnexpectedMessage);
  }
  // Tampering anywhere (header included) fails authentication; the sequence stays put.
  {
    const Bytes msg(50, 9);
    Bytes rec = seal(p.seal, msg, ContentType::kApplicationData, 0);
    for (std::size_t i : {std::size_t{3}, std::size_t{10}, rec.size() - 1}) {
      Bytes t = rec;
      t[i] ^= 1;
      const auto seq = p.open.sequence();
      auto o = p.open.open(t);
      ASSERT_FALSE(o.ok());
      EXPECT_EQ(p.open.sequence(), seq);
    }
    EXPECT_TRUE(p.open.open(rec).ok());
  }
  // Inner plaintext over 2^14 + 1: the sender refuses (record_overflow).
  {
    Bytes big(kSealHead + kMaxPlaintext + seal_tail(1));
    auto n = p.seal.seal(big, kMaxPlaintext, ContentType::kApplicationData, 1);
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(n.error(), TlsError::kRecordOverflow);
    auto full = p.seal.seal(big, kMaxPlaintext, ContentType::kApplicationData, 0);
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(*full, kMaxRecordSize);
  }
}

TEST(TlsRecordProtection, RekeyResetsSequenceAndChangesKey) {
  Pair p = pair_for(CipherSuite::kChaCha20Poly1305Sha256);
  const Bytes msg = {5};
  Bytes r1 = seal(p.seal, msg, ContentType::kApplicationData, 0);
  const Secret next(Bytes(32, 8));
  p.seal.rekey(next);
  EXPECT_EQ(p.seal.sequence(), 0u);
  Bytes r2 = seal(p.seal, msg, ContentType::kApplicationData, 0);
  ASSERT_TRUE(p.open.open(r1).ok());
  Bytes r2_copy = r2;                       // a failed open leaves garbage in place
  EXPECT_FALSE(p.open.open(r2_copy).ok());  // still the old key
  p.open.rekey(next);
  EXPECT_TRUE(p.open.open(r2).ok());
}

TEST(TlsRecordProtection, LimitsFollowSection5_5) {
  EXPECT_EQ(record_limit_of(CipherSuite::kAes128GcmSha256), std::uint64_t{1} << 24);
  EXPECT_EQ(record_limit_of(CipherSuite::kAes256GcmSha384), std::uint64_t{1} << 24);
  EXPECT_GT(record_limit_of(CipherSuite::kChaCha20Poly1305Sha256), std::uint64_t{1} << 62);
  // 2^24.5 full-size records is the RFC's AES-GCM bound: ours stays below it.
  EXPECT_LT(static_cast<double>(kAesGcmRecordLimit), 23726566.0);
}

TEST(TlsRecordBuffer, DeframesSplitAndCoalescedRecordsAndRejectsBadHeaders) {
  const Bytes a = {0x16, 0x03, 0x03, 0x00, 0x02, 0xAA, 0xBB};
  const Bytes b = {0x17, 0x03, 0x03, 0x00, 0x01, 0xCC};
  Bytes both = a;
  append(both, b);
  RecordBuffer rb;
  // Byte by byte: nothing until the record is complete.
  for (std::size_t i = 0; i < a.size() - 1; ++i) {
    ASSERT_TRUE(rb.append(ByteSpan(&both[i], 1)).ok());
    auto r = rb.next();
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value());
  }
  ASSERT_TRUE(rb.append(ByteSpan(both).subspan(a.size() - 1)).ok());
  auto r1 = rb.next();
  ASSERT_TRUE(r1.ok() && r1->has_value());
  EXPECT_EQ((*r1)->type, ContentType::kHandshake);
  EXPECT_EQ(to_hex((*r1)->body()), "aabb");
  auto r2 = rb.next();
  ASSERT_TRUE(r2.ok() && r2->has_value());
  EXPECT_EQ(to_hex((*r2)->body()), "cc");

  const struct {
    Bytes header;
    TlsError want;
  } bad[] = {
      {{0x18, 0x03, 0x03, 0x00, 0x01}, TlsError::kUnexpectedMessage},  // unknown type
      {{0x16, 0x02, 0x00, 0x00, 0x01}, TlsError::kProtocolVersion},    // not 03 xx
      {{0x16, 0x03, 0x03, 0x00, 0x00}, TlsError::kDecode},             // empty handshake
      {{0x16, 0x03, 0x03, 0x40, 0x01}, TlsError::kRecordOverflow},     // plaintext > 2^14
      {{0x17, 0x03, 0x03, 0x41, 0x01}, TlsError::kRecordOverflow},     // > 2^14 + 256
  };
  for (const auto& c : bad) {
    RecordBuffer x;
    ASSERT_TRUE(x.append(c.header).ok());
    auto r = x.next();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), c.want);
  }
}

}  // namespace
}  // namespace qeli::tls
