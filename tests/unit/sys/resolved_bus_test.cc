// The D-Bus calls planned for systemd-resolved's per-link DNS (resolved_link_plan). The
// calls themselves are not made here: no resolved runs in the test sandbox, and on a host
// where one does, a unit test must not change its DNS.
#include "sys/resolved_bus.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

namespace qeli::sys {
namespace {

DnsSettings settings(std::vector<const char*> servers, std::vector<std::string> search = {}) {
  DnsSettings d;
  for (const char* s : servers) d.servers.push_back(*IpAddress::parse(s));
  d.search = std::move(search);
  return d;
}

using Domains = std::vector<std::pair<std::string, bool>>;

TEST(ResolvedBus, FullTunnelRoutesEveryNameToTheLink) {
  auto p = resolved_link_plan(7, settings({"10.8.0.1", "2001:db8::53"}, {"corp.example"}), true);
  ASSERT_TRUE(p.ok()) << p.error().detail;
  EXPECT_EQ(p->ifindex, 7);
  ASSERT_EQ(p->servers.size(), 2U);
  EXPECT_EQ(p->servers[0].af(), AF_INET);
  EXPECT_EQ(p->servers[0].size(), 4U);
  EXPECT_EQ(p->servers[1].af(), AF_INET6);
  EXPECT_EQ(p->servers[1].to_string(), "2001:db8::53");
  // "~." first (routing-only root), then the search domain (not routing-only).
  EXPECT_EQ(p->domains, (Domains{{".", true}, {"corp.example", false}}));
  EXPECT_TRUE(p->default_route);
}

TEST(ResolvedBus, SplitTunnelKeepsOnlyTheSearchDomains) {
  auto p = resolved_link_plan(3, settings({"10.8.0.1"}, {"corp.example"}), false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->domains, (Domains{{"corp.example", false}}));
  EXPECT_FALSE(p->default_route);
  auto bare = resolved_link_plan(3, settings({"10.8.0.1"}), false);
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->domains.empty());
}

TEST(ResolvedBus, RefusesWhatResolvConfWouldRefuse) {
  EXPECT_EQ(resolved_link_plan(0, settings({"10.8.0.1"}), true).error().code,
            HostErrc::kInvalidArgument);
  EXPECT_EQ(resolved_link_plan(-1, settings({"10.8.0.1"}), true).error().code,
            HostErrc::kInvalidArgument);
  EXPECT_EQ(resolved_link_plan(3, settings({}), true).error().code, HostErrc::kInvalidArgument);
  EXPECT_EQ(resolved_link_plan(3, settings({"10.8.0.1"}, {"evil domain"}), true).error().code,
            HostErrc::kInvalidArgument);
}

TEST(ResolvedBus, AMissingLinkFailsBeforeTheBusIsTouched) {
  ResolvedBusLinkDns dns;
  auto r = dns.apply("qelinolink9", settings({"10.8.0.1"}), true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, HostErrc::kNotFound);
  EXPECT_EQ(dns.revert("qelinolink9").error().code, HostErrc::kNotFound);
  EXPECT_EQ(dns.revert("bad;name").error().code, HostErrc::kInvalidArgument);
}

}  // namespace
}  // namespace qeli::sys
