// libqeli's small parts: generation-checked handles, the bounded event queue's rules, the
// run input's strictness and the network plan's JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ffi/event_queue.h"
#include "ffi/ffi_client.h"
#include "ffi/handle_registry.h"
#include "ffi/network_plan.h"

namespace qeli::ffi {
namespace {

TEST(HandleRegistry, AFreedHandleNeverReachesTheSlotsNextObject) {
  HandleRegistry<int> reg(2);
  const auto a = reg.add(std::make_shared<int>(1));
  ASSERT_NE(a, 0U);
  EXPECT_EQ(*reg.get(a), 1);
  EXPECT_EQ(reg.get(0), nullptr);
  EXPECT_EQ(reg.get(a + 1), nullptr);             // another slot
  EXPECT_EQ(reg.get(a ^ (1ULL << 40)), nullptr);  // another generation
  ASSERT_NE(reg.remove(a), nullptr);
  EXPECT_EQ(reg.remove(a), nullptr);  // double free
  const auto b = reg.add(std::make_shared<int>(2));
  EXPECT_EQ(b & 0xffffffffU, a & 0xffffffffU);  // the slot is reused…
  EXPECT_NE(b, a);                              // …under a new generation
  EXPECT_EQ(reg.get(a), nullptr);
  EXPECT_EQ(*reg.get(b), 2);
  EXPECT_NE(reg.add(std::make_shared<int>(3)), 0U);
  EXPECT_EQ(reg.add(std::make_shared<int>(4)), 0U);  // full
}

TEST(HandleRegistry, ALeaseOutlivesRemove) {
  HandleRegistry<int> reg(4);
  const auto h = reg.add(std::make_shared<int>(7));
  auto lease = reg.get(h);
  reg.remove(h);
  EXPECT_EQ(*lease, 7);  // a blocked run still holds its object
}

TEST(EventQueue, NumbersEventsAndForcedOnesDropTheOldestStateChangeFirst) {
  EventQueue q(2);
  Event plan;
  plan.kind = EventKind::kNetworkPlan;
  Event state;
  EXPECT_EQ(q.try_push(plan), 1U);
  EXPECT_EQ(q.try_push(state), 2U);
  EXPECT_EQ(q.try_push(state), 0U);  // full: a request would wait
  Event err;
  err.kind = EventKind::kError;
  EXPECT_EQ(q.force_push(err), 3U);
  ASSERT_EQ(q.size(), 2U);
  EXPECT_EQ(q.front().kind, EventKind::kNetworkPlan);  // the state change went, not the plan
  q.pop();
  EXPECT_EQ(q.front().kind, EventKind::kError);
  EXPECT_EQ(q.force_push(err), 4U);
  EXPECT_EQ(q.force_push(err), 5U);  // no state change left: the oldest goes
  EXPECT_EQ(q.front().sequence, 4U);
}

TEST(RunInput, ShapeThenValuesAs0716) {
  // The shape (INVALID_ARGUMENT in the ABI): an object of two string arrays, nothing else.
  auto in = parse_run_input(R"({"carrier_addresses":["10.0.0.1","10.0.0.2"],
                                "fallback_dns_servers":["1.1.1.1","2001:db8::53"]})");
  ASSERT_TRUE(in.ok()) << in.error();
  EXPECT_TRUE(parse_run_input("").ok());
  EXPECT_TRUE(parse_run_input("{}").ok());
  for (const char* bad :
       {"[]", "nope", "null", R"({"extra":1})", R"({"carrier_addresses":"10.0.0.1"})",
        R"({"carrier_addresses":[1]})", R"({"fallback_dns_servers":null})",
        "{\"carrier_addresses\":[\"\xff\"]}"}) {
    EXPECT_FALSE(parse_run_input(bad).ok()) << bad;
  }
  // The values (PLATFORM_REJECTED): 0.7.16 takes IPv4 or IPv6 resolvers, at most 8, and
  // at most 16 carrier addresses (IPv4; ours IPv6 too).
  auto checked = check_run_input(*in, 4433);
  ASSERT_TRUE(checked.ok()) << checked.error();
  ASSERT_EQ(checked->carrier_addresses.size(), 2U);
  EXPECT_EQ(checked->carrier_addresses[1].port(), 4433);
  EXPECT_EQ(checked->fallback_dns, (std::vector<std::string>{"1.1.1.1", "2001:db8::53"}));
  auto v6 = check_run_input({{"2001:db8::1"}, {}}, 443);
  ASSERT_TRUE(v6.ok()) << v6.error();
  EXPECT_EQ(v6->carrier_addresses.at(0).to_string(), "[2001:db8::1]:443");
  EXPECT_FALSE(check_run_input({{"vpn.example.com"}, {}}, 1).ok());
  EXPECT_FALSE(check_run_input({{}, {"resolver"}}, 1).ok());
  EXPECT_FALSE(check_run_input({{}, std::vector<std::string>(9, "1.1.1.1")}, 1).ok());
  EXPECT_TRUE(check_run_input({{}, std::vector<std::string>(8, "1.1.1.1")}, 1).ok());
  EXPECT_FALSE(check_run_input({std::vector<std::string>(17, "10.0.0.1"), {}}, 1).ok());
}

TEST(ErrorText, Utf8CheckedAndCutTo512Characters) {
  EXPECT_TRUE(is_utf8("plain"));
  EXPECT_TRUE(is_utf8("маршрут отклонён"));
  EXPECT_FALSE(is_utf8("\xff"));
  EXPECT_FALSE(is_utf8("\xc3"));          // cut short
  EXPECT_FALSE(is_utf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));  // a surrogate
  // 600 two-byte characters: 512 of them stay, whole.
  std::string many;
  for (int i = 0; i < 600; ++i) many += "ж";
  const std::string cut = error_text(many);
  EXPECT_EQ(cut.size(), 512U * 2);
  EXPECT_TRUE(is_utf8(cut));
  EXPECT_EQ(error_text("short"), "short");
}

