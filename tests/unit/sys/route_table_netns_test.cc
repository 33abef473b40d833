// RouteTable against a real kernel routing table, inside a network namespace created by
// the test. `ip -j route` is the independent witness of what the kernel holds.
//
//   netns rt:   v0 (192.0.2.2/24, fd00:1::2/64) <-veth-> v1 (203.0.113.2/24)
#include "sys/route_table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "netns_fixture.h"

namespace qeli::sys {
namespace {

using test::Netns;

class RouteTableNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ns_.ok()) << "needs root and `ip netns`";
    for (const char* cmd :
         {"ip link add v0 type veth peer name v1", "ip link set v0 up", "ip link set v1 up",
          "ip addr add 192.0.2.2/24 dev v0", "ip addr add fd00:1::2/64 dev v0 nodad",
          "ip addr add 203.0.113.2/24 dev v1"}) {
      auto r = ns_.exec(cmd);
      ASSERT_EQ(r.status, 0) << cmd << ": " << r.out;
    }
  }

  // The routes of `family` ("-4"/"-6") in the main table, as `ip -j` reports them.
  nlohmann::json kernel_routes(const char* family) {
    auto r = ns_.exec(std::string("ip -j ") + family + " route show table main");
    EXPECT_EQ(r.status, 0) << r.out;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  // The kernel's entry for `dst`, or null.
  nlohmann::json find(const char* family, const std::string& dst) {
    for (const auto& e : kernel_routes(family)) {
      if (e.value("dst", "") == dst) return e;
    }
    return nullptr;
  }

  template <class F>
  auto in_ns(F&& fn) {
    return ns_.run([&] {
      auto t = RouteTable::open();
      if (!t.ok()) std::abort();
      return fn(*t);
    });
  }

  Netns ns_{"rt"};
};

Route make(const char* dst, const char* dev, const char* via = nullptr, std::uint32_t metric = 0) {
  Route r;
  r.dst = *IpPrefix::parse(dst);
  if (dev != nullptr) r.dev = dev;
  if (via != nullptr) r.gateway = *IpAddress::parse(via);
  r.metric = metric;
  return r;
}

TEST_F(RouteTableNetns, AddListRemoveIpv4AndIpv6) {
  const Route dev_route = make("10.10.0.0/16", "v0");
  const Route gw_route = make("10.20.0.0/16", "v0", "192.0.2.1", 50);
  const Route v6_route = make("2001:db8:1::/48", "v0", "fd00:1::1", 300);
  auto added = in_ns([&](RouteTable& t) {
    return t.add(dev_route).ok() && t.add(gw_route).ok() && t.add(v6_route).ok();
  });
  ASSERT_TRUE(added);

  auto k1 = find("-4", "10.10.0.0/16");
  ASSERT_FALSE(k1.is_null());
  EXPECT_EQ(k1["dev"], "v0");
  EXPECT_EQ(k1["protocol"].dump(), "\"113\"");
  EXPECT_EQ(k1["scope"], "link");
  auto k2 = find("-4", "10.20.0.0/16");
  ASSERT_FALSE(k2.is_null());
  EXPECT_EQ(k2["gateway"], "192.0.2.1");
  EXPECT_EQ(k2["metric"], 50);
  auto k3 = find("-6", "2001:db8:1::/48");
  ASSERT_FALSE(k3.is_null());
  EXPECT_EQ(k3["gateway"], "fd00:1::1");
  EXPECT_EQ(k3["metric"], 300);

  // list() reports what the kernel holds, ours tagged with our protocol.
  auto listed = in_ns([&](RouteTable& t) { return t.list(IpFamily::kV4); });
  ASSERT_TRUE(listed.ok());
  int ours = 0;
  for (const Route& r : *listed) {
    if (r.protocol != kQeliRouteProtocol) continue;
    ++ours;
    if (r.dst.to_string() == "10.20.0.0/16") {
      EXPECT_EQ(r.gateway->to_string(), "192.0.2.1");
      EXPECT_EQ(r.dev, "v0");
      EXPECT_EQ(r.metric, 50U);
    }
  }
  EXPECT_EQ(ours, 2);

  // A second identical add is refused, not duplicated.
  auto dup = in_ns([&](RouteTable& t) { return t.add(dev_route); });
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, HostErrc::kExists);

  auto removed = in_ns([&](RouteTable& t) {
    return t.remove(dev_route).ok() && t.remove(gw_route).ok() && t.remove(v6_route).ok();
  });
  ASSERT_TRUE(removed);
  EXPECT_TRUE(find("-4", "10.10.0.0/16").is_null());
  EXPECT_TRUE(find("-4", "10.20.0.0/16").is_null());
  EXPECT_TRUE(find("-6", "2001:db8:1::/48").is_null());
  auto again = in_ns([&](RouteTable& t) { return t.remove(dev_route); });
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, HostErrc::kNotFound);
}

