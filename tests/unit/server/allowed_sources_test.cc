// The DNS proxy's source check (server/allowed_sources.h): each family against its own
// networks, nothing for an unset address or an empty list.
#include "server/allowed_sources.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

transport::SockAddr at(const char* ip) { return *transport::SockAddr::parse_ip(ip, 53); }

TEST(AllowedSources, EachFamilyAgainstItsOwnNetworks) {
  const AllowedSources a(
      {*config::Ipv4Cidr::parse("10.9.0.0/24"), *config::Ipv4Cidr::parse("127.0.0.0/8")},
      {*config::Ipv6Cidr::parse("fd00:9::/64"), *config::Ipv6Cidr::parse("::1/128")});
  struct Row {
    const char* ip;
    bool allowed;
  };
  for (const Row& r : {Row{"10.9.0.5", true}, Row{"10.9.1.5", false}, Row{"127.0.0.53", true},
                       Row{"fd00:9::5", true}, Row{"fd00:9:0:1::5", false}, Row{"::1", true},
                       Row{"::2", false}, Row{"fe80::1", false},
                       // the IPv4-mapped form is the IPv4 address (SockAddr)
                       Row{"::ffff:10.9.0.5", true}, Row{"::ffff:10.9.1.5", false}}) {
    SCOPED_TRACE(r.ip);
    EXPECT_EQ(a.allows(at(r.ip)), r.allowed);
  }
  EXPECT_FALSE(a.allows(transport::SockAddr{}));
}

TEST(AllowedSources, AnEmptyListAllowsNothing) {
  EXPECT_FALSE(AllowedSources().allows(at("127.0.0.1")));
  EXPECT_FALSE(AllowedSources().allows(at("::1")));
  // IPv4 networks only: no IPv6 source.
  const AllowedSources v4({*config::Ipv4Cidr::parse("0.0.0.0/0")}, {});
  EXPECT_TRUE(v4.allows(at("192.0.2.1")));
  EXPECT_FALSE(v4.allows(at("2001:db8::1")));
}

}  // namespace
}  // namespace qeli::server