TEST(LoadProfile, TakesLinksAndFlatIniAndRefusesWhatQeliClientRefuses) {
  EXPECT_TRUE(load_profile("  qeli://alice:pw@10.0.0.1:4433?mode=fake-tls\n").ok());
  EXPECT_TRUE(
      load_profile("[qeli]\nserver = 10.0.0.1:4433\nuser = a\npass = b\nmode = plain\n").ok());
  auto bad = load_profile("[qeli]\nserver = 10.0.0.1:4433\nuser = a\nbogus = 1\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("bogus"), std::string::npos) << bad.error();
  EXPECT_FALSE(load_profile("qeli://").ok());
  // 0.7.16's GUI-only keys and [logging] values are the app's: accepted as written; what
  // its core would apply and this one lacks is said in the plan's log.
  auto app = load_profile(
      "[qeli]\nserver = 10.0.0.1:4433\nuser = a\npass = b\nmode = fake-tls\n"
      "reconnect_base_delay = 0\napps_mode = some\nmetric = -1\nshaping = true\n"
      "[logging]\nlevel = loud\nfile = /no/such/dir/qeli.log\n");
  ASSERT_TRUE(app.ok()) << app.error();
  const auto notes = unapplied_settings(*app);
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_EQ(notes[0].rfind("profile: shaping is not applied", 0), 0U) << notes[0];
}

// A session of 10.8.0.2/24 behind 10.8.0.1, MTU 1400, nothing else pushed.
client::TunnelConfig basic_session() {
  client::TunnelConfig tc;
  tc.pushed.client_ip = "10.8.0.2";
  tc.pushed.server_ip = "10.8.0.1";
  tc.mtu = 1400;
  return tc;
}

nlohmann::json plan_of(const client::TunnelConfig& tc, const config::ClientConfig& cfg,
                       const PlanInputs& in) {
  auto plan = build_network_plan(tc, cfg, in);
  EXPECT_TRUE(plan.ok()) << plan.error();
  return plan.ok() ? nlohmann::json::parse(plan->json) : nlohmann::json{};
}

TEST(NetworkPlan, CarriesTheAbiFieldsFromAuthOkAndTheProfile) {
  config::ClientConfig cfg;
  cfg.server.host = "vpn.example";
  cfg.server.port = 4433;
  cfg.kill_switch = true;
  client::TunnelConfig tc;
  tc.pushed.client_ip = "10.8.0.2";
  tc.pushed.server_ip = "10.8.0.1";
  tc.pushed.prefix = 24;
  tc.pushed.dns = "10.8.0.1";
  tc.pushed.dns_port = 5353;
  tc.pushed.routes.push_back({"192.168.50.0/24", "", 42});
  tc.mtu = 1380;
  tc.server = transport::SockAddr::ipv4(0x0a000001, 4433);
  PlanInputs in;
  in.generation = 3;
  in.connection_log = {"hello"};
  const auto j = plan_of(tc, cfg, in);
  EXPECT_EQ(j["generation"], 3);
  EXPECT_EQ(j["tunnel_address"], "10.8.0.2");
  EXPECT_EQ(j["prefix_len"], 24);
  EXPECT_EQ(j["mtu"], 1380);
  EXPECT_EQ(j["tunnel_gateway"], "10.8.0.1");
  EXPECT_EQ(j["carrier_address"], "10.0.0.1");
  EXPECT_EQ(j["kill_switch"], false);  // a split tunnel has none (0.7.16: ∧ full_tunnel)
  EXPECT_EQ(j["full_tunnel"], false);
  EXPECT_EQ(j["pushed_routes"], nlohmann::json::array({"192.168.50.0/24"}));
  ASSERT_FALSE(j["routes"].empty());
  EXPECT_EQ(j["routes"][0]["cidr"], "192.168.50.0/24");
  EXPECT_EQ(j["routes"][0]["metric"], 42);
  EXPECT_EQ(j["routes"][0]["gateway"], "10.8.0.1");
  ASSERT_EQ(j["dns_servers"].size(), 1U);
  EXPECT_EQ(j["dns_servers"][0]["port"], 5353);
  EXPECT_TRUE(j["data_plane"].contains("heartbeat_interval_ms"));
  EXPECT_EQ(j["connection_log"][0], "hello");
  // No resolver anywhere: the app's fallback; `dns = off`: none.
  tc.pushed.dns.clear();
  in.fallback_dns = {"9.9.9.9"};
  EXPECT_EQ(plan_of(tc, cfg, in)["dns_servers"][0]["address"], "9.9.9.9");
  cfg.dns = config::ClientDns::kOff;
  EXPECT_TRUE(plan_of(tc, cfg, in)["dns_servers"].empty());
  // A pushed default route: refused (0.7.16: broader than /8), the tunnel stays split.
  tc.pushed.routes = {{"0.0.0.0/0", "", 100}};
  const auto refused = plan_of(tc, cfg, in);
  EXPECT_EQ(refused["full_tunnel"], false);
  EXPECT_TRUE(refused["routes"].empty());
  EXPECT_TRUE(refused["pushed_routes"].empty());
  // Excluded networks: IPv4 only, as the original's plans (an app that cannot apply an
  // IPv6 exclusion would refuse the plan).
  cfg.exclude.push_back(*config::Ipv4Cidr::parse("192.0.2.0/24"));
  cfg.exclude6.push_back(*config::Ipv6Cidr::parse("2001:db8::/32"));
  const auto ex = plan_of(tc, cfg, in);
  EXPECT_EQ(ex["excluded_routes"], nlohmann::json::array({"192.0.2.0/24"}));
}

TEST(NetworkPlan, Ipv6FieldsOnlyForAnAppThatTakesThem) {
  config::ClientConfig cfg;
  client::TunnelConfig tc;
  tc.pushed.client_ip = "10.8.0.2";
  tc.pushed.server_ip = "10.8.0.1";
  tc.pushed.prefix = 24;
  tc.pushed.dns = "10.8.0.1";
  tc.pushed.dns_port = 53;
  cfg.gateway = true;  // a full tunnel
  tc.pushed.x_ip6 = "fd00:8::2/64";
  tc.pushed.x_server_ip6 = "fd00:8::1";
  tc.pushed.x_dns6 = "fd00:8::1";
  tc.pushed.x_routes6 = {{"2001:db8:e::/48", "", 70}};
  tc.mtu = 1400;
  tc.server = transport::SockAddr::ipv4(0x0a000001, 4433);
  cfg.exclude6.push_back(*config::Ipv6Cidr::parse("2001:db8:f::/48"));
  PlanInputs in;
  in.generation = 1;
  // The original's plan (an app without QELI_PLATFORM_X_IPV6): no IPv6 anywhere.
  const auto v4 = plan_of(tc, cfg, in);
  EXPECT_FALSE(v4.contains("tunnel_address6"));
  EXPECT_FALSE(v4.contains("routes6"));
  EXPECT_EQ(v4["dns_servers"].size(), 1U);
  EXPECT_TRUE(v4["excluded_routes"].empty());
  // With it: the address, gateway, the pushed IPv6 route (not the full tunnel's IPv6
  // halves: full_tunnel says it), the IPv6 resolver and exclusion.
  in.ipv6 = true;
  const auto j = plan_of(tc, cfg, in);
  EXPECT_EQ(j["tunnel_address6"], "fd00:8::2");
  EXPECT_EQ(j["prefix_len6"], 64);
  EXPECT_EQ(j["tunnel_gateway6"], "fd00:8::1");
  std::vector<std::string> cidrs6;
  for (const auto& r : j["routes6"]) {
    cidrs6.push_back(r["cidr"]);
    EXPECT_EQ(r["gateway"], "fd00:8::1");
  }
  EXPECT_EQ(cidrs6, (std::vector<std::string>{"2001:db8:e::/48"}));  // no /1 halves
  for (const auto& r : j["routes"])
    EXPECT_EQ(r["cidr"].get<std::string>().find(':'), std::string::npos);
  ASSERT_EQ(j["dns_servers"].size(), 2U);
  EXPECT_EQ(j["dns_servers"][1]["address"], "fd00:8::1");
  EXPECT_EQ(j["excluded_routes"], nlohmann::json::array({"2001:db8:f::/48"}));
}

TEST(NetworkPlan, KillSwitchOnlyInAFullTunnelAndTheCapabilitiesItNeeds) {
  // 0.7.16: kill_switch = the profile's ∧ full_tunnel; ROUTES for a full tunnel or any
  // route, DNS for any resolver, KILL_SWITCH for the kill switch.
  config::ClientConfig cfg;
  cfg.kill_switch = true;
  cfg.dns = config::ClientDns::kOff;
  const client::TunnelConfig tc = basic_session();
  PlanInputs in;
  in.generation = 1;
  auto split = build_network_plan(tc, cfg, in);
  EXPECT_EQ(nlohmann::json::parse(split->json)["kill_switch"], false);
  EXPECT_EQ(split->required_caps, 0U);  // no route, no resolver, no kill switch
  cfg.gateway = true;
  auto full = build_network_plan(tc, cfg, in);
  EXPECT_EQ(nlohmann::json::parse(full->json)["kill_switch"], true);
  EXPECT_EQ(full->required_caps, platform::kRoutes | platform::kKillSwitch);
  cfg.kill_switch = false;
  cfg.dns = config::ClientDns::kTunnel;
  cfg.dns_servers.push_back(*config::Ipv4Addr::parse("10.8.0.1"));
  EXPECT_EQ(build_network_plan(tc, cfg, in)->required_caps, platform::kRoutes | platform::kDns);
  EXPECT_TRUE(plan_kill_switch(cfg, true) == false);
}

TEST(NetworkPlan, RoutesAsTheOriginalsPlan) {
  // 0.7.16 (transport_core/network.rs): full_tunnel from the profile only; pushed routes
  // broader than /8 dropped; a pushed route's own gateway and metric; include and
  // route_local at 100, a split tunnel's resolvers at 50; never the /1 halves;
  // pushed_routes only the accepted ones.
  config::ClientConfig cfg;
  cfg.include.push_back(*config::Ipv4Cidr::parse("192.0.2.0/24"));
  cfg.route_local = true;
  cfg.dns_servers.push_back(*config::Ipv4Addr::parse("9.9.9.9"));
  client::TunnelConfig tc;
  tc.pushed.client_ip = "10.8.0.2";
  tc.pushed.server_ip = "10.8.0.1";
  tc.pushed.routes = {{"10.20.0.0/16", "10.8.0.9", 7},
                      {"172.20.0.0/16", "", 100},
                      {"0.0.0.0/1", "", 100},
                      {"128.0.0.0/1", "", 100}};
  tc.mtu = 1400;
  PlanInputs in;
  in.generation = 2;
  const auto j = plan_of(tc, cfg, in);
  EXPECT_EQ(j["full_tunnel"], false);
  EXPECT_EQ(j["pushed_routes"], nlohmann::json::array({"10.20.0.0/16", "172.20.0.0/16"}));
  const nlohmann::json want = nlohmann::json::parse(R"([
    {"cidr":"10.20.0.0/16","gateway":"10.8.0.9","metric":7},
    {"cidr":"172.20.0.0/16","gateway":"10.8.0.1","metric":100},
    {"cidr":"192.0.2.0/24","gateway":"10.8.0.1","metric":100},
    {"cidr":"10.0.0.0/8","gateway":"10.8.0.1","metric":100},
    {"cidr":"172.16.0.0/12","gateway":"10.8.0.1","metric":100},
    {"cidr":"192.168.0.0/16","gateway":"10.8.0.1","metric":100},
    {"cidr":"9.9.9.9/32","gateway":"10.8.0.1","metric":50}])");
  EXPECT_EQ(j["routes"], want) << j["routes"].dump();
  bool logged = false;
  for (const auto& l : j["connection_log"]) {
    logged = logged || l.get<std::string>().find("0.0.0.0/1 REFUSED") != std::string::npos;
  }
  EXPECT_TRUE(logged) << j["connection_log"].dump();
  // A full tunnel (the profile's gateway): no /1 halves, no resolver /32s.
  cfg.gateway = true;
  tc.pushed.routes.clear();
  const auto full = plan_of(tc, cfg, in);
  EXPECT_EQ(full["full_tunnel"], true);
  for (const auto& r : full["routes"]) {
    EXPECT_NE(r["cidr"], "0.0.0.0/1");
    EXPECT_NE(r["cidr"], "128.0.0.0/1");
    EXPECT_NE(r["cidr"], "9.9.9.9/32");
  }
}

