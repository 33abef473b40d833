// JA3/JA4 of real ClientHellos: our parser and fingerprinter reproduce every value that
// shared/fixtures/chrome-clienthello/fingerprints.json records for each capture (the
// values TShark and the FoxIO reference implementation gave), for Chromium, curl and
// openssl s_client alike. Drop more captures (and their entries) into that folder and
// they are checked too.
#include "tls/fingerprint.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tls/client_hello.h"
#include "tls/constants.h"
#include "tls_test_util.h"

namespace qeli::tls {
namespace {

std::string hex4(std::uint16_t v) {
  char b[5];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}

TEST(TlsFingerprint, MatchesEveryRecordedCapture) {
  const auto& fp = test::fingerprints();
  ASSERT_TRUE(fp.is_array());
  std::size_t checked = 0;
  for (const auto& cap : test::captures("")) {
    const nlohmann::json* entry = nullptr;
    for (const auto& e : fp) {
      if (e.value("file", "") == cap.file) entry = &e;
    }
    if (entry == nullptr) continue;  // a capture without recorded values: other tests use it
    ASSERT_GT(cap.record.size(), kRecordHeaderSize) << cap.file;
    EXPECT_EQ(cap.record.size(), (*entry)["record_bytes"].get<std::size_t>()) << cap.file;
    auto ch = parse_client_hello(ByteSpan(cap.record).subspan(kRecordHeaderSize));
    ASSERT_TRUE(ch.ok()) << cap.file << ": " << to_string(ch.error());
    EXPECT_EQ(ja3_string(*ch), (*entry)["ja3_string"]) << cap.file;
    EXPECT_EQ(ja3(*ch), (*entry)["ja3"]) << cap.file;
    EXPECT_EQ(ja4(*ch), (*entry)["ja4"]) << cap.file;
    EXPECT_EQ(ja4_r(*ch), (*entry)["ja4_r"]) << cap.file;
    EXPECT_EQ(ja4_o(*ch), (*entry)["ja4_o"]) << cap.file;
    EXPECT_EQ(ja4_ro(*ch), (*entry)["ja4_ro"]) << cap.file;
    if (entry->contains("extension_order")) {
      std::vector<std::string> order;
      for (const Extension& e : ch->extensions) order.push_back(hex4(e.type));
      EXPECT_EQ(order, (*entry)["extension_order"].get<std::vector<std::string>>()) << cap.file;
    }
    ++checked;
  }
  EXPECT_GE(checked, 11u) << "fewer recorded captures than the fixture README lists";
}

}  // namespace
}  // namespace qeli::tls
