// The REALITY gate's first test (tls/hello_peek.h): 0.7.16's `16 xx xx LL LL 01` rule, the
// record length capped at 2^14, and every prefix of a hello asking for more.
#include "tls/hello_peek.h"

#include <gtest/gtest.h>

namespace qeli::tls {
namespace {

TEST(HelloPeek, ClassifiesPrefixesStrangersAndWholeRecords) {
  Bytes rec{0x16, 0x03, 0x01, 0x00, 0x06, 0x01, 0, 0, 2, 3, 3};
  for (std::size_t n = 0; n < rec.size(); ++n) {
    EXPECT_EQ(peek_client_hello(ByteSpan(rec).first(n)).verdict, PeekVerdict::kNeedMore) << n;
  }
  const PeekResult r = peek_client_hello(rec);
  EXPECT_EQ(r.verdict, PeekVerdict::kComplete);
  EXPECT_EQ(r.size, 11U);
  rec.push_back(0xFF);  // bytes past the record do not change the answer
  EXPECT_EQ(peek_client_hello(rec).size, 11U);
  EXPECT_EQ(peek_client_hello(as_bytes("GET / HTTP/1.1")).verdict, PeekVerdict::kNotTls);
  EXPECT_EQ(peek_client_hello(Bytes{0x17}).verdict, PeekVerdict::kNotTls);
  EXPECT_EQ(peek_client_hello(Bytes{0x16, 3, 3, 0, 5, 0x02}).verdict, PeekVerdict::kNotTls);
  // A record too short for a handshake header (found by fuzz_reality_peek).
  EXPECT_EQ(peek_client_hello(Bytes{0x16, 0x09, 0, 0, 0, 0x01, 0x10, 0x77, 0x77}).verdict,
            PeekVerdict::kNotTls);
  // A record claiming 65535 bytes: the gate waits for 5 + 16384 at most.
  Bytes big{0x16, 0x03, 0x01, 0xFF, 0xFF, 0x01};
  big.resize(kPeekMaxRecord - 1);
  EXPECT_EQ(peek_client_hello(big).verdict, PeekVerdict::kNeedMore);
  big.push_back(0);
  EXPECT_EQ(peek_client_hello(big).verdict, PeekVerdict::kComplete);
  EXPECT_EQ(peek_client_hello(big).size, kPeekMaxRecord);
}

}  // namespace
}  // namespace qeli::tls
