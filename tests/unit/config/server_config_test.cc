// Server config: documented defaults, every §5.8 rule as a table, findings that name
// FILE / SECTION / KEY / line, users from inline sections and the users file.
#include "config/server_config.h"

#include "config/profile_link.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace qeli::config {
namespace {

constexpr const char* kHash =
    "$argon2id$v=19$m=19456,t=2,p=1$cWVsaXNhbHRxZWxpc2FsdA$"
    "Osd8oDq1tkVBcqiTspIFfzBiu8nQxjsRvUph715n65U";

class ServerConfigTest : public ::testing::Test {
 protected:
  ServerLoad load(const std::string& body, const std::string& users = "") {
    tmp_.write("users.conf", users);
    // Point users_file at the temporary users file: inside the body's own [auth] if it
    // has one, else in an [auth] appended after it (so body line numbers are file lines).
    std::string text = body;
    const auto auth = text.find("[auth]\n");
    if (auth == std::string::npos) {
      text += "\n[auth]\nusers_file = users.conf\n";
    } else {
      text.insert(auth + 7, "users_file = users.conf\n");
    }
    return load_server_config_text(text, tmp_.file("server.conf"));
  }
  test::TempDir tmp_;
};

std::string dump(const Findings& f) {
  std::string s;
  for (const auto& x : f.all()) s += x.to_string() + "\n";
  return s;
}

TEST_F(ServerConfigTest, minimal_profile_takes_documented_defaults) {
  const auto r = load("[profile:p]\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  ASSERT_EQ(r.config.profiles.size(), 1U);
  const auto& p = r.config.profiles[0];
  EXPECT_EQ(p.name, "p");
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.transport, Transport::kTcp);
  EXPECT_EQ(p.bind_address, "0.0.0.0");
  EXPECT_EQ(p.bind_port, 443);
  EXPECT_EQ(p.tun.name, "vpn0");
  EXPECT_EQ(p.tun.address.to_string(), "10.9.0.1");
  EXPECT_EQ(p.tun.mtu, 1400U);
  EXPECT_EQ(p.tun.queues, 0U);
  EXPECT_EQ(p.pool.cidr.to_string(), "10.9.0.0/24");
  EXPECT_FALSE(p.routing.client_to_client);
  EXPECT_TRUE(p.routing.forward_private);
  EXPECT_EQ(p.dns.port, 53);
  EXPECT_EQ(p.dns.upstream, (std::vector<std::string>{"1.1.1.1", "8.8.8.8"}));
  EXPECT_EQ(p.obf.mode, ObfMode::kFakeTls);
  EXPECT_EQ(p.obf.obfs_fronting, Fronting::kWebsocket);
  EXPECT_EQ(p.obf.awg.jmin, 40U);
  EXPECT_EQ(p.obf.awg.jmax, 300U);
  EXPECT_EQ(p.obf.tls_server_name, "www.cloudflare.com");
  EXPECT_EQ(p.obf.reality.peek_timeout, std::chrono::milliseconds{1500});
  EXPECT_TRUE(p.obf.padding.enabled);
  EXPECT_EQ(p.obf.padding.min_bytes, 32U);
  EXPECT_EQ(p.obf.padding.max_bytes, 512U);
  EXPECT_DOUBLE_EQ(p.obf.padding.probability, 1.0);
  EXPECT_EQ(p.obf.fragmentation.max_fragments_per_packet, 4U);
  EXPECT_EQ(p.obf.heartbeat.interval, std::chrono::milliseconds{15000});
  EXPECT_EQ(p.obf.heartbeat.jitter, std::chrono::milliseconds{20});
  EXPECT_EQ(p.obf.shaping.budget_bytes_per_sec, 16384U);
  EXPECT_EQ(p.obf.normalization.round_sizes.size(), 6U);
  EXPECT_EQ(p.obf.multipath.max_streams, 4U);
  EXPECT_EQ(p.perf.tun_read_buffer_size, 65535U);
  EXPECT_EQ(p.perf.max_clients, 128U);
  EXPECT_EQ(p.perf.idle_timeout, std::chrono::seconds{300});
  EXPECT_EQ(p.perf.new_session_rate_window, std::chrono::seconds{60});
  // Sections that are absent take their defaults, never zeros.
  EXPECT_TRUE(r.config.auth.bind_static_to_session);
  EXPECT_EQ(r.config.auth.brute_force.max_attempts, 5U);
  EXPECT_EQ(r.config.auth.brute_force.lockout, std::chrono::seconds{900});
  EXPECT_FALSE(r.config.web.enabled);
  EXPECT_EQ(r.config.web.port, 8080);
  EXPECT_EQ(r.config.web.session_ttl, std::chrono::seconds{86400});
  EXPECT_EQ(r.config.web.totp_secret, "");
  EXPECT_EQ(r.config.logging.level, LogLevel::kInfo);
  EXPECT_EQ(p.link_mode(), ClientMode::kFakeTls);
}

TEST_F(ServerConfigTest, bad_value_names_file_section_key_and_line) {
  const auto r = load("[profile:p]\ntun.name = q0\ntun.mtu = 1400 # max\n");
  ASSERT_FALSE(r.ok());
  ASSERT_TRUE(r.findings.contains(Severity::kError, "tun.mtu", "1400 # max"));
  for (const auto& f : r.findings.all()) {
    if (f.key != "tun.mtu") continue;
    EXPECT_EQ(f.file, tmp_.file("server.conf"));
    EXPECT_EQ(f.section, "profile:p");
    EXPECT_EQ(f.line, 3);
    EXPECT_NE(f.message.find("own line"), std::string::npos);  // the inline-comment hint
    EXPECT_EQ(f.to_string().rfind(tmp_.file("server.conf") + ":3: error: [profile:p] tun.mtu:", 0),
              0U);
  }
}

// A trial typed `obf.mode = obsf`: the error came with warnings about fake-tls (the
// default the refused value left behind). A refused key's dependants stay silent.
TEST_F(ServerConfigTest, a_refused_mode_adds_no_warnings_about_the_default) {
  const auto r = load("[profile:p]\ntun.name = q0\nobf.mode = obsf\nobf.awg.enabled = true\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.findings.contains(Severity::kError, "obf.mode", "obsf")) << dump(r.findings);
  EXPECT_EQ(r.findings.count(Severity::kWarning), 0U) << dump(r.findings);
}

// An unknown key names the known key it is closest to (a trial wrote `obfskey`).
TEST_F(ServerConfigTest, an_unknown_key_suggests_the_closest_known_one) {
  const auto r = load("[profile:p]\ntun.name = q0\nobf.obfs_kye = x\ntun.mtuu = 1400\nzzz = 1\n");
  bool typo = false, mtu = false, far = false;
  for (const auto& f : r.findings.all()) {
    if (f.key == "obf.obfs_kye")
      typo = f.message.find("did you mean `obf.obfs_key`") != std::string::npos;
    if (f.key == "tun.mtuu") mtu = f.message.find("did you mean `tun.mtu`") != std::string::npos;
    if (f.key == "zzz") far = f.message.find("did you mean") == std::string::npos;
  }
  EXPECT_TRUE(typo && mtu && far) << dump(r.findings);
}

struct RuleRow {
  std::string lines;  // appended to a valid [profile:p]
  const char* key;    // the key the finding must name; nullptr = must load cleanly
  Severity severity = Severity::kError;
};

TEST_F(ServerConfigTest, per_profile_rules_table) {
  const RuleRow rows[] = {
      {"bind.transport = sctp", "bind.transport"},
      {"bind.port = 0", "bind.port"},
      {"bind.port = 65536", "bind.port"},
      {"bind.port = 65535", nullptr},
      {"bind.address = example.com", "bind.address"},
      {"obf.mode = warp", "obf.mode"},
      {"obf.obfs_fronting = cdn", "obf.obfs_fronting"},
      {"tun.device_type = bridge", "tun.device_type"},
      {"tun.mtu = 575", "tun.mtu"},
      {"tun.mtu = 576", nullptr},
      {"tun.mtu = 16638\nperf.tun.read_buffer_size = 65535", nullptr},
      {"tun.mtu = 16639", "tun.mtu"},
      {"tun.name = abcdefghijklmnop", "tun.name"},
      {"tun.name = abcdefghijklmno", nullptr},
      {"tun.name = a b", "tun.name"},
      {"tun.name = a/b", "tun.name"},
      {"tun.queues = 257", "tun.queues"},
      {"tun.address = 10.9.0.0", "tun.address"},
      {"tun.address = 10.9.0.255", "tun.address"},
      {"tun.address = 10.8.0.1", "tun.address"},
      {"pool.cidr = 10.9.0.1/24", "pool.cidr"},
      {"pool.cidr = 10.9.0.0/31\ntun.address = 10.9.0.1", "pool.cidr"},
      {"pool.reservation.bob = 10.9.0.1", "pool.reservation.bob"},
      {"pool.reservation.bob = 10.9.0.9", nullptr},
      {"pool.ipv6.cidr = fd00:9::/64", nullptr},
      {"pool.ipv6.cidr = fd00:9::1/64", "pool.ipv6.cidr"},  // host bits set
      {"pool.ipv6.cidr = 10.9.0.0/24", "pool.ipv6.cidr"},
      {"pool.ipv6.cidr = fd00:9::/48", "pool.ipv6.cidr"},   // wider than a /64
      {"pool.ipv6.cidr = fd00:9::/126", "pool.ipv6.cidr"},  // 2 host bits < /24's 8
      {"pool.ipv6.cidr = fd00:9::/120", nullptr},
      {"pool.ipv6.cidr = fd00:9::/64\nroute = 2001:db8:7::/48 metric=50\nroute = 10.1.0.0/16",
       nullptr},
      {"route = 2001:db8:7::/48", "route", Severity::kWarning},  // no pool: reaches no one
      // Broader than /8: every client refuses it (a server cannot make a full tunnel).
      {"route = 0.0.0.0/0", "route", Severity::kWarning},
      {"route = 0.0.0.0/1\nroute = 128.0.0.0/1", "route", Severity::kWarning},
      {"pool.ipv6.cidr = fd00:9::/64\nroute = ::/0", "route", Severity::kWarning},
      {"pool.ipv6.cidr = fd00:9::/64\nroute = 2001:db8:7::/48 gateway=fd00:9::1", "route"},
      {"pool.ipv6.cidr = fd00:9::/64\nroute = 2001:db8::/129", "route"},
      {"pool.ipv6.cidr = fd00:9::/64\nroute = 2001:db8::/32 metric=x", "route"},
      {"pool.ipv6.cidr = fd00:9::/64\ntun.mtu = 1279", "pool.ipv6.cidr"},
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.mode = route", nullptr},
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.mode = nat64", "routing.ipv6.mode"},
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.ndp_proxy = maybe", "routing.ipv6.ndp_proxy"},
      // NDP proxying answers for the clients' own addresses: route mode only (nat66,
      // the default, hides them).
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.ndp_proxy = auto", "routing.ipv6.ndp_proxy"},
      {"pool.ipv6.cidr = 2001:db8:9::/64\nrouting.ipv6.mode = route\nrouting.ipv6.ndp_proxy = "
       "required",
       nullptr},
      // dns.listen_ipv6: an address of pool.ipv6.cidr (or auto) for the running proxy.
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = fd00:9::1", nullptr},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = AUTO", nullptr},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = fd00:9::53",
       "dns.listen_ipv6", Severity::kWarning},  // not the server's tunnel address
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = fd00:8::1",
       "dns.listen_ipv6"},  // outside the pool
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = fd00:9::1/64",
       "dns.listen_ipv6"},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = 10.9.0.1",
       "dns.listen_ipv6"},
      {"dns.enabled = true\ndns.listen_ipv6 = fd00:9::1", "dns.listen_ipv6"},  // no pool
      {"dns.enabled = true\ndns.listen_ipv6 = auto", "dns.listen_ipv6"},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.listen_ipv6 = fd00:9::1", "dns.listen_ipv6"},  // off
      {"pool.ipv6.cidr = fd00:9::/64\ndns.push_servers = 192.0.2.53, 2001:db8::53", nullptr},
      {"dns.push_servers = 2001:db8::53", "dns.push_servers", Severity::kWarning},  // no pool
      {"dns.push_servers = dns.example", "dns.push_servers"},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.push_servers = ::ffff:192.0.2.53", "dns.push_servers"},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.push_servers = fe80::53", "dns.push_servers"},
      {"pool.ipv6.cidr = fd00:9::/64\ndns.push_servers = ::1", "dns.push_servers"},
      {"dns.listen_ipv6 =", nullptr},  // blank = unset (files from when it was refused)
      {"pool.ipv6.cidr = fe80::/64", "pool.ipv6.cidr"},  // link-local
      {"pool.ipv6.cidr = 2001:db8:5::/64", nullptr},     // global unicast
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.mode = route\nrouting.ipv6.inbound = open",
       nullptr},
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.inbound = closed", "routing.ipv6.inbound"},
      {"pool.ipv6.cidr = fd00:9::/64\nrouting.ipv6.inbound = open", "routing.ipv6.inbound",
       Severity::kWarning},
      {"tun.mtu = 1400\ntun.mtu = 1300", "tun.mtu"},
      {"bind.transport = udp\nobf.mode = plain", "obf.mode"},
      {"bind.transport = udp\nobf.mode = reality-tls\nobf.tls.reality_proxy.enabled = true\n"
       "obf.tls.reality_proxy.short_ids = 01",
       "obf.mode"},
      {"obf.mode = reality-tls", "obf.mode"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = true",
       "obf.tls.reality_proxy.short_ids"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = true\n"
       "obf.tls.reality_proxy.short_ids = 0123456789abcdef\nobf.tls.reality_proxy.real_tls = true",
       nullptr},
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = 0000",
       "obf.tls.reality_proxy.short_ids"},
      {"obf.tls.reality_proxy.enabled = true\n"
       "obf.tls.reality_proxy.short_ids = 0123456789abcdef0",
       "obf.tls.reality_proxy.short_ids"},
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = ab\n"
       "obf.tls.reality_proxy.target_port = 0",
       "obf.tls.reality_proxy.target_port"},
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = ab\n"
       "bind.transport = udp",
       "obf.tls.reality_proxy.enabled"},
      {"obf.mode = obfs\nobf.tls.reality_proxy.enabled = true\n"
       "obf.tls.reality_proxy.short_ids = ab\nobf.obfs_key = k",
       "obf.tls.reality_proxy.enabled"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = true\n"
       "obf.tls.reality_proxy.short_ids = ab",
       "obf.tls.reality_proxy.real_tls", Severity::kWarning},
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = ab\n"
       "obf.tls.reality_proxy.target = 1.2.3.4",
       "obf.tls.reality_proxy.target", Severity::kWarning},
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = f",
       "obf.tls.reality_proxy.short_ids"},  // decodes to all zero (0.7.16's strict parse)
      {"obf.tls.reality_proxy.enabled = true\nobf.tls.reality_proxy.short_ids = aa:bb-cc dd",
       nullptr},
      // obf.tls.server_name: a host name of at most 253 characters; reality-tls probes the
      // target with it, so no IP, no empty name, no fake-tls forms there.
      {"obf.tls.server_name = " + std::string(254, 'a'), "obf.tls.server_name"},
      {"obf.tls.server_name = " + std::string(60, 'a') + "." + std::string(60, 'b'), nullptr},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name = 192.0.2.7",
       "obf.tls.server_name"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name =",
       "obf.tls.server_name"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name = !",
       "obf.tls.server_name"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name = ~",
       "obf.tls.server_name"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name = bad name.example",
       "obf.tls.server_name"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.server_name = www.example.com",
       nullptr},
      {"obf.tls.server_name = 192.0.2.7", "obf.tls.server_name", Severity::kWarning},
      {"obf.tls.server_name = !", nullptr},  // fake-tls: no SNI extension
      {"obf.tls.reality_proxy.real_tls = true", "obf.tls.reality_proxy.real_tls",
       Severity::kWarning},
      // A target that is this profile's own listener would bridge into itself.
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.reality_proxy.target = 127.0.0.1\nobf.tls.reality_proxy.target_port = 443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.reality_proxy.target = localhost\nobf.tls.reality_proxy.target_port = 443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nbind.address = 10.1.2.3\nobf.tls.reality_proxy.target = 10.1.2.3\n"
       "obf.tls.reality_proxy.target_port = 443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nbind.address = 10.1.2.3\nobf.tls.reality_proxy.target = 127.0.0.1\n"
       "obf.tls.reality_proxy.target_port = 443",
       nullptr},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nobf.tls.reality_proxy.target = localhost\nobf.tls.reality_proxy.target_port = 8443",
       nullptr},
      // ... also an extra `listen` endpoint, and an IPv6 one (IPv6 loopback on `::`).
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nlisten = 0.0.0.0:8443\nobf.tls.reality_proxy.target = 127.0.0.1\n"
       "obf.tls.reality_proxy.target_port = 8443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nbind.address = ::\nobf.tls.reality_proxy.target = ::1\n"
       "obf.tls.reality_proxy.target_port = 443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nlisten = [2001:db8::7]:443\nobf.tls.reality_proxy.target = 2001:0db8::7\n"
       "obf.tls.reality_proxy.target_port = 443",
       "obf.tls.reality_proxy.target"},
      {"obf.mode = reality-tls\nobf.tls.reality_proxy.enabled = "
       "true\nobf.tls.reality_proxy.real_tls = true\nobf.tls.reality_proxy.short_ids = "
       "ab\nbind.address = ::\nobf.tls.reality_proxy.target = 127.0.0.1\n"
       "obf.tls.reality_proxy.target_port = 443",
       nullptr},  // `::` takes IPv6 only: 127.0.0.1:443 is not this listener
      // `listen` takes numeric addresses of either family, IPv6 in brackets.
      {"listen = example.com:443", "listen"},
      {"listen = [vpn.example.com]:443", "listen"},
      {"listen = 2001:db8::1:443", "listen"},
      {"listen = [2001:db8::1]:8443, 192.0.2.1:8443", nullptr},
      {"obf.tls.reality_proxy.max_bridges = 65537", "obf.tls.reality_proxy.max_bridges"},
      {"obf.tls.reality_proxy.max_bridges = 16", nullptr},
      {"obf.tls.reality_proxy.bridge_connect_timeout_secs = 0",
       "obf.tls.reality_proxy.bridge_connect_timeout_secs"},
      {"obf.tls.reality_proxy.bridge_idle_timeout_secs = 0",
       "obf.tls.reality_proxy.bridge_idle_timeout_secs"},
      {"obf.tls.reality_proxy.bridge_lifetime_secs = x",
       "obf.tls.reality_proxy.bridge_lifetime_secs"},
      {"obf.mode = obfs", "obf.obfs_key"},
      {"obf.mode = obfs\nobf.obfs_key = secret", nullptr},  // TCP obfs
      // A placeholder copied from the docs, or a short key: loads, with a warning.
      {"obf.mode = obfs\nobf.obfs_key = <a long random secret>", "obf.obfs_key",
       Severity::kWarning},
      {"obf.mode = obfs\nobf.obfs_key = 0123456789abcdef0123", nullptr},
      {"bind.transport = udp\nobf.mode = obfs\nobf.obfs_key = secret", nullptr},
      {"obf.awg.jc = 129", "obf.awg.jc"},
      {"obf.awg.jc = 128", nullptr},
      {"obf.awg.jmin = 500\nobf.awg.jmax = 400", "obf.awg.jmin"},
      {"obf.awg.jmax = 1401", "obf.awg.jmax"},
      {"obf.awg.enabled = true", "obf.awg.enabled", Severity::kWarning},
      {"bind.transport = udp\nobf.multipath.enabled = true", "obf.multipath.enabled",
       Severity::kWarning},
      {"bind.transport = udp\nroaming.grace_secs = 5", "roaming.grace_secs", Severity::kWarning},
      {"roaming.enabled = false", nullptr},
      {"bind.transport = udp\nroaming.enabled = true", nullptr},
      {"obf.padding.min_bytes = 600\nobf.padding.max_bytes = 500", "obf.padding.min_bytes"},
      {"obf.padding.probability = 1.5", "obf.padding.probability"},
      {"obf.padding.probability = 0.5", nullptr},
      {"obf.fragmentation.min_chunk_size = 0", "obf.fragmentation.min_chunk_size"},
      {"obf.fragmentation.min_chunk_size = 2000", "obf.fragmentation.min_chunk_size"},
      {"obf.heartbeat.interval_ms = 0", "obf.heartbeat.interval_ms"},
      {"obf.heartbeat.enabled = false\nobf.heartbeat.interval_ms = 0", nullptr},
      {"obf.heartbeat.jitter_ms = 15000", "obf.heartbeat.jitter_ms"},
      {"obf.heartbeat.data_size_bytes = 2000", "obf.heartbeat.data_size_bytes"},
      {"obf.traffic_shaping.idle_gap_min_ms = 7000", "obf.traffic_shaping.idle_gap_min_ms"},
      {"obf.traffic_shaping.idle_gap_mean_ms = 0", "obf.traffic_shaping.idle_gap_mean_ms"},
      {"obf.traffic_shaping.budget_bytes_per_sec = 100",
       "obf.traffic_shaping.budget_bytes_per_sec"},
      {"obf.traffic_shaping.max_size = 16639", "obf.traffic_shaping.max_size"},
      {"obf.traffic_normalization.round_sizes = 64,0", "obf.traffic_normalization.round_sizes"},
      {"obf.traffic_normalization.round_sizes = ,", "obf.traffic_normalization.round_sizes"},
      {"bind.transport = udp\nobf.heartbeat.enabled = false\n"
       "perf.connection.idle_timeout_secs = 0",
       "obf.heartbeat.enabled"},
      {"bind.transport = udp\nobf.heartbeat.enabled = false", nullptr},
      {"dns.upstream_protocol = tls", "dns.upstream_protocol"},
      {"dns.upstream = 2606:4700::1111", nullptr},
      {"dns.enabled = true\ndns.upstream = 2606:4700::1111, ::1", nullptr},
      {"dns.enabled = true\ndns.upstream = 1.1.1.1, fd00::53", nullptr},
      {"dns.upstream = fe80::1", "dns.upstream", Severity::kWarning},
      {"dns.upstream = 1.1.1.1, dns.google", "dns.upstream", Severity::kWarning},
      {"dns.enabled = true\ndns.upstream = fe80::1, ff02::1", "dns.upstream"},
      {"dns.enabled = true\ndns.upstream = dns.google", "dns.upstream"},
      {"dns.upstream = 1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,"
       "1.0.0.9,1.0.0.10,1.0.0.11,1.0.0.12,1.0.0.13,1.0.0.14,1.0.0.15,1.0.0.16,1.0.0.17",
       "dns.upstream"},
      {"dns.blocklist = ads.example.com, *.tracker.example", nullptr},
      {"dns.blocklist = ads.example.com, bad domain", "dns.blocklist"},
      {"dns.blocklist = .", "dns.blocklist"},
      {"perf.tun.read_buffer_size = 1000", "perf.tun.read_buffer_size"},
      {"perf.tun.read_buffer_size = 1048577", "perf.tun.read_buffer_size"},
      {"tun.device_type = tap\nperf.tun.read_buffer_size = 1400", "perf.tun.read_buffer_size"},
      {"perf.udp.recv_buffer_size = 67108865", "perf.udp.recv_buffer_size"},
      {"perf.connection.new_session_rate_max = 0", "perf.connection.new_session_rate_max"},
      {"perf.connection.new_session_rate_window_secs = 0",
       "perf.connection.new_session_rate_window_secs"},
      {"dhcp.enabled = true\ndhcp.pool_start = 10.8.0.10", "dhcp.pool_start"},
      {"dhcp.enabled = true\ndhcp.pool_start = 10.9.0.1\ndhcp.pool_end = 10.9.0.20",
       "dhcp.pool_start"},
      // The range is checked even while the DHCP server itself is refused (not built).
      {"dhcp.pool_start = 10.9.0.10\ndhcp.pool_end = 10.9.0.20", nullptr},
      {"dhcp.enabled = true", "dhcp.enabled"},
      {"dhcp.lease_time_secs = 0", "dhcp.lease_time_secs"},
      {"route = 10.1.0.0/16 gateway=10.9.0.1 metric=5", nullptr},
      {"route = 10.1.0.0/16 via 10.9.0.1", "route"},
      {"enabled = maybe", "enabled"},
      {"tun.netmask = 255.255.255.0", "tun.netmask", Severity::kWarning},
      {"tun.mtu = 1400", "obf.mode", Severity::kWarning},  // fake-tls: LOW DPI resistance
      {"tun.mtuu = 1400", "tun.mtuu", Severity::kUnknownKey},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.lines);
    const auto r = load(std::string("[profile:p]\n") + row.lines + "\n");
    if (row.key == nullptr) {
      EXPECT_TRUE(r.ok()) << dump(r.findings);
      EXPECT_EQ(r.findings.count(Severity::kUnknownKey), 0U) << dump(r.findings);
      continue;
    }
    bool found = false;
    for (const auto& f : r.findings.all()) {
      if (f.key == row.key && f.severity == row.severity && f.section == "profile:p") {
        found = true;
        EXPECT_GE(f.line, 1);  // the key's line, or the section's when it is absent
      }
    }
    EXPECT_TRUE(found) << dump(r.findings);
    // A warning alone never refuses the config (rows about REALITY also meet its
    // "not supported yet" refusal, config/unbuilt.cc).
    if (row.severity != Severity::kError) {
      for (const auto& f : r.findings.all()) {
        if (f.severity == Severity::kError) {
          EXPECT_NE(f.message.find("not supported yet"), std::string::npos) << dump(r.findings);
        }
      }
    }
  }
}

