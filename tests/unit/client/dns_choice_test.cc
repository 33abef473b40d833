// choose_dns: which resolvers and which DNS path, for every combination that matters.
#include "client/dns_choice.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

config::ClientConfig cfg_with(config::ClientDns mode, std::vector<const char*> servers = {}) {
  config::ClientConfig c;
  c.dns = mode;
  for (const char* s : servers) c.dns_servers.push_back(config::Ipv4Cidr::parse(s, true)->network);
  return c;
}

sys::ResolvedStatus resolved(bool running, bool stub) { return {running, stub}; }

std::vector<std::string> texts(const sys::DnsSettings& d) {
  std::vector<std::string> out;
  for (const auto& a : d.servers) out.push_back(a.to_string());
  return out;
}

TEST(DnsChoice, OffLeavesTheHostAloneWhateverElseIsTrue) {
  const auto c = choose_dns(cfg_with(config::ClientDns::kOff, {"192.0.2.1"}), "10.9.0.1",
                            "fd00:9::1", resolved(true, true));
  EXPECT_EQ(c.path, DnsPath::kLeaveAlone);
  EXPECT_TRUE(c.dns.servers.empty());
}

TEST(DnsChoice, OwnServersOutrankThePush) {
  const auto c = choose_dns(cfg_with(config::ClientDns::kTunnel, {"192.0.2.1", "192.0.2.2"}),
                            "10.9.0.1", "fd00:9::1", resolved(false, false));
  EXPECT_EQ(c.path, DnsPath::kResolvConf);
  EXPECT_EQ(texts(c.dns), (std::vector<std::string>{"192.0.2.1", "192.0.2.2"}));
  EXPECT_NE(c.why.find("dns_servers"), std::string::npos) << c.why;
}

TEST(DnsChoice, PushedResolverWhenNoneConfigured) {
  const auto c =
      choose_dns(cfg_with(config::ClientDns::kTunnel), "10.9.0.1", "", resolved(false, false));
  EXPECT_EQ(c.path, DnsPath::kResolvConf);
  EXPECT_EQ(texts(c.dns), (std::vector<std::string>{"10.9.0.1"}));
}

TEST(DnsChoice, NoResolverAtAllMeansNoSilentFallback) {
  for (const char* pushed : {"", "not-an-address", "10.9.0.1/24"}) {
    const auto c =
        choose_dns(cfg_with(config::ClientDns::kTunnel), pushed, "", resolved(true, true));
    EXPECT_EQ(c.path, DnsPath::kLeaveAlone) << pushed;
    EXPECT_TRUE(c.dns.servers.empty()) << pushed;
  }
}

TEST(DnsChoice, ResolvedOnlyWhenItRunsAndOwnsResolvConf) {
  const auto cfg = cfg_with(config::ClientDns::kTunnel);
  struct Row {
    bool running, stub;
    DnsPath want;
  };
  for (const Row& r :
       {Row{true, true, DnsPath::kResolvedLink}, Row{true, false, DnsPath::kResolvConf},
        Row{false, true, DnsPath::kResolvConf}, Row{false, false, DnsPath::kResolvConf}}) {
    const auto c = choose_dns(cfg, "10.9.0.1", "", resolved(r.running, r.stub));
    EXPECT_EQ(c.path, r.want) << r.running << r.stub << " " << c.why;
    EXPECT_EQ(texts(c.dns), (std::vector<std::string>{"10.9.0.1"}));
  }
}

// x_dns6 (docs/PROTOCOL.md §21): the pushed IPv6 resolver after the IPv4 one, on both
// paths; only an IPv6 address; never beside the client's own dns_servers.
TEST(DnsChoice, PushedIpv6ResolverFollowsTheIpv4One) {
  const auto cfg = cfg_with(config::ClientDns::kTunnel);
  for (const bool resolved_link : {true, false}) {
    const auto c = choose_dns(cfg, "10.9.0.1", "fd00:9::1", resolved(resolved_link, true));
    EXPECT_EQ(c.path, resolved_link ? DnsPath::kResolvedLink : DnsPath::kResolvConf);
    EXPECT_EQ(texts(c.dns), (std::vector<std::string>{"10.9.0.1", "fd00:9::1"}));
  }
  // Alone (a profile that pushes only an IPv6 resolver).
  EXPECT_EQ(texts(choose_dns(cfg, "", "fd00:9::1", resolved(false, false)).dns),
            (std::vector<std::string>{"fd00:9::1"}));
  for (const char* bad : {"10.9.0.2", "fd00:9::1/64", "junk"}) {
    EXPECT_EQ(texts(choose_dns(cfg, "10.9.0.1", bad, resolved(false, false)).dns),
              (std::vector<std::string>{"10.9.0.1"}))
        << bad;
  }
}

}  // namespace
}  // namespace qeli::client
