// Kill switch and NAT tables in real network namespaces: the tables hold the expected
// rules (`nft -j list table`), and packets behave accordingly.
//
// Kill switch:                         NAT:
//   ks: k0 10.77.0.1  fd77::1            client: c0 10.50.0.2 (default via 10.50.0.1)
//       qt0 10.88.0.1 ("the TUN")          | veth
//        | veth         | veth           server: s0 10.50.0.1 ("tun"), s1 192.0.2.1 ("wan")
//   peer: p0 10.77.0.2/.3 fd77::2/::3      | veth
//         qt1 10.88.0.2                  wan:    w0 192.0.2.2 (no route back to 10.50/24)
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "netns_fixture.h"
#include "sys/nft_kill_switch.h"
#include "sys/nft_nat.h"
#include "sys/route_table.h"
#include "sys/sysctl.h"

// libnftables 1.0.6 leaks 152 bytes inside its parser when it rejects a script (no
// symbols; seen with StaleTableFromACrash... below). Not ours to fix: tell LeakSanitizer.
extern "C" const char* __lsan_default_suppressions() { return "leak:libnftables.so\n"; }

namespace qeli::sys {
namespace {

using test::Netns;
using test::sh;

void setup(Netns& ns, std::initializer_list<std::string> cmds) {
  for (const std::string& c : cmds) {
    auto r = ns.exec(c);
    ASSERT_EQ(r.status, 0) << ns.name() << ": " << c << ": " << r.out;
  }
}

IpAddress ip(const char* s) { return *IpAddress::parse(s); }

bool ping(Netns& ns, const char* dst) {
  const bool v6 = std::string(dst).find(':') != std::string::npos;
  return ns.exec(std::string("ping ") + (v6 ? "-6 " : "") + "-c1 -W1 " + dst).status == 0;
}

// Positive checks retry a little: a fresh veth needs a moment before IPv6 neighbour
// discovery answers. Negative checks are single attempts.
bool reachable(Netns& ns, const char* dst) {
  for (int i = 0; i < 5; ++i) {
    if (ping(ns, dst)) return true;
  }
  return false;
}

// `nft -j list table` inside the namespace, as the list of its objects.
nlohmann::json nft_objects(Netns& ns, const std::string& table) {
  auto r = ns.exec("nft -j list table " + table);
  if (r.status != 0) return nlohmann::json::array();
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_object() ? j["nftables"] : nlohmann::json::array();
}

// The names of all tables in the namespace.
std::vector<std::string> table_names(Netns& ns) {
  std::vector<std::string> out;
  auto r = ns.exec("nft -j list tables");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& o : j["nftables"]) {
    if (o.contains("table")) out.push_back(o["table"]["name"].get<std::string>());
  }
  return out;
}

// Runs `fn(NftContext&)` inside the namespace.
template <class F>
auto with_nft(Netns& ns, F&& fn) {
  return ns.run([&] {
    auto nft = NftContext::open();
    if (!nft.ok()) std::abort();
    return fn(*nft);
  });
}

class KillSwitchNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ks_.ok() && peer_.ok());
    ASSERT_EQ(
        sh("ip -n " + ks_.name() + " link add k0 type veth peer name p0 netns " + peer_.name())
            .status,
        0);
    ASSERT_EQ(
        sh("ip -n " + ks_.name() + " link add qt0 type veth peer name qt1 netns " + peer_.name())
            .status,
        0);
    setup(ks_, {"ip addr add 10.77.0.1/24 dev k0", "ip addr add fd77::1/64 dev k0 nodad",
                "ip addr add 10.88.0.1/24 dev qt0", "ip link set k0 up", "ip link set qt0 up"});
    setup(peer_, {"ip addr add 10.77.0.2/24 dev p0", "ip addr add 10.77.0.3/24 dev p0",
                  "ip addr add fd77::2/64 dev p0 nodad", "ip addr add fd77::3/64 dev p0 nodad",
                  "ip addr add 10.88.0.2/24 dev qt1", "ip link set p0 up", "ip link set qt1 up"});
    // Every peer address answers before the kill switch goes on.
    for (const char* a : {"10.77.0.2", "10.77.0.3", "fd77::2", "fd77::3", "10.88.0.2"}) {
      ASSERT_TRUE(reachable(ks_, a)) << a;
    }
  }

  KillSwitchSpec spec() const {
    KillSwitchSpec s;
    s.tun = "qt0";
    s.servers = {ip("10.77.0.2"), ip("fd77::2")};
    s.resolvers = {ip("10.77.0.3")};
    return s;
  }

  Netns ks_{"ks"};
  Netns peer_{"peer"};
};

