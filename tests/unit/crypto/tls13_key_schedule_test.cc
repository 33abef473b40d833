// HKDF-Expand-Label and Derive-Secret (RFC 8446 §7.1) against the simple 1-RTT trace of
// RFC 8448 §3 (TLS_AES_128_GCM_SHA256, X25519), from the early secret to the master
// secret, using the transcript hashes the trace prints. Also RFC 5869 Appendix A.2
// (long salt/IKM/info, multi-block output), completing A.1–A.3 with hkdf_test.cc.
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "crypto/hkdf.h"
#include "crypto/sha256.h"

namespace qeli::crypto {
namespace {

Bytes hex(std::string_view s) {
  auto b = from_hex(s);
  EXPECT_TRUE(b.has_value()) << s;
  return b.value_or(Bytes{});
}

std::array<std::uint8_t, 32> hex32(std::string_view s) {
  std::array<std::uint8_t, 32> out{};
  EXPECT_TRUE(from_hex_into(s, out)) << s;
  return out;
}

std::string expand_label_hex(const Key32& secret, std::string_view label, std::size_t len) {
  Bytes out(len);
  EXPECT_TRUE(hkdf_expand_label(secret.span(), label, {}, out));
  return to_hex(out);
}

TEST(Tls13KeySchedule, Rfc8448Section3HandshakeAndMasterSecrets) {
  // {server} extract secret "early": no PSK, so IKM = 32 zero bytes and an empty salt.
  const Bytes zeros(32, 0);
  const Key32 early = hkdf_extract({}, zeros);
  EXPECT_EQ(to_hex(early.span()),
            "33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a");

  // {server} derive secret for handshake "tls13 derived", context = SHA-256("").
  const Digest32 empty_hash = sha256(ByteSpan{});
  const Key32 derived = derive_secret(early.span(), "derived", empty_hash);
  EXPECT_EQ(to_hex(derived.span()),
            "6f2615a108c702c5678f54fc9dbab69716c076189c48250cebeac3576c3611ba");

  // {server} extract secret "handshake" with the X25519 shared secret as IKM.
  const Bytes ecdhe = hex("8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d");
  const Key32 handshake = hkdf_extract(derived.span(), ecdhe);
  EXPECT_EQ(to_hex(handshake.span()),
            "1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac");

  // Transcript hash of ClientHello ‖ ServerHello as printed in the trace.
  const auto hello_hash = hex32("860c06edc07858ee8e78f0e7428c58edd6b43f2ca3e6e95f02ed063cf0e1cad8");
  const Key32 c_hs = derive_secret(handshake.span(), "c hs traffic", hello_hash);
  const Key32 s_hs = derive_secret(handshake.span(), "s hs traffic", hello_hash);
  EXPECT_EQ(to_hex(c_hs.span()),
            "b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21");
  EXPECT_EQ(to_hex(s_hs.span()),
            "b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38");

  // {server} derive write traffic keys for handshake data (key info 00 10 09 "tls13 key"
  // 00) and the client's, both with an empty context.
  EXPECT_EQ(expand_label_hex(s_hs, "key", 16), "3fce516009c21727d0f2e4e86ee403bc");
  EXPECT_EQ(expand_label_hex(s_hs, "iv", 12), "5d313eb2671276ee13000b30");
  EXPECT_EQ(expand_label_hex(c_hs, "key", 16), "dbfaa693d1762c5b666af5d950258d01");
  EXPECT_EQ(expand_label_hex(c_hs, "iv", 12), "5bd3c71b836e0b76bb73265f");
  // {server} calculate finished "tls13 finished".
  EXPECT_EQ(expand_label_hex(s_hs, "finished", 32),
            "008d3b66f816ea559f96b537e885c31fc068bf492c652f01f288a1d8cdc19fc8");

  // {server} derive secret for master "tls13 derived", then extract secret "master".
  const Key32 derived2 = derive_secret(handshake.span(), "derived", empty_hash);
  EXPECT_EQ(to_hex(derived2.span()),
            "43de77e0c77713859a944db9db2590b53190a65b3ee2e4f12dd7a0bb7ce254b4");
  const Key32 master = hkdf_extract(derived2.span(), zeros);
  EXPECT_EQ(to_hex(master.span()),
            "18df06843d13a08bf2a449844c5f8a478001bc4d4c627984d5a41da8d0402919");
}

TEST(Tls13KeySchedule, ExpandLabelEncodesLengthLabelAndContext) {
  // The HkdfLabel is length(2) ‖ len("tls13 " + label) ‖ ... ‖ len(context) ‖ context, so
  // the output depends on each; equal inputs give equal outputs.
  const Key32 secret;
  const Bytes ctx = {1, 2, 3};
  Bytes a(32), b(32), c(32), d(16);
  ASSERT_TRUE(hkdf_expand_label(secret.span(), "key", ctx, a));
  ASSERT_TRUE(hkdf_expand_label(secret.span(), "key", ctx, b));
  ASSERT_TRUE(hkdf_expand_label(secret.span(), "key", {}, c));
  ASSERT_TRUE(hkdf_expand_label(secret.span(), "key", ctx, d));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(to_hex(Bytes(a.begin(), a.begin() + 16)), to_hex(d))
      << "the length is part of the label, so a shorter output is not a prefix";
}

TEST(Hkdf, Rfc5869A2LongInputs) {
  Bytes ikm(80), salt(80), info(80);
  for (std::size_t i = 0; i < 80; ++i) {
    ikm[i] = static_cast<std::uint8_t>(i);
    salt[i] = static_cast<std::uint8_t>(0x60 + i);
    info[i] = static_cast<std::uint8_t>(0xb0 + i);
  }
  const Key32 prk = hkdf_extract(salt, ikm);
  EXPECT_EQ(to_hex(prk.span()), "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244");
  Bytes okm(82);
  ASSERT_TRUE(hkdf(salt, ikm, info, okm));
  EXPECT_EQ(
      to_hex(okm),
      "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c"
      "65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87");
}

}  // namespace
}  // namespace qeli::crypto