TEST_F(ServerConfigTest, ipv6_inside_keys_take_their_values) {
  const auto r = load(
      "[profile:p]\npool.cidr = 10.9.0.0/24\npool.ipv6.cidr = FD00:9:0::/64\n"
      "routing.ipv6.mode = route\n[group:g]\nallowed_networks = 2001:db8::/32, 10.1.0.0/16\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  const ProfileConfig& p = r.config.profiles.at(0);
  ASSERT_TRUE(p.pool.ipv6.has_value());
  EXPECT_EQ(p.pool.ipv6->to_string(), "fd00:9::/64");
  EXPECT_EQ(p.routing.ipv6_mode, Ipv6Routing::kRoute);
  ASSERT_EQ(r.config.groups.size(), 1U);
  const GroupConfig* g = &r.config.groups[0];
  ASSERT_EQ(g->allowed_networks.size(), 1U);
  ASSERT_EQ(g->allowed_networks6.size(), 1U);
  EXPECT_EQ(g->allowed_networks6[0].to_string(), "2001:db8::/32");
  // Without the pool, the IPv6 routing keys are said to do nothing.
  const auto w = load("[profile:p]\nrouting.ipv6.mode = nat66\n");
  ASSERT_TRUE(w.ok()) << dump(w.findings);
  EXPECT_TRUE(w.findings.contains(Severity::kWarning, "routing.ipv6.mode", "no effect"))
      << dump(w.findings);
  EXPECT_FALSE(w.config.profiles.at(0).pool.ipv6.has_value());
}

// dns.listen_ipv6 = auto is the server's tunnel address; a refusal names the file, the
// section, the key and its line, and says what to write.
TEST_F(ServerConfigTest, dns_listen_ipv6_takes_auto_and_names_its_errors) {
  const auto r = load(
      "[profile:p]\npool.cidr = 10.8.0.0/16\ntun.address = 10.8.1.2\n"
      "pool.ipv6.cidr = fd00:8::/64\ndns.enabled = true\ndns.listen_ipv6 = auto\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  const ProfileConfig& p = r.config.profiles.at(0);
  ASSERT_TRUE(p.dns.listen_ipv6.has_value());
  EXPECT_EQ(p.dns.listen_ipv6->to_string(), "fd00:8::102");
  for (const auto& f : r.findings.all()) EXPECT_NE(f.key, "dns.listen_ipv6") << dump(r.findings);
  // Unset: IPv4 only, as before.
  EXPECT_FALSE(load("[profile:p]\npool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\n")
                   .config.profiles.at(0)
                   .dns.listen_ipv6.has_value());

  const auto bad = load(
      "[profile:p]\npool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\n"
      "dns.listen_ipv6 = fd00:7::1\n");
  ASSERT_FALSE(bad.ok());
  bool named = false;
  for (const auto& f : bad.findings.all()) {
    if (f.key != "dns.listen_ipv6") continue;
    named = f.file == tmp_.file("server.conf") && f.section == "profile:p" && f.line == 4 &&
            f.message.find("outside pool.ipv6.cidr fd00:9::/64") != std::string::npos;
  }
  EXPECT_TRUE(named) << dump(bad.findings);
  // The key without the pool says what it needs (and nothing about the unset pool).
  const auto no_pool = load("[profile:p]\ndns.enabled = true\ndns.listen_ipv6 = auto\n");
  EXPECT_TRUE(no_pool.findings.contains(Severity::kError, "dns.listen_ipv6", "pool.ipv6.cidr"))
      << dump(no_pool.findings);
}

TEST_F(ServerConfigTest, section_rules) {
  struct Row {
    const char* text;
    const char* section;
    const char* key;
  };
  const Row rows[] = {
      {"[auth]\nbrute_force.max_attempts = 0\n[profile:p]\n", "auth", "brute_force.max_attempts"},
      {"[auth]\nbrute_force.window_secs = 86401\n[profile:p]\n", "auth", "brute_force.window_secs"},
      {"[web]\nport = 0\n[profile:p]\n", "web", "port"},
      {"[web]\nbind = localhost\n[profile:p]\n", "web", "bind"},
      {"[web]\npublic_host = 2001:db8::1\n[profile:p]\n", "web", "public_host"},
      {"[web]\nsession_ttl_secs = 2592001\n[profile:p]\n", "web", "session_ttl_secs"},
      // TOTP secrets: Base32 only, and at least 128 bits (26 characters).
      {"[web]\ntotp_secret = GEZDGNBVGY3TQOJQ\n[profile:p]\n", "web", "totp_secret"},
      {"[web]\ntotp_secret = GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ1\n[profile:p]\n", "web",
       "totp_secret"},
      {"[logging]\nlevel = loud\n[profile:p]\n", "logging", "level"},
      {"[profile:p]\n[profile:p]\ntun.name = v1\nbind.port = 1\npool.cidr = 10.1.0.0/24\n"
       "tun.address = 10.1.0.1\n",
       "profile:p", ""},
      {"[profile:a]\n[profile:b]\nbind.port = 443\ntun.name = v1\npool.cidr = 10.1.0.0/24\n"
       "tun.address = 10.1.0.1\n",
       "profile:b", "bind.port"},
      {"[profile:a]\n[profile:b]\nbind.port = 444\npool.cidr = 10.1.0.0/24\n"
       "tun.address = 10.1.0.1\n",
       "profile:b", "tun.name"},
      {"[profile:a]\n[profile:b]\nbind.port = 444\ntun.name = v1\n", "profile:b", "pool.cidr"},
      {"[profile:a]\nbind.port = 8080\n[web]\nenabled = true\nbind = 0.0.0.0\n", "web", "port"},
      {"[profile:a]\ndns.enabled = true\n[profile:b]\nbind.port = 53\nbind.transport = udp\n"
       "tun.name = v1\npool.cidr = 10.1.0.0/24\ntun.address = 10.1.0.1\n",
       "profile:b", "bind.port"},
      // The proxy listens on TCP too: a TCP profile on its port collides.
      {"[profile:a]\ndns.enabled = true\ndns.listen = 10.9.0.1\n[profile:b]\nbind.port = 53\n"
       "bind.address = 10.9.0.1\ntun.name = v1\npool.cidr = 10.1.0.0/24\ntun.address = 10.1.0.1\n",
       "profile:b", "bind.port"},
      // ... and on the IPv6 address too (dns.listen_ipv6 = auto is fd00:9::1).
      {"[profile:a]\npool.ipv6.cidr = fd00:9::/64\ndns.enabled = true\ndns.listen_ipv6 = auto\n"
       "[profile:b]\nbind.port = 53\nbind.address = fd00:9::1\ntun.name = v1\n"
       "pool.cidr = 10.1.0.0/24\ntun.address = 10.1.0.1\n",
       "profile:b", "bind.port"},
      {"[profile.main]\n", "profile.main", ""},
      {"[qeli]\nserver = x:1\n", "qeli", ""},
      {"stray = 1\n[profile:p]\n", "", "stray"},
      {"[group:g]\nmax_sessions = x\n[profile:p]\n", "group:g", "max_sessions"},
      {"[auth]\n", "", ""},  // no profile at all
      {"[auth]\n[auth]\n[profile:p]\n", "auth", ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.text);
    const auto r = load(row.text);
    bool found = false;
    for (const auto& f : r.findings.all()) {
      found =
          found || (f.severity == Severity::kError && f.section == row.section && f.key == row.key);
    }
    EXPECT_TRUE(found) << dump(r.findings);
    EXPECT_FALSE(r.ok());
  }
}

// Listener collisions compare addresses, not their spelling, and an IPv6 listener takes
// IPv6 only (so `::` beside `0.0.0.0` on one port is fine).
TEST_F(ServerConfigTest, listener_collisions_by_family_and_canonical_address) {
  const std::string b =
      "[profile:b]\ntun.name = v1\npool.cidr = 10.1.0.0/24\ntun.address = 10.1.0.1\n"
      "bind.transport = udp\n";
  auto r = load("[profile:a]\nbind.transport = udp\nbind.address = 2001:db8::1\n" + b +
                "bind.address = 2001:0db8:0::1\n");
  EXPECT_TRUE(r.findings.contains(Severity::kError, "bind.port", "")) << dump(r.findings);
  r = load("[profile:a]\nbind.transport = udp\nbind.address = ::\n" + b +
           "bind.address = 0.0.0.0\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  r = load("[profile:a]\nbind.address = ::\nlisten = 0.0.0.0:443\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  r = load("[profile:a]\nbind.address = ::\nlisten = [2001:db8::1]:443\n");
  EXPECT_TRUE(r.findings.contains(Severity::kError, "listen", "")) << dump(r.findings);
}

// Two TUNs with one IPv6 prefix would hand one profile's packets to the other's sessions.
TEST_F(ServerConfigTest, ipv6_pools_of_enabled_profiles_must_not_overlap) {
  const std::string b =
      "[profile:b]\ntun.name = v1\npool.cidr = 10.1.0.0/24\ntun.address = 10.1.0.1\n"
      "bind.transport = udp\n";
  auto r = load("[profile:a]\npool.ipv6.cidr = fd00:9::/64\n" + b +
                "pool.ipv6.cidr = fd00:9::100/120\n");
  EXPECT_TRUE(r.findings.contains(Severity::kError, "pool.ipv6.cidr", "overlaps"))
      << dump(r.findings);
  r = load("[profile:a]\npool.ipv6.cidr = fd00:9::/64\n" + b + "pool.ipv6.cidr = fd00:a::/64\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
}

TEST_F(ServerConfigTest, disabled_profiles_may_share_ports) {
  const auto r = load("[profile:a]\n[profile:b]\nenabled = false\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
}

TEST_F(ServerConfigTest, users_inline_and_file_the_file_wins) {
  const std::string inline_users = std::string("[user:alice]\npassword_hash = ") + kHash +
                                   "\nmax_sessions = 1\n[user:carol]\npassword_hash = " + kHash +
                                   "\n";
  const std::string file_users =
      std::string("[user:alice]\npassword_hash = ") + kHash + "\nmax_sessions = 7\n";
  const auto r = load("[profile:p]\n" + inline_users, file_users);
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  ASSERT_EQ(r.config.users.size(), 2U);
  const auto* alice = r.config.find_user("alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->max_sessions, 7U);
  EXPECT_EQ(alice->source_file, tmp_.file("users.conf"));
  EXPECT_NE(r.config.find_user("carol"), nullptr);
  EXPECT_TRUE(r.findings.contains(Severity::kWarning, "", "the users file wins"));
}

TEST_F(ServerConfigTest, user_rules) {
  struct Row {
    const char* user_lines;
    const char* key;
  };
  const Row rows[] = {
      {"max_sessions = 2", nullptr},
      {"enabled = nope", "enabled"},
      {"profiles = p,ghost", "profiles"},
      {"group = nogroup", "group"},
      {"static_ip = 10.9.0.50", nullptr},
      {"static_ip = 10.9.0.1", "static_ip"},
      {"static_ip = 10.99.0.5", "static_ip"},
      {"static_ip = 10.9.0.5.1", "static_ip"},
      {"client_subnet = 0.0.0.0/0", "client_subnet"},
      {"allowed_networks = 10.0.0.0/8, 2001:db8::/32, fd00:9::1", nullptr},
      {"allowed_networks = 2001:db8::1/32", "allowed_networks"},
      {"client_subnet = 10.9.0.0/16", "client_subnet"},
      {"client_subnet = 192.168.7.0/24\nclient_subnet = 192.168.8.0/24", nullptr},
      {"client_subnet = 10.9.0.128/25", "client_subnet"},  // inside the pool
      {"client_subnet = 224.0.0.0/4", "client_subnet"},
      {"client_subnet = 127.0.0.0/8", "client_subnet"},
      {"client_subnet = 2001:db8:7::/48, 192.168.7.0/24", nullptr},
      {"client_subnet = ::/0", "client_subnet"},
      {"client_subnet = fe80::/64", "client_subnet"},
      {"client_subnet = ff05::/16", "client_subnet"},
      {"client_subnet = 2001:db8:7::1/48", "client_subnet"},  // host bits
      {"route = 10.0.0.0/8", nullptr},
      {"route = 10.0.0.0", "route"},
      {"route = 2001:db8:5::/48 metric=10\nroute = 10.0.0.0/8", nullptr},
      {"route = 2001:db8:5::/48 gateway=fd00::1", "route"},
      {"expire_at = tomorrow", "expire_at"},
      {"bandwidth.limit_mbps = -1", "bandwidth.limit_mbps"},
      {"metadata.email = a@b.c", nullptr},
      {"reality_short_ids = 0a0b0c0d", nullptr},
      {"reality_short_ids = 0a0b0c0d,zz", "reality_short_ids"},
      {"reality_short_ids = 00", "reality_short_ids"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.user_lines);
    const auto r = load(std::string("[profile:p]\n[user:u]\npassword_hash = ") + kHash + "\n" +
                        row.user_lines + "\n");
    if (row.key == nullptr) {
      EXPECT_TRUE(r.ok()) << dump(r.findings);
      continue;
    }
    EXPECT_TRUE(r.findings.contains(Severity::kError, row.key, "")) << dump(r.findings);
  }
  // IPv6 networks behind a client: routed only where the profile has an IPv6 plan (a
  // warning otherwise), and never inside that plan.
  const std::string sub6 =
      std::string("[user:u]\npassword_hash = ") + kHash + "\nclient_subnet = 2001:db8:7::/48\n";
  const auto no_plan = load("[profile:p]\n" + sub6);
  EXPECT_TRUE(no_plan.ok()) << dump(no_plan.findings);
  EXPECT_TRUE(no_plan.findings.contains(Severity::kWarning, "client_subnet", "pool.ipv6.cidr"))
      << dump(no_plan.findings);
  const auto planned = load("[profile:p]\npool.ipv6.cidr = fd00:9::/64\n" + sub6);
  EXPECT_TRUE(planned.ok()) << dump(planned.findings);
  EXPECT_FALSE(planned.findings.contains(Severity::kWarning, "client_subnet", ""));
  const auto inside = load(std::string("[profile:p]\npool.ipv6.cidr = fd00:9::/64\n[user:u]\n") +
                           "password_hash = " + kHash + "\nclient_subnet = fd00:9::/80\n");
  EXPECT_TRUE(inside.findings.contains(Severity::kError, "client_subnet", "pool.ipv6.cidr"))
      << dump(inside.findings);
  // A REALITY short id has one owner: a profile's shared list or one user.
  const std::string two =
      std::string("[profile:p]\nobf.tls.reality_proxy.enabled = true\n") +
      "obf.tls.reality_proxy.short_ids = ab\n[user:u]\npassword_hash = " + kHash +
      "\nreality_short_ids = cd\n[user:v]\npassword_hash = " + kHash + "\nreality_short_ids = ";
  EXPECT_TRUE(load(two + "ef\n").ok());
  EXPECT_TRUE(
      load(two + "CD\n")
          .findings.contains(Severity::kError, "reality_short_ids", "already belongs to user u"));
  EXPECT_TRUE(load(two + "ab\n")
                  .findings.contains(Severity::kError, "reality_short_ids",
                                     "already belongs to profile p"));
  // A user without a usable hash could never log in.
  EXPECT_TRUE(load("[profile:p]\n[user:u]\n")
                  .findings.contains(Severity::kError, "password_hash", "missing"));
  EXPECT_TRUE(load("[profile:p]\n[user:u]\npassword_hash = plain\n")
                  .findings.contains(Severity::kError, "password_hash", "Argon2id"));
}

// perf.tun.read_buffer_size is parsed and range-checked for 0.7.16 configs, but the TUN is
// always read for a whole super-packet: a value other than the default says so.
TEST_F(ServerConfigTest, read_buffer_size_has_no_effect) {
  EXPECT_FALSE(load("[profile:p]\nperf.tun.read_buffer_size = 65535\n")
                   .findings.contains(Severity::kWarning, "perf.tun.read_buffer_size", ""));
  const auto r = load("[profile:p]\nperf.tun.read_buffer_size = 262144\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_TRUE(r.findings.contains(Severity::kWarning, "perf.tun.read_buffer_size", "no effect"))
      << dump(r.findings);
  EXPECT_TRUE(load("[profile:p]\nperf.tun.read_buffer_size = 100\n")
                  .findings.contains(Severity::kError, "perf.tun.read_buffer_size", ""));
}

// A relative identity_key is beside the config file, as auth.identity_dir is.
TEST_F(ServerConfigTest, identity_key_is_beside_the_config) {
  const auto r = load(
      "[profile:p]\nidentity_key = keys/p.key\n[profile:q]\n"
      "bind.port = 8444\ntun.name = qeli9\npool.cidr = 10.10.0.0/24\n"
      "tun.address = 10.10.0.1\nidentity_key = /var/k/q.key\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.config.find_profile("p")->identity_key, tmp_.file("keys/p.key"));
  EXPECT_EQ(r.config.find_profile("q")->identity_key, "/var/k/q.key");
}

// pool.reservation.<user>: one address has one holder in a pool (two would supersede each
// other's session at every log-in), and a reservation names a user.
TEST_F(ServerConfigTest, reservations_have_one_holder) {
  const std::string users = std::string("[user:u]\npassword_hash = ") + kHash +
                            "\n[user:v]\npassword_hash = " + kHash + "\n";
  EXPECT_TRUE(load("[profile:p]\npool.reservation.u = 10.9.0.7\n"
                   "pool.reservation.v = 10.9.0.8\n" +
                   users)
                  .ok());
  const auto twice = load(
      "[profile:p]\npool.reservation.u = 10.9.0.7\n"
      "pool.reservation.v = 10.9.0.7\n" +
      users);
  EXPECT_TRUE(
      twice.findings.contains(Severity::kError, "pool.reservation.v", "reserved for `u` too"))
      << dump(twice.findings);
  const auto taken = load("[profile:p]\npool.reservation.u = 10.9.0.7\n" + users +
                          "[user:w]\npassword_hash = " + kHash + "\nstatic_ip = 10.9.0.7\n");
  EXPECT_TRUE(
      taken.findings.contains(Severity::kError, "pool.reservation.u", "static_ip of user `w`"))
      << dump(taken.findings);
  // The user's own static_ip may equal the reservation; another profile's user does not
  // count.
  const auto other = load(
      "[profile:p]\npool.reservation.u = 10.9.0.7\n[profile:q]\n"
      "bind.port = 8444\ntun.name = qeli9\n" +
      users + "[user:w]\npassword_hash = " + kHash + "\nstatic_ip = 10.9.0.7\nprofiles = q\n");
  EXPECT_FALSE(other.findings.contains(Severity::kError, "pool.reservation.u", ""))
      << dump(other.findings);
  const auto ghost = load("[profile:p]\npool.reservation.nobody = 10.9.0.7\n" + users);
  EXPECT_TRUE(ghost.ok()) << dump(ghost.findings);
  EXPECT_TRUE(ghost.findings.contains(Severity::kWarning, "pool.reservation.nobody",
                                      "no user named `nobody`"))
      << dump(ghost.findings);
}

TEST_F(ServerConfigTest, users_file_other_sections_are_errors) {
  const auto r = load("[profile:p]\n", "[profile:x]\n");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.findings.contains(Severity::kError, "", "only [user:NAME]"));
}

TEST_F(ServerConfigTest, explicit_missing_users_file_is_an_error) {
  const auto r = load_server_config_text("[auth]\nusers_file = nope.conf\n[profile:p]\n",
                                         tmp_.file("server.conf"));
  EXPECT_TRUE(r.findings.contains(Severity::kError, "users_file", "does not exist"));
}

TEST(server_config, missing_file_is_an_error) {
  const auto r = load_server_config("/nonexistent/server.conf");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.findings.all()[0].file, "/nonexistent/server.conf");
}

TEST(server_config, route_spec) {
  const auto r = parse_route("10.1.0.0/16 metric=5 gateway=10.9.0.2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->to_string(), "10.1.0.0/16 gateway=10.9.0.2 metric=5");
  EXPECT_FALSE(parse_route(""));
  EXPECT_FALSE(parse_route("10.1.0.0/16 metric=5 metric=6"));
  EXPECT_FALSE(parse_route("10.1.0.0/16 gateway=x"));
}

TEST(server_config, link_mode_follows_the_reality_proxy) {
  ProfileConfig p;
  p.obf.mode = ObfMode::kFakeTls;
  p.obf.reality.enabled = true;
  EXPECT_EQ(p.link_mode(), ClientMode::kReality);
  p.obf.reality.real_tls = true;
  EXPECT_EQ(p.link_mode(), ClientMode::kRealityTls);
  p.obf.reality.enabled = false;
  p.obf.mode = ObfMode::kObfs;
  EXPECT_EQ(p.link_mode(), ClientMode::kObfs);
}

// A 0.7.16 client refuses mode=reality: the link carries fake-tls and the short id, and
// our client reads it back as a fake-TLS config that seals the REALITY token.
TEST(server_config, reality_link_is_fake_tls_with_rsid_as_0716_writes_it) {
  ProfileConfig p;
  p.transport = Transport::kTcp;
  p.bind_port = 443;
  p.obf.mode = ObfMode::kFakeTls;
  p.obf.tls_server_name = "www.example.com";
  p.obf.reality.enabled = true;
  p.obf.reality.short_ids = {"0123456789abcdef"};
  const std::string key(64, 'a');
  LinkTarget t{"vpn.example.com", 0, "alice", "pw", key, "", ""};
  const std::string text = emit_link(link_for_profile(p, t));
  EXPECT_EQ(text, "qeli://alice:pw@vpn.example.com:443?proto=tcp&mode=fake-tls&key=" + key +
                      "&sni=www.example.com&rsid=0123456789abcdef");
  const auto back = parse_link(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->mode, ClientMode::kFakeTls);
  EXPECT_EQ(back->reality_sid, "0123456789abcdef");
  EXPECT_TRUE(validate_link(*back).empty());
  // With real TLS the link says reality-tls, as 0.7.16's does.
  p.obf.reality.real_tls = true;
  EXPECT_EQ(link_for_profile(p, t).mode, ClientMode::kRealityTls);
}

TEST(server_config, shipped_examples_load_without_errors) {
  const char* src = std::getenv("QELI_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  const auto r = load_server_config(std::string(src) + "/config/server.conf");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.findings.count(Severity::kUnknownKey), 0U) << dump(r.findings);
  ASSERT_EQ(r.config.profiles.size(), 2U);
  EXPECT_EQ(r.config.profiles[0].obf.mode, ObfMode::kFakeTls);
  EXPECT_EQ(r.config.profiles[1].obf.mode, ObfMode::kPlain);
  ASSERT_NE(r.config.find_user("alice"), nullptr);
}

}  // namespace
}  // namespace qeli::config