TEST(NetworkPlan, ConnectionLogSanitizedAndLimitsAs0716) {
  // 0.7.16 sends log lines without control characters, ≤ 1024 bytes; Android's decoder
  // refuses the whole plan otherwise.
  EXPECT_EQ(sanitize_log_line("a\tb\r\nc\x7f"), "a b  c ");
  EXPECT_EQ(sanitize_log_line("x\xc2\x85y"), "x y");           // C1 NEL
  EXPECT_EQ(sanitize_log_line("\xff ok"), "\xEF\xBF\xBD ok");  // not UTF-8
  EXPECT_EQ(sanitize_log_line("маршрут"), "маршрут");
  std::string long_line;
  for (int i = 0; i < 700; ++i) long_line += "ж";  // 1400 bytes
  const std::string cut = sanitize_log_line(long_line);
  EXPECT_EQ(cut.size(), 1024U);
  EXPECT_TRUE(is_utf8(cut));

  config::ClientConfig cfg;
  const client::TunnelConfig tc = basic_session();
  PlanInputs in;
  in.generation = 1;
  in.connection_log = {"bad\x01line"};
  auto j = plan_of(tc, cfg, in);
  EXPECT_EQ(j["connection_log"][0], "bad line");
  // At most 256 routes, 256 pushed routes, 8 resolvers: more fails the plan.
  for (int i = 0; i < 257; ++i) {
    cfg.include.push_back(*config::Ipv4Cidr::parse("10." + std::to_string(i / 256 + 1) + "." +
                                                   std::to_string(i % 256) + ".0/24"));
  }
  auto many = build_network_plan(tc, cfg, in);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error(), "network plan contains 257 routes; maximum is 256");
  cfg.include.resize(256);
  EXPECT_TRUE(build_network_plan(tc, cfg, in).ok());
  cfg.include.clear();
  for (int i = 0; i < 9; ++i)
    cfg.dns_servers.push_back(*config::Ipv4Addr::parse("10.8.0." + std::to_string(i + 1)));
  auto dns = build_network_plan(tc, cfg, in);
  ASSERT_FALSE(dns.ok());
  EXPECT_EQ(dns.error(), "network plan contains 9 DNS servers; maximum is 8");
  // Our own log lines are cut, not fatal.
  cfg.dns_servers.clear();
  in.connection_log.assign(400, "line");
  j = plan_of(tc, cfg, in);
  EXPECT_EQ(j["connection_log"].size(), kMaxLogLines);
}

