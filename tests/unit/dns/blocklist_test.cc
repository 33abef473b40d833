#include "dns/blocklist.h"

#include <gtest/gtest.h>

#include "dns/name.h"

namespace qeli::dns {
namespace {

TEST(DnsBlocklist, BlocksTheDomainAndItsSubdomainsOnly) {
  Blocklist b;
  b.add(*parse_domain("ads.example.com"));
  EXPECT_TRUE(b.blocks(*parse_domain("ads.example.com")));
  EXPECT_TRUE(b.blocks(*parse_domain("x.y.ADS.example.com")));
  EXPECT_FALSE(b.blocks(*parse_domain("example.com")));
  EXPECT_FALSE(b.blocks(*parse_domain("badads.example.com")));
  EXPECT_FALSE(b.blocks(*parse_domain("ads.example.com.evil")));
  EXPECT_FALSE(Blocklist{}.blocks(*parse_domain("ads.example.com")));
}

}  // namespace
}  // namespace qeli::dns
