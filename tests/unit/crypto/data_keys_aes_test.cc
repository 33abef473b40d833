// The AES-256-GCM key of a direction (caps::kAesGcm, docs/PROTOCOL.md §18):
// HKDF-SHA256(salt = "", IKM = direction key, info = "qeli aes-256-gcm")[32].
// The vector was computed outside qeli, twice: `openssl kdf -keylen 32 -kdfopt
// digest:SHA256 -kdfopt hexkey:000102…1f -kdfopt info:"qeli aes-256-gcm" HKDF` and
// Python's hmac/hashlib (RFC 5869 by hand); the test also asks OpenSSL's EVP HKDF.
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "crypto/cpu_features.h"
#include "crypto/data_keys.h"

namespace qeli::crypto {
namespace {

TEST(AesGcmKey, KnownAnswer) {
  const Bytes key =
      from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").value();
  const Key32 k = derive_aes256gcm_key(std::span<const std::uint8_t, 32>(key.data(), 32));
  EXPECT_EQ(to_hex(k.span()), "8be27b5252fd104929340de8275882fcdbf92eb3d8cc7f09a02075285d1a0c29");
}

TEST(AesGcmKey, MatchesOpenSslHkdfAndNeverEqualsTheChaChaKey) {
  for (const int seed : {0, 1, 0x5a, 0xff}) {
    std::array<std::uint8_t, 32> key{};
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(seed * 7 + i);
    std::array<std::uint8_t, 32> want{};
    std::size_t n = want.size();
    const std::string_view info = "qeli aes-256-gcm";
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr);
    ASSERT_EQ(EVP_PKEY_derive_init(c), 1);
    ASSERT_EQ(EVP_PKEY_CTX_set_hkdf_md(c, EVP_sha256()), 1);
    ASSERT_EQ(EVP_PKEY_CTX_set1_hkdf_key(c, key.data(), static_cast<int>(key.size())), 1);
    ASSERT_EQ(EVP_PKEY_CTX_add1_hkdf_info(c, reinterpret_cast<const unsigned char*>(info.data()),
                                          static_cast<int>(info.size())),
              1);
    ASSERT_EQ(EVP_PKEY_derive(c, want.data(), &n), 1);
    EVP_PKEY_CTX_free(c);
    const Key32 got = derive_aes256gcm_key(key);
    EXPECT_EQ(to_hex(got.span()), to_hex(want)) << seed;
    EXPECT_NE(to_hex(got.span()), to_hex(key));
  }
}

TEST(AesGcmKey, CpuProbeAgreesWithProcCpuinfo) {
  // The kernel's view of the same CPU: x86 "flags" with aes and pclmulqdq, arm64
  // "Features" with aes and pmull.
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  bool found = false, aes = false, clmul = false;
  while (!found && std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    found = true;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) {
      aes = aes || w == "aes";
      clmul = clmul || w == "pclmulqdq" || w == "pmull";
    }
  }
  if (!found) GTEST_SKIP() << "no /proc/cpuinfo flags here";
  EXPECT_EQ(cpu_has_aes_gcm(), aes && clmul);
}

}  // namespace
}  // namespace qeli::crypto