TEST_F(KillSwitchNetns, DropsEverythingButTheAllowedDestinations) {
  // (SetUp checked that every address answers without the kill switch.)
  auto on = with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, spec()); });
  ASSERT_TRUE(on.ok()) << on.error().detail;

  // The table as the kernel holds it.
  const auto objs = nft_objects(ks_, "inet qeli_ks_qt0");
  bool output_drop = false, forward = false;
  std::map<std::string, nlohmann::json> sets;
  for (const auto& o : objs) {
    if (o.contains("chain") && o["chain"]["name"] == "output") {
      output_drop = o["chain"]["hook"] == "output" && o["chain"]["policy"] == "drop";
    }
    if (o.contains("chain") && o["chain"]["name"] == "forward") forward = true;
    if (o.contains("set")) sets[o["set"]["name"]] = o["set"].value("elem", nlohmann::json::array());
  }
  EXPECT_TRUE(output_drop);
  EXPECT_FALSE(forward);  // not in gateway mode
  EXPECT_EQ(sets["servers4"], nlohmann::json::array({"10.77.0.2"}));
  EXPECT_EQ(sets["servers6"], nlohmann::json::array({"fd77::2"}));
  EXPECT_EQ(sets["dns4"], nlohmann::json::array({"10.77.0.3"}));

  EXPECT_TRUE(reachable(ks_, "10.77.0.2"));  // the server
  EXPECT_TRUE(reachable(ks_, "fd77::2"));    // the server, IPv6 (needs neighbour discovery)
  EXPECT_FALSE(ping(ks_, "10.77.0.3"));      // anything else: dropped
  EXPECT_FALSE(ping(ks_, "fd77::3"));
  EXPECT_TRUE(reachable(ks_, "10.88.0.2"));  // through the tunnel interface
  EXPECT_TRUE(reachable(ks_, "127.0.0.1"));  // loopback
  // The resolver only on port 53.
  EXPECT_EQ(ks_.exec("bash -c \"echo q > /dev/udp/10.77.0.3/53\"").status, 0);
  EXPECT_NE(ks_.exec("bash -c \"echo q > /dev/udp/10.77.0.3/54\"").status, 0);

  // The final drop counted what it dropped.
  auto list = ks_.exec("nft list chain inet qeli_ks_qt0 output");
  EXPECT_EQ(list.out.find("counter packets 0 bytes 0 drop"), std::string::npos) << list.out;
}

TEST_F(KillSwitchNetns, NothingButServerTrafficLeavesThePhysicalInterface) {
  // Tunnel down: the only allowed destination on k0 is the server (no resolvers here).
  KillSwitchSpec s = spec();
  s.resolvers.clear();
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, s); }).ok());
  // Capture what leaves the physical side, except ARP / IPv6 neighbour discovery and
  // the server, while the client tries IPv4 and IPv6, ICMP, UDP (DNS) and TCP elsewhere.
  const std::string filter =
      "not arp and not host 10.77.0.2 and not host fd77::2 and "
      "not (icmp6 and (ip6[40] == 133 or ip6[40] == 135 or ip6[40] == 136))";
  std::string capture;
  std::thread cap(
      [&] { capture = ks_.exec("timeout 4 tcpdump -n -Q out -i k0 -c 1 \"" + filter + "\"").out; });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  for (const char* cmd :
       {"ping -c1 -W1 10.77.0.3", "ping -6 -c1 -W1 fd77::3",
        "bash -c \"echo q > /dev/udp/10.77.0.3/53\"", "bash -c \"echo q > /dev/udp/fd77::3/53\"",
        "timeout 1 bash -c \"echo > /dev/tcp/10.77.0.3/443\"",
        "timeout 1 bash -c \"echo > /dev/tcp/fd77::3/443\""}) {
    ks_.exec(cmd);
  }
  EXPECT_TRUE(reachable(ks_, "10.77.0.2"));  // meanwhile the server is reachable
  cap.join();
  EXPECT_NE(capture.find("0 packets captured"), std::string::npos) << capture;

  // The same capture without the kill switch does see the leak (the check can fail).
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return lift_kill_switch(nft, "qt0"); }).ok());
  std::thread cap2(
      [&] { capture = ks_.exec("timeout 4 tcpdump -n -Q out -i k0 -c 1 \"" + filter + "\"").out; });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ks_.exec("ping -c1 -W1 10.77.0.3");
  cap2.join();
  EXPECT_NE(capture.find("1 packet captured"), std::string::npos) << capture;
}