TEST_F(RouteTableNetns, Ipv6BlackholeRoutesStopTraffic) {
  // Full tunnel without allow_ipv6_leak: ::/1 and 8000::/1 unreachable beat ::/0.
  ASSERT_EQ(ns_.exec("ip -6 route add default via fd00:1::1 dev v0").status, 0);
  Route low = make("::/1", nullptr);
  low.type = RouteType::kUnreachable;
  Route high = make("8000::/1", nullptr);
  high.type = RouteType::kUnreachable;
  Route hole = make("2001:db8:dead::/48", nullptr);
  hole.type = RouteType::kBlackhole;

  auto before = in_ns([&](RouteTable& t) { return t.lookup(*IpAddress::parse("2001:db8::1")); });
  ASSERT_TRUE(before.ok()) << before.error().detail;
  EXPECT_EQ(before->dev, "v0");

  ASSERT_TRUE(in_ns(
      [&](RouteTable& t) { return t.add(low).ok() && t.add(high).ok() && t.add(hole).ok(); }));
  auto k = find("-6", "::/1");
  ASSERT_FALSE(k.is_null());
  EXPECT_EQ(k["type"], "unreachable");
  EXPECT_EQ(find("-6", "2001:db8:dead::/48")["type"], "blackhole");

  auto after = in_ns([&](RouteTable& t) { return t.lookup(*IpAddress::parse("2001:db8::1")); });
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, HostErrc::kUnreachable);
  EXPECT_NE(ns_.exec("ping -6 -c1 -W1 2001:db8::1").status, 0);

  ASSERT_TRUE(in_ns([&](RouteTable& t) {
    return t.remove(low).ok() && t.remove(high).ok() && t.remove(hole).ok();
  }));
  EXPECT_TRUE(find("-6", "::/1").is_null());
  EXPECT_TRUE(find("-6", "8000::/1").is_null());
  EXPECT_TRUE(find("-6", "2001:db8:dead::/48").is_null());
}

TEST_F(RouteTableNetns, LookupThenPinTheServerBeforeAFullTunnel) {
  ASSERT_EQ(ns_.exec("ip route add default via 192.0.2.1 dev v0").status, 0);
  const IpAddress server = *IpAddress::parse("198.51.100.7");
  auto phys = in_ns([&](RouteTable& t) { return t.lookup(server); });
  ASSERT_TRUE(phys.ok()) << phys.error().detail;
  EXPECT_EQ(phys->dev, "v0");
  ASSERT_TRUE(phys->gateway.has_value());
  EXPECT_EQ(phys->gateway->to_string(), "192.0.2.1");
  ASSERT_TRUE(phys->pref_src.has_value());
  EXPECT_EQ(phys->pref_src->to_string(), "192.0.2.2");

  // Pin, then send everything else into the "tunnel" (v1) with 0.0.0.0/1 + 128.0.0.0/1.
  const Route pin = pin_route(*phys);
  const Route half1 = make("0.0.0.0/1", "v1");
  const Route half2 = make("128.0.0.0/1", "v1");
  ASSERT_TRUE(in_ns(
      [&](RouteTable& t) { return t.add(pin).ok() && t.add(half1).ok() && t.add(half2).ok(); }));
  EXPECT_EQ(find("-4", "198.51.100.7")["gateway"], "192.0.2.1");

  auto to_server = in_ns([&](RouteTable& t) { return t.lookup(server); });
  auto to_other = in_ns([&](RouteTable& t) { return t.lookup(*IpAddress::parse("198.51.100.8")); });
  ASSERT_TRUE(to_server.ok());
  ASSERT_TRUE(to_other.ok());
  EXPECT_EQ(to_server->dev, "v0");
  EXPECT_EQ(to_other->dev, "v1");
  EXPECT_FALSE(to_other->gateway.has_value());
  // The kernel agrees with `ip route get`.
  EXPECT_NE(ns_.exec("ip route get 198.51.100.7").out.find("via 192.0.2.1 dev v0"),
            std::string::npos);
  EXPECT_NE(ns_.exec("ip route get 198.51.100.8").out.find("dev v1"), std::string::npos);
}

TEST_F(RouteTableNetns, RemoveNeverDeletesAForeignRoute) {
  // Installed by someone else, same prefix and device as ours would be: with iproute2's
  // default protocol (boot), as a static route, and an IPv6 one.
  ASSERT_EQ(ns_.exec("ip route add 10.30.0.0/16 dev v0").status, 0);
  ASSERT_EQ(ns_.exec("ip route add 10.31.0.0/16 dev v0 proto static").status, 0);
  ASSERT_EQ(ns_.exec("ip -6 route add 2001:db8:31::/48 dev v0 proto static").status, 0);
  for (const char* dst : {"10.30.0.0/16", "10.31.0.0/16", "2001:db8:31::/48"}) {
    auto r = in_ns([&](RouteTable& t) { return t.remove(make(dst, "v0")); });
    ASSERT_FALSE(r.ok()) << dst;
    EXPECT_EQ(r.error().code, HostErrc::kNotFound) << dst;
  }
  EXPECT_FALSE(find("-4", "10.30.0.0/16").is_null());
  EXPECT_FALSE(find("-4", "10.31.0.0/16").is_null());
  EXPECT_FALSE(find("-6", "2001:db8:31::/48").is_null());
}

TEST_F(RouteTableNetns, ErrorsCarryTheReason) {
  auto nodev = in_ns([&](RouteTable& t) { return t.add(make("10.40.0.0/16", "nosuch0")); });
  ASSERT_FALSE(nodev.ok());
  EXPECT_EQ(nodev.error().code, HostErrc::kNotFound);
  EXPECT_NE(nodev.error().detail.find("nosuch0"), std::string::npos);

  // The gateway is not on any connected network: the kernel refuses (ENETUNREACH).
  auto far = in_ns([&](RouteTable& t) { return t.add(make("10.41.0.0/16", "v0", "198.18.0.1")); });
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().code, HostErrc::kNetlink);
  EXPECT_FALSE(far.error().detail.empty());

  auto mixed = in_ns([&](RouteTable& t) { return t.add(make("10.42.0.0/16", "v0", "fd00:1::1")); });
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().code, HostErrc::kInvalidArgument);

  auto none = in_ns([&](RouteTable& t) { return t.lookup(*IpAddress::parse("198.51.100.9")); });
  ASSERT_FALSE(none.ok());  // no default route in this namespace
  EXPECT_EQ(none.error().code, HostErrc::kUnreachable);
}

}  // namespace
}  // namespace qeli::sys
