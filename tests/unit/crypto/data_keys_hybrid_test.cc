// The "hybrid" data-key scheme (salt "qeli-key-derivation-v2-hybrid", IKM = ee ‖ ml),
// which the reference hkdf.json does not cover: vectors computed with Python's
// hmac/hashlib by tools/vectors/gen_hkdf_hybrid.py into tests/vectors/hkdf-hybrid.json
// (that generator first reproduces every reference case with the same code).
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/data_keys.h"
#include "support/conformance.h"

namespace qeli::crypto {
namespace {

Key32 key32(const Bytes& b) {
  EXPECT_EQ(b.size(), 32U);
  Key32 k;
  if (b.size() == 32) k = Key32(std::span<const std::uint8_t, 32>(b.data(), 32));
  return k;
}

TEST(DataKeys, HybridSchemeVectors) {
  const auto j = test::load_vectors("hkdf-hybrid.json");
  test::require_ids(j, "cases",
                    {"hkdf-hybrid/cases/00", "hkdf-hybrid/cases/01", "hkdf-hybrid/cases/02",
                     "hkdf-hybrid/cases/03"});
  for (const auto& c : test::cases(j, "cases", 4)) {
    SCOPED_TRACE(c.value("id", std::string("?")));
    ASSERT_EQ(c.value("scheme", std::string()), "hybrid");
    const auto& in = c["inputs"];
    const Key32 ee = key32(test::hex_field(in, "x25519_shared"));
    const Key32 ml = key32(test::hex_field(in, "mlkem_shared"));
    const DataKeys k = derive_data_keys(KdfScheme::kHybrid, ee.span(), &ml, nullptr);
    EXPECT_EQ(to_hex(k.server_to_client.span()), c["expect"].value("server_to_client", ""));
    EXPECT_EQ(to_hex(k.client_to_server.span()), c["expect"].value("client_to_server", ""));
    EXPECT_NE(to_hex(k.server_to_client.span()), to_hex(k.client_to_server.span()));
  }
}

TEST(DataKeys, HybridDiffersFromEveryOtherScheme) {
  Key32 ee, ml, es;
  for (std::size_t i = 0; i < 32; ++i) {
    ee[i] = 1;
    ml[i] = 2;
    es[i] = 3;
  }
  const auto hybrid = derive_data_keys(KdfScheme::kHybrid, ee.span(), &ml, nullptr);
  const auto classic = derive_data_keys(KdfScheme::kClassic, ee.span(), nullptr, nullptr);
  const auto hybrid_bound = derive_data_keys(KdfScheme::kHybridBound, ee.span(), &ml, &es);
  EXPECT_NE(to_hex(hybrid.server_to_client.span()), to_hex(classic.server_to_client.span()));
  EXPECT_NE(to_hex(hybrid.server_to_client.span()), to_hex(hybrid_bound.server_to_client.span()));
  EXPECT_EQ(kdf_scheme_from_string("hybrid"), KdfScheme::kHybrid);
  EXPECT_FALSE(kdf_scheme_from_string("Hybrid").has_value());
}

}  // namespace
}  // namespace qeli::crypto
