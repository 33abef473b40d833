#include "sys/names.h"

#include <gtest/gtest.h>

namespace qeli::sys {
namespace {

TEST(Names, InterfaceNames) {
  for (const char* ok : {"tun0", "qeli0", "eth0.100", "wg-home", "a", "x23456789012345"}) {
    EXPECT_TRUE(is_valid_ifname(ok)) << ok;
  }
  for (const char* bad : {"", ".", "..", "x234567890123456", "tun 0", "tun\"0", "a/b", "a;b", "a}b",
                          "a\nb", "eth0:1"}) {
    EXPECT_FALSE(is_valid_ifname(bad)) << bad;
  }
}

TEST(Names, NftNames) {
  EXPECT_TRUE(is_valid_nft_name("qeli_ks_tun0"));
  EXPECT_TRUE(is_valid_nft_name("qeli_nat_eu-1.tcp"));
  EXPECT_FALSE(is_valid_nft_name("0abc"));
  EXPECT_FALSE(is_valid_nft_name("a b"));
  EXPECT_FALSE(is_valid_nft_name(std::string(65, 'a')));
  EXPECT_TRUE(is_valid_name_suffix("eu-1"));
  EXPECT_FALSE(is_valid_name_suffix(std::string(33, 'a')));
  EXPECT_FALSE(is_valid_name_suffix("x{"));
}

}  // namespace
}  // namespace qeli::sys