TEST_F(KillSwitchNetns, RefreshSwapsServersAtomicallyAndLiftRemovesTheTable) {
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, spec()); }).ok());
  EXPECT_FALSE(ping(ks_, "10.77.0.3"));
  // Reconnect: the server now resolves to .3 and fd77::3.
  auto ref = with_nft(ks_, [&](NftContext& nft) {
    return refresh_servers(nft, "qt0", {ip("10.77.0.3"), ip("fd77::3")});
  });
  ASSERT_TRUE(ref.ok()) << ref.error().detail;
  EXPECT_TRUE(reachable(ks_, "10.77.0.3"));
  EXPECT_TRUE(reachable(ks_, "fd77::3"));
  EXPECT_FALSE(ping(ks_, "10.77.0.2"));
  EXPECT_FALSE(ping(ks_, "fd77::2"));

  // Engaging again (a restart) replaces the table: still exactly one.
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, spec()); }).ok());
  EXPECT_EQ(table_names(ks_), std::vector<std::string>{"qeli_ks_qt0"});
  EXPECT_TRUE(reachable(ks_, "10.77.0.2"));

  auto lifted = with_nft(ks_, [&](NftContext& nft) { return lift_kill_switch(nft, "qt0"); });
  ASSERT_TRUE(lifted.ok());
  EXPECT_TRUE(*lifted);
  EXPECT_TRUE(table_names(ks_).empty());
  EXPECT_TRUE(reachable(ks_, "10.77.0.3"));
  auto again = with_nft(ks_, [&](NftContext& nft) { return cleanup_kill_switch(nft, "qt0"); });
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);

  auto no_table = with_nft(ks_, [&](NftContext& nft) { return refresh_servers(nft, "qt0", {}); });
  ASSERT_FALSE(no_table.ok());
  EXPECT_EQ(no_table.error().code, HostErrc::kNotFound);
}

TEST_F(KillSwitchNetns, LeftoverFromACrashIsCleanedUp) {
  // A "crashed" client: its context is gone, the table stays (the host stays locked).
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, spec()); }).ok());
  EXPECT_FALSE(ping(ks_, "10.77.0.3"));
  auto cleaned = with_nft(ks_, [&](NftContext& nft) { return cleanup_kill_switch(nft, "qt0"); });
  ASSERT_TRUE(cleaned.ok());
  EXPECT_TRUE(*cleaned);
  EXPECT_TRUE(reachable(ks_, "10.77.0.3"));
}

TEST_F(KillSwitchNetns, GatewayModeAddsAForwardChain) {
  KillSwitchSpec s = spec();
  s.gateway_mode = true;
  ASSERT_TRUE(with_nft(ks_, [&](NftContext& nft) { return engage_kill_switch(nft, s); }).ok());
  bool forward_drop = false;
  for (const auto& o : nft_objects(ks_, "inet qeli_ks_qt0")) {
    if (o.contains("chain") && o["chain"]["name"] == "forward") {
      forward_drop = o["chain"]["hook"] == "forward" && o["chain"]["policy"] == "drop";
    }
  }
  EXPECT_TRUE(forward_drop);
}

class NatNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(client_.ok() && server_.ok() && wan_.ok());
    ASSERT_EQ(sh("ip -n " + client_.name() + " link add c0 type veth peer name s0 netns " +
                 server_.name())
                  .status,
              0);
    ASSERT_EQ(
        sh("ip -n " + server_.name() + " link add s1 type veth peer name w0 netns " + wan_.name())
            .status,
        0);
    setup(client_, {"ip addr add 10.50.0.2/24 dev c0", "ip link set c0 up",
                    "ip route add default via 10.50.0.1"});
    setup(server_, {"ip addr add 10.50.0.1/24 dev s0", "ip addr add 192.0.2.1/24 dev s1",
                    "ip link set s0 up", "ip link set s1 up"});
    setup(wan_, {"ip addr add 192.0.2.2/24 dev w0", "ip link set w0 up"});
  }

  NatSpec spec() const {
    return NatSpec{"p1", "s0", "s1", {*IpPrefix::parse("10.50.0.0/24")}, true, {}, {}, 53};
  }

  // The MSS option of the first SYN that reaches the wan host for a connection from the
  // client, as tcpdump prints it ("mss 1240"); empty if none was seen.
  std::string mss_seen_by_wan() {
    std::string out;
    std::thread cap([&] {
      out = wan_.exec("timeout 5 tcpdump -n -v -c1 -i w0 \"tcp[tcpflags] & tcp-syn != 0\"").out;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // tcpdump is listening
    client_.exec("timeout 2 bash -c \"echo > /dev/tcp/192.0.2.2/9\"");
    cap.join();
    const auto at = out.find("mss ");
    if (at == std::string::npos) return {};
    return out.substr(at, out.find_first_of(",]", at) - at);
  }

  Netns client_{"client"};
  Netns server_{"server"};
  Netns wan_{"wan"};
};

TEST_F(NatNetns, ClientReachesWanOnlyThroughTheNatTable) {
  auto fwd = server_.run([] { return enable_forwarding(IpFamily::kV4); });
  ASSERT_TRUE(fwd.ok()) << fwd.error().detail;
  EXPECT_EQ(*fwd, "0");  // a fresh namespace starts with forwarding off
  EXPECT_EQ(server_.exec("cat /proc/sys/net/ipv4/ip_forward").out, "1\n");

  // Forwarding alone is not enough: the wan host has no route back to 10.50.0.0/24.
  EXPECT_FALSE(ping(client_, "192.0.2.2"));

  auto on = with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, spec()); });
  ASSERT_TRUE(on.ok()) << on.error().detail;
  EXPECT_TRUE(reachable(client_, "192.0.2.2"));

  // The rules as the kernel holds them.
  const std::string rules = server_.exec("nft list table inet qeli_nat_p1").out;
  EXPECT_NE(rules.find("oifname \"s1\" ip saddr 10.50.0.0/24 masquerade"), std::string::npos)
      << rules;
  EXPECT_NE(rules.find("tcp option maxseg size set rt mtu"), std::string::npos) << rules;
  EXPECT_NE(rules.find("iifname \"s0\" accept"), std::string::npos) << rules;

  auto off = with_nft(server_, [&](NftContext& nft) { return remove_nat(nft, "p1"); });
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(*off);
  EXPECT_TRUE(table_names(server_).empty());
  EXPECT_FALSE(ping(client_, "192.0.2.2"));
}

TEST_F(NatNetns, StaleTableFromACrashIsReplacedSoExactlyOneExists) {
  ASSERT_TRUE(server_.run([] { return enable_forwarding(IpFamily::kV4); }).ok());
  // The crashed run had another pool (and a rule of its own that must not survive).
  NatSpec stale = spec();
  stale.pools = {*IpPrefix::parse("10.99.0.0/24")};
  ASSERT_TRUE(with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, stale); }).ok());
  EXPECT_FALSE(ping(client_, "192.0.2.2"));

  ASSERT_TRUE(with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, spec()); }).ok());
  EXPECT_EQ(table_names(server_), std::vector<std::string>{"qeli_nat_p1"});
  const std::string rules = server_.exec("nft list table inet qeli_nat_p1").out;
  EXPECT_EQ(rules.find("10.99.0.0/24"), std::string::npos) << rules;
  EXPECT_TRUE(reachable(client_, "192.0.2.2"));

  // A rejected script changes nothing: the working table stays.
  auto bad = with_nft(server_, [&](NftContext& nft) {
    return nft.run(
        "add table inet qeli_nat_p1\ndelete table inet qeli_nat_p1\n"
        "table inet qeli_nat_p1 { chain c { type nat hook nonsense priority 0; } }");
  });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, HostErrc::kNftables);
  EXPECT_FALSE(bad.error().detail.empty());
  EXPECT_TRUE(reachable(client_, "192.0.2.2"));
}

TEST_F(NatNetns, MssIsClampedToThePathMtu) {
  ASSERT_TRUE(server_.run([] { return enable_forwarding(IpFamily::kV4); }).ok());
  setup(server_, {"ip link set s1 mtu 1280"});
  setup(wan_, {"ip link set w0 mtu 1280"});
  NatSpec no_clamp = spec();
  no_clamp.mss_clamp = false;
  ASSERT_TRUE(with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, no_clamp); }).ok());
  EXPECT_EQ(mss_seen_by_wan(), "mss 1460");  // the client's own 1500-byte MTU

  ASSERT_TRUE(with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, spec()); }).ok());
  EXPECT_EQ(mss_seen_by_wan(), "mss 1240");  // 1280 - 20 (IPv4) - 20 (TCP)
}