TEST(NetworkPlan, DnsAs0716) {
  // transport_core/network.rs planned_dns_servers: the profile's; else the pushed one in a
  // full tunnel or inside the tunnel's subnet; else the app's fallback; full tunnel with
  // dns = tunnel and nothing → the plan fails (fail closed); a pushed IPv6 one fails.
  config::ClientConfig cfg;
  client::TunnelConfig tc = basic_session();
  tc.pushed.prefix = 24;
  PlanInputs in;
  in.generation = 1;
  in.fallback_dns = {"9.9.9.9"};
  auto resolvers = [&] {
    std::vector<std::string> out;
    const auto j = plan_of(tc, cfg, in);
    for (const auto& d : j["dns_servers"]) out.push_back(d["address"]);
    return out;
  };
  using V = std::vector<std::string>;
  tc.pushed.dns = "10.8.0.53";  // in 10.8.0.0/24
  EXPECT_EQ(resolvers(), V{"10.8.0.53"});
  tc.pushed.dns = "1.1.1.1";  // outside it, split tunnel: the app's fallback instead
  EXPECT_EQ(resolvers(), V{"9.9.9.9"});
  in.fallback_dns.clear();
  EXPECT_EQ(resolvers(), V{});
  cfg.gateway = true;  // full tunnel: the pushed one, wherever it is
  EXPECT_EQ(resolvers(), V{"1.1.1.1"});
  tc.pushed.dns.clear();  // full tunnel, dns = tunnel, nothing at all: no plan
  auto none = build_network_plan(tc, cfg, in);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("full-tunnel DNS is set to tunnel mode"), std::string::npos);
  cfg.dns = config::ClientDns::kOff;  // the app manages DNS: fine
  EXPECT_TRUE(build_network_plan(tc, cfg, in).ok());
  cfg.dns = config::ClientDns::kTunnel;
  cfg.dns_servers.push_back(*config::Ipv4Addr::parse("192.0.2.53"));  // the profile's first
  tc.pushed.dns = "10.8.0.53";
  EXPECT_EQ(resolvers(), V{"192.0.2.53"});
  cfg.dns_servers.clear();
  tc.pushed.dns = "2001:db8::53";  // an IPv6 resolver in `dns`: 0.7.16 fails the plan
  EXPECT_FALSE(build_network_plan(tc, cfg, in).ok());
  tc.pushed.dns.clear();
  in.fallback_dns = {"2001:db8::53"};  // an IPv6 fallback for an IPv4-only session
  EXPECT_FALSE(build_network_plan(tc, cfg, in).ok());
}

}  // namespace
}  // namespace qeli::ffi
