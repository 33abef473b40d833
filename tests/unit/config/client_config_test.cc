// Client config: the strict parser (unknown keys and bad values are errors), defaults,
// aliases, §5.7 rules, and configs built from links.
#include "config/client_config.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace qeli::config {
namespace {

std::string dump(const Findings& f) {
  std::string s;
  for (const auto& x : f.all()) s += x.to_string() + "\n";
  return s;
}

ClientLoad load(const std::string& qeli_lines) {
  return load_client_config_text("[qeli]\nserver = vpn.example.com:443\n" + qeli_lines,
                                 "client.conf");
}

// A relative password_file is beside the config file (as every path key), not in the
// working directory, which is `/` under systemd.
TEST(client_config, password_file_is_beside_the_config) {
  const std::string head = "[qeli]\nserver = vpn.example.com:443\npassword_file = ";
  EXPECT_EQ(
      load_client_config_text(head + "pw.txt\n", "/etc/qeli/client.conf").config.password_file,
      "/etc/qeli/pw.txt");
  EXPECT_EQ(
      load_client_config_text(head + "/run/pw\n", "/etc/qeli/client.conf").config.password_file,
      "/run/pw");
}

TEST(client_config, defaults) {
  const auto r = load("");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  const auto& c = r.config;
  EXPECT_EQ(c.server.host, "vpn.example.com");
  EXPECT_EQ(c.server.port, 443);
  EXPECT_EQ(c.proto, Transport::kTcp);
  EXPECT_EQ(c.mode, ClientMode::kFakeTls);
  EXPECT_EQ(c.user, "client");
  EXPECT_TRUE(c.bind_static);
  EXPECT_FALSE(c.allow_unpinned_tofu);
  EXPECT_EQ(c.front, Fronting::kWebsocket);
  EXPECT_EQ(c.timeout, std::chrono::seconds{30});
  EXPECT_EQ(c.keepalive, std::chrono::seconds{60});
  EXPECT_FALSE(c.recv_buffer_size.has_value());
  EXPECT_EQ(c.reconnect_retries, -1);
  EXPECT_EQ(c.reconnect_base_delay, std::chrono::seconds{1});
  EXPECT_EQ(c.reconnect_max_delay, std::chrono::seconds{60});
  EXPECT_EQ(c.dev, "vpn0");
  EXPECT_EQ(c.mtu, 0U);
  EXPECT_TRUE(c.mtu_probe);
  EXPECT_FALSE(c.gateway);
  EXPECT_EQ(c.dns, ClientDns::kTunnel);
  EXPECT_FALSE(c.kill_switch);
  EXPECT_EQ(c.fallbacks.heartbeat_interval, std::chrono::milliseconds{15000});
}

TEST(client_config, reality_tls_with_a_server_ip_needs_sni) {
  const std::string body =
      "[qeli]\nserver = 192.0.2.1:443\nmode = reality-tls\nreality_sid = ab\n"
      "key = " +
      std::string(64, 'a') + "\n";
  const auto r = load_client_config_text(body, "client.conf");
  EXPECT_FALSE(r.ok());
  bool found = false;
  for (const auto& f : r.findings.all()) found = found || f.key == "sni";
  EXPECT_TRUE(found) << dump(r.findings);
  EXPECT_TRUE(load_client_config_text(body + "sni = www.example.com\n", "client.conf").ok());
}

TEST(client_config, an_ip_address_as_sni_is_a_warning_in_fake_tls) {
  const auto r = load("sni = 192.0.2.1\n");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.findings.count(Severity::kWarning), 1U) << dump(r.findings);
}