// dns.port other than 53: clients are pushed port 53 (as 0.7.16 pushes it), and the
// table's prerouting chain takes 53 on the proxy's address, from the tunnel, to the
// proxy's port; the answer goes back through conntrack as if from port 53.
TEST_F(NatNetns, DnsPort53ReachesTheProxysOwnPort) {
  NatSpec bridge{"p1", "s0", "", {}, true, {}, {*IpAddress::parse("10.50.0.1")}, 5353};
  ASSERT_TRUE(with_nft(server_, [&](NftContext& nft) { return apply_nat(nft, bridge); }).ok());
  const std::string rules = server_.exec("nft list table inet qeli_nat_p1").out;
  EXPECT_NE(rules.find("udp dport 53 dnat ip to 10.50.0.1:5353"), std::string::npos) << rules;
  EXPECT_NE(rules.find("tcp dport 53 dnat ip to 10.50.0.1:5353"), std::string::npos) << rules;
  EXPECT_EQ(rules.find("masquerade"), std::string::npos) << "no pool, no NAT: " << rules;
  // An echo on 10.50.0.1:5353 (one datagram back), asked on port 53 by the client (the
  // Python strings in \" because exec() puts the command in single quotes).
  std::thread echo([&] {
    server_.exec(
        "timeout 5 /usr/bin/python3 -c \"import socket; s = socket.socket(2, 2); "
        "s.bind((\\\"10.50.0.1\\\", 5353)); d, a = s.recvfrom(64); s.sendto(d, a)\"");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the echo is bound
  const auto asked = client_.exec(
      "timeout 4 /usr/bin/python3 -c \"import socket; s = socket.socket(2, 2); "
      "s.settimeout(3); s.sendto(b\\\"qeli-dns\\\", (\\\"10.50.0.1\\\", 53)); "
      "d, a = s.recvfrom(64); "
      "print(d.decode(), a[1])\"");
  echo.join();
  EXPECT_EQ(asked.out, "qeli-dns 53\n") << asked.out;
}

// The contract in nft_context.h / route_table.h: the namespace is fixed when the context
// or table is opened, whichever thread uses it later.
TEST(NamespaceBinding, ContextsActWhereTheyWereOpened) {
  Netns a("bind-a");
  Netns b("bind-b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a.exec("nft add table inet qeli_marker_a").status, 0);
  ASSERT_EQ(a.exec("ip link add ma0 type veth peer name ma1").status, 0);
  auto nft = a.run([] { return NftContext::open(); });
  auto routes = a.run([] { return RouteTable::open(); });
  ASSERT_TRUE(nft.ok() && routes.ok());
  // Used from a thread that sits in namespace b.
  auto seen = b.run([&] { return nft->run("list tables"); });
  ASSERT_TRUE(seen.ok()) << seen.error().detail;
  EXPECT_NE(seen->find("qeli_marker_a"), std::string::npos) << *seen;
  // Output does not pile up across calls.
  auto seen2 = b.run([&] { return nft->run("list tables"); });
  ASSERT_TRUE(seen2.ok());
  EXPECT_EQ(*seen2, *seen);
  auto idx = b.run([&] { return routes->ifindex("ma0"); });
  EXPECT_TRUE(idx.ok());
}

TEST(SysctlNetns, ReadWriteAndBadKeys) {
  Netns ns("sysctl");
  ASSERT_TRUE(ns.ok());
  auto v = ns.run([] { return read_sysctl("net/ipv4/ip_forward"); });
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "0");
  ASSERT_TRUE(ns.run([] { return write_sysctl("net.ipv4.ip_forward", "1"); }).ok());
  EXPECT_EQ(ns.exec("cat /proc/sys/net/ipv4/ip_forward").out, "1\n");
  auto again = ns.run([] { return enable_forwarding(IpFamily::kV4); });
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, "1");
  auto v6 = ns.run([] { return enable_forwarding(IpFamily::kV6); });
  ASSERT_TRUE(v6.ok()) << v6.error().detail;
  EXPECT_EQ(ns.exec("cat /proc/sys/net/ipv6/conf/all/forwarding").out, "1\n");
  EXPECT_EQ(read_sysctl("net.nope.nothing").error().code, HostErrc::kNotFound);
  for (const char* bad : {"", "../etc/passwd", "net/../../etc", "/net/ipv4", "net ipv4"}) {
    EXPECT_EQ(read_sysctl(bad).error().code, HostErrc::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace qeli::sys
