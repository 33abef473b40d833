// Argon2id: PHC strings made by the reference argon2 CLI (tests/vectors/argon2id.json,
// tools/vectors/gen_argon2.sh) verify with our libsodium wrapper; wrong passwords and
// malformed or out-of-bounds strings are refused, quickly and without a crash; our own
// hashes verify and carry qeli's parameters (m = 19456 KiB, t = 2, p = 1).
#include "crypto/argon2id.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/conformance.h"

namespace qeli::crypto {
namespace {

TEST(Argon2id, ReferenceCliHashesVerify) {
  const auto j = test::load_vectors("argon2id.json");
  test::require_ids(j, "cases",
                    {"argon2id/cases/00", "argon2id/cases/01", "argon2id/cases/02",
                     "argon2id/cases/03", "argon2id/cases/04", "argon2id/cases/05"});
  bool saw_qeli_params = false;
  bool saw_p2 = false;
  for (const auto& c : test::cases(j, "cases", 6)) {
    const std::string id = c.value("id", std::string("?"));
    SCOPED_TRACE(id);
    const std::string phc = c.value("phc", std::string());
    const std::string pw = c.value("password", std::string());
    ASSERT_FALSE(phc.empty());
    ASSERT_FALSE(pw.empty());
    saw_qeli_params |= phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$");
    saw_p2 |= phc.find(",p=2$") != std::string::npos;
    EXPECT_TRUE(argon2id_is_phc(phc));
    EXPECT_TRUE(argon2id_verify(phc, pw));
    EXPECT_FALSE(argon2id_verify(phc, pw + "x"));
    EXPECT_FALSE(argon2id_verify(phc, pw.substr(0, pw.size() - 1)));
    EXPECT_FALSE(argon2id_verify(phc, ""));
  }
  EXPECT_TRUE(saw_qeli_params);
  EXPECT_TRUE(saw_p2);
}

TEST(Argon2id, TamperedCliHashIsRejected) {
  const auto j = test::load_vectors("argon2id.json");
  const auto all = test::cases(j, "cases", 1);
  ASSERT_FALSE(all.empty());
  const std::string phc = all[0].value("phc", std::string());
  const std::string pw = all[0].value("password", std::string());
  ASSERT_TRUE(argon2id_verify(phc, pw));
  // Flip one character of the hash, then of the salt, then a parameter.
  std::string bad_hash = phc;
  bad_hash[bad_hash.size() - 2] = bad_hash[bad_hash.size() - 2] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(argon2id_verify(bad_hash, pw));
  std::string bad_salt = phc;
  const auto salt_at = phc.find('$', phc.find("p=")) + 1;
  bad_salt[salt_at] = bad_salt[salt_at] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(argon2id_verify(bad_salt, pw));
  std::string bad_t = phc;
  bad_t.replace(bad_t.find("t=2"), 3, "t=3");
  EXPECT_FALSE(argon2id_verify(bad_t, pw));
}

TEST(Argon2id, OwnHashesVerifyAndCarryQeliParameters) {
  const auto a = argon2id_hash("s3cret:pass");
  const auto b = argon2id_hash("s3cret:pass");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->starts_with("$argon2id$v=19$m=19456,t=2,p=1$")) << *a;
  EXPECT_NE(*a, *b) << "each hash has a fresh salt";
  EXPECT_TRUE(argon2id_is_phc(*a));
  EXPECT_TRUE(argon2id_verify(*a, "s3cret:pass"));
  EXPECT_TRUE(argon2id_verify(*b, "s3cret:pass"));
  EXPECT_FALSE(argon2id_verify(*a, "s3cret:pasS"));
}

// Each string is refused by argon2id_is_phc and argon2id_verify, fast: none may reach
// libsodium with absurd parameters (which would allocate terabytes or run for hours).
TEST(Argon2id, MalformedPhcStringsAreRejectedQuickly) {
  const std::string salt = "cWVsaS12ZWN0b3JzLXNhbHQtMDA";
  const std::string hash = "FMqpC/y89uzcYg21mBVj28nr8psDUvzo94lXw2/VQzo";
  const std::string good = "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + hash;
  ASSERT_TRUE(argon2id_is_phc(good));
  const std::string bad[] = {
      "",
      "$",
      "$argon2id$",
      "$argon2id$v=19$",
      "$argon2id$v=19$m=19456,t=2,p=1$",
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt,
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$",
      good.substr(0, good.size() - 1) + "$",
      good + "$",
      good + "=",
      good + "\n",
      good + std::string(1, '\0') + "trailing",
      std::string("\0", 1) + good,
      "$argon2i$v=19$m=19456,t=2,p=1$" + salt + "$" + hash,
      "$argon2d$v=19$m=19456,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=16$m=19456,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$m=19456,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$t=2,m=19456,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=2$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=1,keyid=x$" + salt + "$" + hash,
      "$argon2id$v=19$m=019456,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=-19456,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=0,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=0$" + salt + "$" + hash,
      "$argon2id$v=19$m=7,t=1,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=4294967295,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=99999999999999999999,t=2,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=4294967295,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=33,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=2097152,t=3,p=1$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=17$" + salt + "$" + hash,
      "$argon2id$v=19$m=64,t=2,p=16$" + salt + "$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$c2hvcnQ",
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "=$" + hash,
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + hash + "==",
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + hash + "AA",  // 4k+1 chars
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + hash.substr(0, 10) + "-_" + hash.substr(12),
      "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + std::string(200, 'A'),
      std::string(4096, '$'),
  };
  const auto start = std::chrono::steady_clock::now();
  for (const auto& s : bad) {
    EXPECT_FALSE(argon2id_is_phc(s)) << s;
    EXPECT_FALSE(argon2id_verify(s, "correct horse battery staple")) << s;
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(2)) << "a refused string reached the hash function";
}

TEST(Argon2id, BoundsAreInclusive) {
  const std::string tail =
      "$cWVsaS12ZWN0b3JzLXNhbHQtMDA$FMqpC/y89uzcYg21mBVj28nr8psDUvzo94lXw2/VQzo";
  EXPECT_TRUE(argon2id_is_phc("$argon2id$v=19$m=2097152,t=2,p=1" + tail));
  EXPECT_TRUE(argon2id_is_phc("$argon2id$v=19$m=131072,t=32,p=1" + tail));
  EXPECT_TRUE(argon2id_is_phc("$argon2id$v=19$m=128,t=1,p=16" + tail));
  EXPECT_TRUE(argon2id_is_phc("$argon2id$v=19$m=8,t=1,p=1" + tail));
  EXPECT_FALSE(argon2id_is_phc("$argon2id$v=19$m=2097153,t=1,p=1" + tail));
  EXPECT_FALSE(argon2id_is_phc("$argon2id$v=19$m=131073,t=32,p=1" + tail));
  EXPECT_FALSE(argon2id_is_phc("$argon2id$v=19$m=127,t=1,p=16" + tail));
}

}  // namespace
}  // namespace qeli::crypto
