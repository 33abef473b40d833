// The Chromium 156 ClientHello we build, compared with the real captures in
// shared/fixtures/chrome-clienthello/ (every chromium-*.hex there, so more captures can be
// dropped in): the same JA4 / JA4_r, the same JA3 once extension order is ignored, the
// same extension set with GREASE first and last, byte-identical bodies for every
// extension that does not vary per connection, the GREASE rules, the key-share layout
// with two independent X25519 keys, the ECH GREASE header and payload sizes, a uniform
// extension permutation, and a record-length distribution that fits the captures'.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "crypto/random.h"
#include "tls/client_hello.h"
#include "tls/client_hello_builder.h"
#include "tls/constants.h"
#include "tls/fingerprint.h"
#include "tls/hello_writer.h"
#include "tls_test_util.h"

namespace qeli::tls {
namespace {

// ClientHelloInfo views into `record` (spans), so the record must outlive it: a
// temporary is refused at compile time.
ClientHelloInfo parse_record(Bytes&&) = delete;
ClientHelloInfo parse_record(const Bytes& record) {
  auto ch = parse_client_hello(ByteSpan(record).subspan(kRecordHeaderSize));
  EXPECT_TRUE(ch.ok()) << (ch.ok() ? "" : to_string(ch.error()));
  return ch.ok() ? std::move(*ch) : ClientHelloInfo{};
}

// An extension body with every GREASE value in a u16 list masked, so bodies that differ
// only by their GREASE draw compare equal.
std::string masked_body(const Extension& e) {
  Bytes b(e.data.begin(), e.data.end());
  auto mask_from = [&](std::size_t start) {
    for (std::size_t i = start; i + 1 < b.size(); i += 2) {
      if (is_grease(static_cast<std::uint16_t>((b[i] << 8) | b[i + 1]))) b[i] = b[i + 1] = 0xEE;
    }
  };
  if (e.type == ext::kSupportedGroups || e.type == ext::kSignatureAlgorithms) mask_from(2);
  if (e.type == ext::kSupportedVersions) mask_from(1);
  return to_hex(b);
}

// Extensions whose bodies vary per connection by design (checked separately).
bool varies(std::uint16_t t) {
  return t == ext::kKeyShare || t == ext::kEncryptedClientHello || is_grease(t);
}

struct Reference {
  std::vector<ClientHelloInfo> hellos;
  std::vector<Bytes> records;
  std::string sni;
  std::set<std::size_t> lengths;
  std::map<std::uint16_t, std::string> bodies;  // masked, for the non-varying extensions
};

const Reference& reference() {
  static const Reference r = [] {
    Reference ref;
    for (const auto& c : test::captures("chromium-")) {
      ref.records.push_back(c.record);
      ref.hellos.push_back(parse_record(ref.records.back()));
    }
    ref.sni = std::string(ref.hellos.front().server_name.value_or(""));
    for (std::size_t i = 0; i < ref.hellos.size(); ++i) {
      ref.lengths.insert(ref.records[i].size());
      for (const Extension& e : ref.hellos[i].extensions) {
        if (!varies(e.type)) ref.bodies[e.type] = masked_body(e);
      }
    }
    return ref;
  }();
  return r;
}

BuiltClientHello build(std::uint64_t seed, std::string_view sni,
                       HelloProfile profile = HelloProfile::kChromium156) {
  crypto::DeterministicRng rng(seed);
  ClientHelloParams p;
  p.profile = profile;
  p.server_name = sni;
  p.session_id.fill(0x5A);
  p.aes_hardware = true;
  return build_client_hello(p, rng);
}

std::set<std::uint16_t> ext_set(const ClientHelloInfo& ch) {
  std::set<std::uint16_t> s;
  for (const Extension& e : ch.extensions) {
    if (!is_grease(e.type)) s.insert(e.type);
  }
  return s;
}

// JA3 with the extension list sorted (what some sites call JA3N): constant for Chrome.
std::string ja3_sorted(const ClientHelloInfo& ch) {
  ClientHelloInfo c = ch;
  std::sort(c.extensions.begin(), c.extensions.end(),
            [](const Extension& a, const Extension& b) { return a.type < b.type; });
  return ja3_string(c);
}

constexpr int kHellos = 300;

TEST(ChromiumHello, FingerprintsAndExtensionSetMatchTheCaptures) {
  const Reference& ref = reference();
  ASSERT_FALSE(ref.hellos.empty());
  std::set<std::string> want_ja4, want_ja4r, want_ja3n;
  std::set<std::set<std::uint16_t>> want_sets;
  std::set<std::vector<std::uint16_t>> want_ciphers_no_grease;
  for (const auto& h : ref.hellos) {
    want_ja4.insert(ja4(h));
    want_ja4r.insert(ja4_r(h));
    want_ja3n.insert(ja3_sorted(h));
    want_sets.insert(ext_set(h));
  }
  // The captures agree among themselves on everything that must not vary.
  ASSERT_EQ(want_ja4.size(), 1u);
  ASSERT_EQ(want_ja4r.size(), 1u);
  ASSERT_EQ(want_ja3n.size(), 1u);
  ASSERT_EQ(want_sets.size(), 1u);
  EXPECT_EQ(*want_ja4.begin(), "t13d1517h2_8daaf6152771_cb7bf5808d99");

  std::set<std::string> ja3s;
  for (int i = 0; i < kHellos; ++i) {
    const BuiltClientHello b = build(1000 + i, ref.sni);
    const ClientHelloInfo ch = parse_record(b.record);
    EXPECT_EQ(ja4(ch), *want_ja4.begin());
    EXPECT_EQ(ja4_r(ch), *want_ja4r.begin());
    EXPECT_EQ(ja3_sorted(ch), *want_ja3n.begin());
    EXPECT_EQ(ext_set(ch), *want_sets.begin());
    EXPECT_EQ(ch.cipher_suites.size(), ref.hellos.front().cipher_suites.size());
    EXPECT_TRUE(std::equal(ch.cipher_suites.begin() + 1, ch.cipher_suites.end(),
                           ref.hellos.front().cipher_suites.begin() + 1));
    ja3s.insert(ja3(ch));
  }
  // JA3 follows the wire order, which Chrome shuffles: nearly every hello differs.
  EXPECT_GT(ja3s.size(), static_cast<std::size_t>(kHellos * 95 / 100));
}

TEST(ChromiumHello, FixedFieldsAndBodiesAreByteIdenticalToTheCaptures) {
  const Reference& ref = reference();
  for (int i = 0; i < 50; ++i) {
    const BuiltClientHello b = build(5000 + i, ref.sni);
    // Record layer 16 03 01, legacy_version 03 03, 32-byte session id, compression 01 00.
    EXPECT_EQ(to_hex(ByteSpan(b.record).first(3)), "160301");
    const ClientHelloInfo ch = parse_record(b.record);
    EXPECT_EQ(ch.legacy_version, 0x0303);
    EXPECT_EQ(ch.session_id.size(), 32u);
    EXPECT_EQ(to_hex(ch.compression_methods), "00");
    EXPECT_EQ(to_hex(ch.random), to_hex(b.random));
    for (const Extension& e : ch.extensions) {
      if (varies(e.type)) continue;
      auto it = ref.bodies.find(e.type);
      ASSERT_NE(it, ref.bodies.end()) << std::hex << e.type;
      EXPECT_EQ(masked_body(e), it->second) << "extension 0x" << std::hex << e.type;
    }
  }
}

TEST(ChromiumHello, GreaseRulesHold) {
  const Reference& ref = reference();
  std::map<std::string, std::set<std::uint16_t>> seen;
  for (int i = 0; i < kHellos; ++i) {
    const BuiltClientHello b = build(9000 + i, ref.sni);
    const ClientHelloInfo ch = parse_record(b.record);
    const auto& ex = ch.extensions;
    ASSERT_EQ(ex.size(), 19u);
    // GREASE₁ first with an empty body, GREASE₂ last with one 00 byte, and they differ.
    EXPECT_TRUE(is_grease(ex.front().type));
    EXPECT_TRUE(ex.front().data.empty());
    EXPECT_TRUE(is_grease(ex.back().type));
    EXPECT_EQ(to_hex(ex.back().data), "00");
    EXPECT_NE(ex.front().type, ex.back().type);
    for (std::size_t k = 1; k + 1 < ex.size(); ++k) EXPECT_FALSE(is_grease(ex[k].type));
    // One GREASE at the front of suites, groups, sigalgs, versions; the group and the
    // key_share GREASE are the same value, its share a single 00 byte.
    EXPECT_TRUE(is_grease(ch.cipher_suites.front()));
    EXPECT_TRUE(is_grease(ch.supported_groups.front()));
    EXPECT_TRUE(is_grease(ch.signature_algorithms.front()));
    EXPECT_TRUE(is_grease(ch.supported_versions.front()));
    ASSERT_EQ(ch.key_shares.size(), 3u);
    EXPECT_EQ(ch.key_shares[0].group, ch.supported_groups.front());
    EXPECT_EQ(to_hex(ch.key_shares[0].key_exchange), "00");
    seen["cipher"].insert(ch.cipher_suites.front());
    seen["group"].insert(ch.supported_groups.front());
    seen["sigalg"].insert(ch.signature_algorithms.front());
    seen["version"].insert(ch.supported_versions.front());
    seen["ext1"].insert(ex.front().type);
    seen["ext2"].insert(ex.back().type);
  }
  // Every slot draws from all 16 values over 300 hellos.
  for (const auto& [slot, values] : seen) EXPECT_EQ(values.size(), 16u) << slot;
}

TEST(ChromiumHello, KeySharesAreSeparateAndEchGreaseHasChromeShape) {
  const Reference& ref = reference();
  // ECH header fields as captured (type 0, KDF 1, AEAD 1 on AES hardware, enc 32).
  for (const auto& h : ref.hellos) {
    const Extension* e = find_extension(h.extensions, ext::kEncryptedClientHello);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(to_hex(e->data.first(5)), "0000010001");
  }
  std::set<std::size_t> payloads;
  for (int i = 0; i < kHellos; ++i) {
    const BuiltClientHello b = build(13000 + i, ref.sni);
    const ClientHelloInfo ch = parse_record(b.record);
    const KeyShareEntry* hybrid = ch.key_share(group::kX25519MlKem768);
    const KeyShareEntry* x = ch.key_share(group::kX25519);
    ASSERT_TRUE(hybrid && x);
    EXPECT_EQ(ch.key_shares[1].group, group::kX25519MlKem768);  // order: GREASE, 11ec, 1d
    EXPECT_EQ(hybrid->key_exchange.size(), kHybridClientShareSize);
    EXPECT_EQ(x->key_exchange.size(), kX25519ShareSize);
    EXPECT_NE(to_hex(hybrid->key_exchange.last(32)), to_hex(x->key_exchange));
    EXPECT_EQ(to_hex(x->key_exchange), to_hex(b.keys.x25519.public_key));
    EXPECT_EQ(to_hex(hybrid->key_exchange), to_hex(b.keys.hybrid_share()));
    const Extension* e = find_extension(ch.extensions, ext::kEncryptedClientHello);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(to_hex(e->data.first(5)), "0000010001");
    EXPECT_EQ(to_hex(e->data.subspan(6, 2)), "0020");
    const std::size_t payload = (e->data[40] << 8) | e->data[41];
    EXPECT_EQ(e->data.size(), 42 + payload);
    payloads.insert(payload);
  }
  EXPECT_EQ(payloads, (std::set<std::size_t>{144, 176, 208, 240}));
  // Without AES instructions BoringSSL GREASEs ChaCha20 instead.
  crypto::DeterministicRng rng(1);
  ClientHelloParams p;
  p.server_name = ref.sni;
  p.aes_hardware = false;
  const BuiltClientHello b = build_client_hello(p, rng);
  const ClientHelloInfo ch = parse_record(b.record);
  EXPECT_EQ(to_hex(find_extension(ch.extensions, ext::kEncryptedClientHello)->data.first(5)),
            "0000010003");
}

TEST(ChromiumHello, ExtensionOrderIsAUniformShuffle) {
  // Chi-square of the position of each of the 17 shuffled extensions over many hellos;
  // a biased shuffle (e.g. a modulo draw) pushes some statistic far above its df=16
  // critical value (39.25 at p = 0.001).
  const Reference& ref = reference();
  constexpr int kN = 1700;  // 100 expected per cell
  std::map<std::uint16_t, std::array<int, 17>> pos;
  for (int i = 0; i < kN; ++i) {
    const BuiltClientHello b = build(20000 + i, ref.sni);
    const ClientHelloInfo ch = parse_record(b.record);
    for (std::size_t k = 1; k + 1 < ch.extensions.size(); ++k) {
      pos[ch.extensions[k].type][k - 1] += 1;
    }
  }
  ASSERT_EQ(pos.size(), 17u);
  int over = 0;
  for (const auto& [type, counts] : pos) {
    double chi = 0;
    for (int c : counts) chi += (c - 100.0) * (c - 100.0) / 100.0;
    if (chi > 39.25) ++over;
  }
  EXPECT_LE(over, 1) << "extension positions are not uniform";
}

TEST(ChromiumHello, RecordLengthDistributionFitsTheCaptures) {
  // Record length = 5 + 1759 + len(SNI) + ECH payload (fixtures README): four values,
  // equally likely. Every captured length must be one we generate, every length we
  // generate one of the four, each appearing about a quarter of the time, and the
  // captures' histogram must be plausible under that distribution (multinomial exact
  // probability of a histogram at least as extreme ≥ 0.001).
  const Reference& ref = reference();
  std::set<std::size_t> formula;
  for (std::size_t p : {144, 176, 208, 240}) formula.insert(5 + 1759 + ref.sni.size() + p);
  std::map<std::size_t, int> generated;
  constexpr int kN = 1000;
  for (int i = 0; i < kN; ++i) generated[build(40000 + i, ref.sni).record.size()] += 1;
  for (const auto& [len, n] : generated) {
    EXPECT_TRUE(formula.count(len)) << len;
    EXPECT_NEAR(n, kN / 4, kN / 10) << len;
  }
  std::map<std::size_t, int> captured;
  for (const Bytes& r : ref.records) {
    EXPECT_TRUE(formula.count(r.size())) << "captured length " << r.size();
    captured[r.size()] += 1;
  }
  // Exact multinomial test, p = P(histograms with probability ≤ the observed one).
  const int n = static_cast<int>(ref.records.size());
  std::vector<int> obs;
  for (std::size_t len : formula) obs.push_back(captured[len]);
  auto logp = [&](const std::vector<int>& h) {
    double l = std::lgamma(n + 1.0);
    for (int c : h) l -= std::lgamma(c + 1.0);
    return l + n * std::log(0.25);
  };
  const double lobs = logp(obs);
  double p = 0;
  for (int a = 0; a <= n; ++a) {
    for (int b = 0; a + b <= n; ++b) {
      for (int c = 0; a + b + c <= n; ++c) {
        const std::vector<int> h = {a, b, c, n - a - b - c};
        const double l = logp(h);
        if (l <= lobs + 1e-9) p += std::exp(l);
      }
    }
  }
  EXPECT_GE(p, 0.001) << "the captures' lengths are implausible under our distribution";
}

TEST(ChromiumHello, Http11OnlyDropsAlpsAndOffersOneProtocol) {
  crypto::DeterministicRng rng(3);
  ClientHelloParams p;
  p.server_name = "example.org";
  p.alpn = HelloAlpn::kHttp11Only;
  const BuiltClientHello b = build_client_hello(p, rng);
  const ClientHelloInfo ch = parse_record(b.record);
  EXPECT_EQ(find_extension(ch.extensions, ext::kAlps), nullptr);
  ASSERT_EQ(ch.alpn.size(), 1u);
  EXPECT_EQ(ch.alpn[0], "http/1.1");
  EXPECT_EQ(ja4(ch).substr(0, 10), "t13d1516h1");
}

TEST(LegacyHello, MatchesTheQeli0716Description) {
  // qeli-0.7.16.md §4.3 / reality-tls.md A.7: JA4 t13d1516h2_8daaf6152771_e5627efa2ab1,
  // ALPS 0x4469, no ECH, zero-length padding last, one X25519 key in both shares.
  for (int i = 0; i < 50; ++i) {
    const BuiltClientHello b = build(70000 + i, "www.microsoft.com", HelloProfile::kQeli0716);
    const ClientHelloInfo ch = parse_record(b.record);
    EXPECT_EQ(ja4(ch), "t13d1516h2_8daaf6152771_e5627efa2ab1");
    EXPECT_EQ(to_hex(ByteSpan(b.record).first(3)), "160301");
    ASSERT_EQ(ch.extensions.size(), 18u);
    EXPECT_TRUE(is_grease(ch.extensions.front().type));
    EXPECT_TRUE(is_grease(ch.extensions[16].type));
    EXPECT_TRUE(ch.extensions[16].data.empty());
    EXPECT_EQ(ch.extensions.back().type, ext::kPadding);
    EXPECT_TRUE(ch.extensions.back().data.empty());
    EXPECT_NE(find_extension(ch.extensions, ext::kAlpsOld), nullptr);
    EXPECT_EQ(find_extension(ch.extensions, ext::kEncryptedClientHello), nullptr);
    const KeyShareEntry* hybrid = ch.key_share(group::kX25519MlKem768);
    const KeyShareEntry* x = ch.key_share(group::kX25519);
    ASSERT_TRUE(hybrid && x);
    EXPECT_EQ(to_hex(hybrid->key_exchange.last(32)), to_hex(x->key_exchange));
  }
}

TEST(ChromiumHello, SessionIdIsTheCallersAndCanBePatchedAfterwards) {
  crypto::DeterministicRng rng(4);
  ClientHelloParams p;
  p.server_name = "a.example";
  for (std::size_t i = 0; i < 32; ++i) p.session_id[i] = static_cast<std::uint8_t>(i);
  BuiltClientHello b = build_client_hello(p, rng);
  EXPECT_EQ(to_hex(parse_record(b.record).session_id), to_hex(p.session_id));
  std::array<std::uint8_t, 32> token{};
  token.fill(0xC3);
  set_session_id(b.record, token);
  EXPECT_EQ(to_hex(parse_record(b.record).session_id), to_hex(token));
  EXPECT_EQ(to_hex(ByteSpan(b.record).subspan(kSessionIdOffsetInRecord, 32)), to_hex(token));
}

}  // namespace
}  // namespace qeli::tls
