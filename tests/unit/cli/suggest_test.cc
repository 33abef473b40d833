// "Did you mean": the closest subcommand to a mistyped one.
#include "base/suggest.h"

#include <gtest/gtest.h>

namespace qeli {
namespace {

const std::vector<std::string> kNames = {"server",       "client",  "check-config", "show-identity",
                                         "list-clients", "version", "add-client",   "status"};

TEST(suggest, typos_prefixes_and_swaps) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);
  EXPECT_EQ(edit_distance("lsit", "list"), 1U) << "an adjacent swap is one edit";
  EXPECT_EQ(closest_name("sever", kNames), "server");
  EXPECT_EQ(closest_name("clinet", kNames), "client");
  EXPECT_EQ(closest_name("list-client", kNames), "list-clients");
  EXPECT_EQ(closest_name("chek-config", kNames), "check-config");
  EXPECT_EQ(closest_name("show", kNames), "show-identity") << "a prefix of 3+ letters";
  EXPECT_EQ(closest_name("Version", kNames), "version");
  EXPECT_FALSE(closest_name("frobnicate", kNames));
  EXPECT_FALSE(closest_name("xy", kNames));
}

}  // namespace
}  // namespace qeli
