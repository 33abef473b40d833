#include "server/listen_addresses.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

config::ProfileConfig profile(std::string bind, std::uint16_t port) {
  config::ProfileConfig p;
  p.bind_address = std::move(bind);
  p.bind_port = port;
  return p;
}

TEST(ListenAddresses, BindFirstThenEveryListenEntry) {
  auto p = profile("::", 443);
  p.listen.push_back({"192.0.2.1", 8443, false});
  p.listen.push_back({"fd00::1", 443, true});
  auto a = listen_addresses(p);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_EQ(a->size(), 3U);
  EXPECT_EQ((*a)[0].to_string(), "[::]:443");
  EXPECT_EQ((*a)[1].to_string(), "192.0.2.1:8443");
  EXPECT_EQ((*a)[2].to_string(), "[fd00::1]:443");
  EXPECT_EQ(describe_listeners(*a, 443), "[::]:443, 192.0.2.1:8443, [fd00::1]:443");
}

TEST(ListenAddresses, NamesAndDuplicatesAreRefusedByKey) {
  auto names = profile("0.0.0.0", 443);
  names.listen.push_back({"vpn.example.com", 443, false});
  auto r = listen_addresses(names);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("listen `vpn.example.com`"), std::string::npos) << r.error();
  auto twice = profile("0.0.0.0", 443);
  twice.listen.push_back({"0.0.0.0", 443, false});
  r = listen_addresses(twice);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("listed twice"), std::string::npos) << r.error();
  r = listen_addresses(profile("localhost", 443));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("bind.address"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace qeli::server
