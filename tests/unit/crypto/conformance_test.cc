// The reference implementation's vectors for the crypto layer: hkdf.json (data-key
// schemes), prp-nonce.json (nonce permutation), replay-window.json. Every case must be
// present and pass; the directory comes from QELI_CONFORMANCE_DIR.
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "base/endian.h"
#include "crypto/data_keys.h"
#include "crypto/nonce_prp.h"
#include "crypto/replay_window.h"
#include "support/conformance.h"

namespace qeli::crypto {
namespace {

using test::cases;
using test::hex_field;

Key32 key32(const Bytes& b) {
  EXPECT_EQ(b.size(), 32U);
  Key32 k;
  if (b.size() == 32) k = Key32(std::span<const std::uint8_t, 32>(b.data(), 32));
  return k;
}

TEST(conformance, hkdf_data_key_schemes) {
  const auto j = test::load_conformance("hkdf.json");
  test::require_ids(j, "cases",
                    {"hkdf/cases/00", "hkdf/cases/01", "hkdf/cases/03", "hkdf/cases/04"});
  int checked = 0;
  for (const auto& c : cases(j, "cases", 4)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const auto scheme = kdf_scheme_from_string(c["scheme"].get<std::string>());
    ASSERT_TRUE(scheme.has_value());
    const auto& in = c["inputs"];
    // The classic scheme names its only input "shared_secret"; the others name them.
    const Key32 ee = key32(hex_field(in, in.contains("ee")              ? "ee"
                                         : in.contains("x25519_shared") ? "x25519_shared"
                                                                        : "shared_secret"));
    Key32 ml, es;
    const bool has_ml = in.contains("mlkem_shared");
    const bool has_es = in.contains("es");
    if (has_ml) ml = key32(hex_field(in, "mlkem_shared"));
    if (has_es) es = key32(hex_field(in, "es"));
    const DataKeys k =
        derive_data_keys(*scheme, ee.span(), has_ml ? &ml : nullptr, has_es ? &es : nullptr);
    EXPECT_EQ(to_hex(k.server_to_client.span()), c["expect"]["server_to_client"]);
    EXPECT_EQ(to_hex(k.client_to_server.span()), c["expect"]["client_to_server"]);
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(conformance, prp_nonce) {
  const auto j = test::load_conformance("prp-nonce.json");
  test::require_ids(j, "cases",
                    {"prp-nonce/cases/00", "prp-nonce/cases/01", "prp-nonce/cases/02",
                     "prp-nonce/cases/03", "prp-nonce/cases/04"});
  for (const auto& c : cases(j, "cases", 5)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const Bytes key = hex_field(c, "key");
    const Bytes seed = hex_field(c, "seed");
    ASSERT_EQ(key.size(), 32U);
    ASSERT_EQ(seed.size(), 4U);
    const std::uint64_t counter = c["counter"].get<std::uint64_t>();
    std::array<std::uint8_t, 12> raw{};
    std::copy(seed.begin(), seed.end(), raw.begin());
    store_be64(raw.data() + 4, counter);
    EXPECT_EQ(to_hex(raw), c["raw"]);
    // The vector's `key` is the derived prp_key, not the AEAD key.
    NoncePrp prp(NoncePrp::FromPrpKey{}, std::span<const std::uint8_t, 32>(key.data(), 32));
    EXPECT_EQ(to_hex(prp.permute(std::span<const std::uint8_t, 4>(seed.data(), 4), counter)),
              c["nonce"]);
  }
}

TEST(conformance, replay_window) {
  const auto j = test::load_conformance("replay-window.json");
  ASSERT_EQ(j.value("window_size", 0), 2048);
  test::require_ids(j, "cases",
                    {"replay-window/cases/01", "replay-window/cases/02", "replay-window/cases/04",
                     "replay-window/cases/05", "replay-window/cases/06", "replay-window/cases/07",
                     "replay-window/cases/08", "replay-window/cases/09"});
  for (const auto& c : cases(j, "cases", 8)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const auto& seqs = c["seqs"];
    const auto& verdicts = c["verdicts"];
    ASSERT_EQ(seqs.size(), verdicts.size());
    ReplayWindow w;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      EXPECT_EQ(w.accept(seqs[i].get<std::uint64_t>()), verdicts[i].get<bool>())
          << "step " << i << " counter " << seqs[i];
    }
  }
}

}  // namespace
}  // namespace qeli::crypto