TEST(client_config, strict_rules_table) {
  struct Row {
    std::string lines;
    const char* key;  // nullptr: must load cleanly
  };
  const Row rows[] = {
      {"mode = udp-quic", nullptr},
      {"mode = udp-obfs\nobfs_key = k", nullptr},
      {"mode = warp", "mode"},
      {"proto = udp\nmode = plain", "mode"},
      {"proto = udp\nmode = reality-tls\nreality_sid = ab", "mode"},
      {"mode = reality", "reality_sid"},
      {"mode = reality\nreality_sid = 0123456789abcdef", "key"},  // the token needs the pin
      {"mode = reality\nreality_sid = 0123456789abcdef\nkey = " + std::string(64, '0'), "key"},
      {"mode = reality\nreality_sid = 0123456789abcdef\nkey = " + std::string(64, 'a'), nullptr},
      {"mode = reality\nreality_sid = f\nkey = " + std::string(64, 'a'), "reality_sid"},
      {"reality_sid = 00", "reality_sid"},
      {"mode = obfs", "obfs_key"},
      {"quic = true", nullptr},  // a warning: 0.7.16 accepts it over TCP, where it does nothing
      {"key = abcd", "key"},
      {"key = " + std::string(64, 'A'), nullptr},
      {"jc = 129", "jc"},
      {"jmin = 500\njmax = 400", "jmin"},
      {"jmax = 1401", "jmax"},
      {"mtu = 575", "mtu"},
      {"mtu = 0", nullptr},
      {"mtu = 16639", "mtu"},
      {"dev = abcdefghijklmnop", "dev"},
      {"timeout = 0", "timeout"},
      {"timeout = 30s", "timeout"},
      {"gateway = yes", nullptr},
      {"gateway = maybe", "gateway"},
      {"dns = resolvconf", "dns"},
      {"dns_servers = 1.1.1.1, 9.9.9.9", nullptr},
      {"dns_servers = one.one.one.one", "dns_servers"},
      {"include = 10.0.0.0/8\nexclude = 10.1.0.0/16,192.168.1.1", nullptr},
      {"exclude = 10.1.0.1/16", "exclude"},
      {"include = 2001:db8::/32, 10.2.0.0/16\nexclude = 2001:db8:1::/48,2001:db8::53", nullptr},
      {"exclude = 2001:db8::1/32", "exclude"},  // host bits set
      {"include = fd00::/129", "include"},
      {"reconnect_retries = -2", "reconnect_retries"},
      {"reconnect_base_delay = 100\nreconnect_max_delay = 10", "reconnect_base_delay"},
      {"pass = a\npassword_file = /x", "pass"},
      {"padding_min = 600\npadding_max = 500", "padding_min"},
      {"heartbeat_jitter = 20000", "heartbeat_jitter"},
      {"apps_mode = some", "apps_mode"},
      {"mtu = 1400 # comment", "mtu"},
      {"user = a\nuser = b", "user"},
      {"sevrer = x:1", "sevrer"},                 // unknown keys are errors in client files
      {"sni = " + std::string(254, 'a'), "sni"},  // longer than any host name
      {"mode = reality-tls\nreality_sid = ab\nkey = " + std::string(64, 'a') + "\nsni = 192.0.2.1",
       "sni"},  // a real hello never names an IP
      {"mode = reality-tls\nreality_sid = ab\nkey = " + std::string(64, 'a') + "\nsni = ~", "sni"},
      {"mode = reality-tls\nreality_sid = ab\nkey = " + std::string(64, 'a') +
           "\nsni = www.example.com",
       nullptr},
      {"mode = reality-tls\nreality_sid = ab\nkey = " + std::string(64, 'a') + "\n",
       nullptr},  // the server's host name serves as sni
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.lines);
    const auto r = load(row.lines + "\n");
    if (row.key == nullptr) {
      EXPECT_TRUE(r.ok()) << dump(r.findings);
      continue;
    }
    EXPECT_FALSE(r.ok());
    bool found = false;
    for (const auto& f : r.findings.all()) {
      found = found || (f.severity == Severity::kError && f.key == row.key && f.section == "qeli" &&
                        f.file == "client.conf" && f.line >= 1);
    }
    EXPECT_TRUE(found) << dump(r.findings);
  }
}

