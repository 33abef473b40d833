// REALITY short ids (reference §4.1): 0.7.16's lenient decoding kept byte for byte, and
// the strict gate in front of it (cases from 0.7.16's own tests).
#include "config/short_id.h"

#include <gtest/gtest.h>

#include "config/modes.h"

namespace qeli::config {
namespace {

TEST(ShortId, LenientDecodingPadsRightAndDropsAnOddDigit) {
  EXPECT_EQ(short_id_from_hex("0102030405060708"), (ShortId{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(short_id_from_hex(" a1b2 "), (ShortId{0xa1, 0xb2, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(short_id_from_hex("abc"), (ShortId{0xab, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(short_id_from_hex("zzzz"), ShortId{});
  EXPECT_EQ(short_id_from_hex("0102030405060708aa"), (ShortId{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(ShortId, StrictParseAcceptsSeparatorsAndAgreesWithLenient) {
  for (const char* s :
       {"0102030405060708", "a1b2", "aa:bb:cc:dd", "de-ad-be-ef", "abc", "AB CD", "1"}) {
    const auto strict = parse_short_id(s);
    if (strict) {
      EXPECT_EQ(*strict, short_id_from_hex(s)) << s;
    }
  }
  EXPECT_EQ(parse_short_id("aa:bb:cc:dd"), (ShortId{0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 0}));
  EXPECT_TRUE(is_valid_short_id("de-ad-be-ef"));
}

TEST(ShortId, StrictParseRefusesWhatWouldCollapseToTheWildcard) {
  for (const char* s : {"zzzz", "hello", "", "   ", "0000000000000000", "00", "f", "1",
                        "0102030405060708aa", "12_34"}) {
    EXPECT_FALSE(parse_short_id(s)) << s;
    EXPECT_FALSE(is_valid_short_id(s)) << s;
  }
}

}  // namespace
}  // namespace qeli::config