TEST(client_config, dns_system_is_off_as_in_0_7_16) {
  // 0.7.16's editors write `dns = system`; it leaves the host's resolver alone, like `off`.
  for (const char* v : {"system", "SYSTEM", "off"}) {
    SCOPED_TRACE(v);
    const auto r = load(std::string("dns = ") + v + "\n");
    ASSERT_TRUE(r.ok()) << dump(r.findings);
    EXPECT_EQ(r.config.dns, ClientDns::kOff);
  }
  EXPECT_EQ(load("dns = tunnel\n").config.dns, ClientDns::kTunnel);
}

// What 0.7.16's desktop app writes into the profile it hands its core (VpnConfig.
// ToTransportCoreIni): GUI-only keys, platform features and a [logging] section, with
// values 0.7.16 never checks. An app profile (libqeli) takes it; `qeli client` does not.
const char* const kDesktopProfile =
    "[qeli]\nname = My VPN\nserver = vpn.example.com:443\nproto = tcp\nuser = alice\n"
    "pass = secret\nmode = fake-tls\ngateway = false\napps_mode = include\n"
    "apps = C:\\Program Files\\Firefox\\firefox.exe\npersist_tun = true\nforward = true\n"
    "route_file = C:\\routes.txt\nmetric = 5\ndev_node = wintun\ndns = system\n"
    "reconnect = false\nreconnect_retries = 5\nreconnect_base_delay = 100\n"
    "reconnect_max_delay = 10\ntimeout = 30\nheartbeat_interval = 15000\n"
    "heartbeat_jitter = 20000\nshaping = true\nshaping_stealth = true\nawg = true\njc = 200\n"
    "jmin = 500\njmax = 2000\nlocal = 192.168.1.5\ninclude = 10.1.0.0/16, 10.2.0.1/16, lan\n"
    "[logging]\nlevel = verbose\nfile = logs/qeli.log\ntime_format = iso\n";

TEST(client_config, an_app_profile_takes_what_0_7_16_takes) {
  ClientLoadOptions app;
  app.app_profile = true;
  const auto r = load_client_config_text(kDesktopProfile, "<app>", app);
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  // AmneziaWG junk clamped to 0.7.16's caps, not refused.
  EXPECT_EQ(r.config.jc, kAwgJcMax);
  EXPECT_EQ(r.config.jmax, kAwgJunkMaxBytes);
  EXPECT_EQ(r.config.jmin, 500U);
  EXPECT_EQ(r.config.dns, ClientDns::kOff);
  // A routing-list entry it cannot read is left out (a warning), as 0.7.16 does.
  ASSERT_EQ(r.config.include.size(), 1U);
  EXPECT_EQ(r.config.include[0].to_string(), "10.1.0.0/16");
  EXPECT_TRUE(r.findings.contains(Severity::kWarning, "include", "")) << dump(r.findings);
  // Unknown keys stay errors, in [qeli] and in [logging] (as 0.7.16).
  EXPECT_FALSE(
      load_client_config_text(std::string(kDesktopProfile) + "colour = red\n", "<app>", app).ok());
  EXPECT_FALSE(
      load_client_config_text("[qeli]\nserver = a:1\nkill_swtich = true\n", "<app>", app).ok());
  // The daemon keeps its checks: each of those keys is refused there.
  const auto daemon = load_client_config_text(kDesktopProfile, "client.conf");
  EXPECT_FALSE(daemon.ok());
  for (const char* key : {"apps", "persist_tun", "metric", "reconnect_base_delay",
                          "heartbeat_jitter", "shaping", "jc", "local", "include"}) {
    EXPECT_TRUE(daemon.findings.contains(Severity::kError, key, ""))
        << key << dump(daemon.findings);
  }
  EXPECT_TRUE(daemon.findings.contains(Severity::kError, "level", "")) << dump(daemon.findings);
}

TEST(client_config, alias_sets_transport_mode_and_quic) {
  const auto r = load("mode = udp-quic\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.config.proto, Transport::kUdp);
  EXPECT_EQ(r.config.mode, ClientMode::kFakeTls);
  EXPECT_TRUE(r.config.quic);
}

TEST(client_config, structure_errors) {
  EXPECT_TRUE(load_client_config_text("[logging]\nlevel = info\n", "c")
                  .findings.contains(Severity::kError, "", "missing [qeli]"));
  EXPECT_TRUE(load_client_config_text("[qeli]\nuser = x\n", "c")
                  .findings.contains(Severity::kError, "server", "required"));
  EXPECT_TRUE(load_client_config_text("[qeli]\nserver = [vpn.example.com]:443\n", "c")
                  .findings.contains(Severity::kError, "server", "IPv6"));
  EXPECT_TRUE(load_client_config_text("[qeli]\nserver = 2001:db8::1:443\n", "c")
                  .findings.contains(Severity::kError, "server", ""));  // v6 needs brackets
  EXPECT_TRUE(load_client_config_text("[qeli]\nserver = h:1\n[profile:x]\n", "c")
                  .findings.contains(Severity::kError, "", "unknown section"));
  EXPECT_TRUE(load_client_config_text("[qeli]\nserver = h:1\n[logging]\nlevel = chatty\n", "c")
                  .findings.contains(Severity::kError, "level", ""));
  EXPECT_FALSE(load_client_config("/nonexistent/client.conf").ok());
}

TEST(client_config, from_link) {
  const auto l = parse_link("qeli://bob:s3cret@vpn.example.com:4443?mode=udp-quic&key=" +
                            std::string(64, 'b') + "&mtu=1280#Laptop");
  ASSERT_TRUE(l.ok());
  const auto r = client_config_from_link(*l);
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.config.server.to_string(), "vpn.example.com:4443");
  EXPECT_EQ(r.config.user, "bob");
  EXPECT_EQ(r.config.pass, "s3cret");
  EXPECT_EQ(r.config.proto, Transport::kUdp);
  EXPECT_TRUE(r.config.quic);
  EXPECT_EQ(r.config.mtu, 1280U);
  EXPECT_EQ(r.config.key, std::string(64, 'b'));
  // An IPv6 server (our extension of 0.7.16, which refuses it): bracketed again.
  const auto v6 = parse_link("qeli://g:pw@[2001:db8::1]:443");
  ASSERT_TRUE(v6.ok());
  const auto r6 = client_config_from_link(*v6);
  ASSERT_TRUE(r6.ok()) << dump(r6.findings);
  EXPECT_EQ(r6.config.server.to_string(), "[2001:db8::1]:443");
}

TEST(client_config, shipped_example_loads_without_errors) {
  const char* src = std::getenv("QELI_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  const auto r = load_client_config(std::string(src) + "/config/client.conf");
  EXPECT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_TRUE(r.findings.empty()) << dump(r.findings);
}

}  // namespace
}  // namespace qeli::config

namespace qeli::config {
namespace {

// A link replaces the file's server and credentials; it says so only for what the file
// chose itself (a file that left proto/mode at their defaults gets no note for them).
TEST(client_config, apply_link_notes_only_what_the_file_chose) {
  const auto udp = parse_link("qeli://bob:pw@vpn.example.com:4443?proto=udp&mode=fake-tls");
  ASSERT_TRUE(udp.ok());
  auto plain = load_client_config_text("[qeli]\ndev = vpn7\n", "c", {true});
  auto notes = apply_link(plain, *udp);
  for (const auto& n : notes) EXPECT_EQ(n.find("proto/mode"), std::string::npos) << n;
  EXPECT_EQ(plain.config.proto, Transport::kUdp);
  auto chose = load_client_config_text("[qeli]\nmode = plain\n", "c", {true});
  notes = apply_link(chose, *udp);
  bool noted = false;
  for (const auto& n : notes) noted = noted || n.find("proto/mode") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace qeli::config
