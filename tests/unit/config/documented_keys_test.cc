// Every key docs/CONFIG.md documents (server, users and groups, client, link parameters)
// either does what the page says — and this file names the test that shows it — or is
// refused by check-config and start-up with "not supported yet" (config/unbuilt.h). A
// new key in the docs without either, a row here for a key the docs no longer have, or a
// named test that does not exist or never mentions the key fails the suite.
//
// Kinds of entry:
//   behaviour   tests/<file> exercises the key (the file must mention `needle`, default
//               the key's last component);
//   inert       the key only matters once `switch_key` is on, and that switch is a refused
//               row of config/unbuilt.cc;
//   no-effect   the page itself says the key has no effect / is informational (checked);
//   untested    works, but no test shows it yet: a list that may only shrink.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/client_config.h"
#include "config/link.h"
#include "config/server_config.h"
#include "config/unbuilt.h"

namespace qeli::config {
namespace {

enum class Scope {
  kAuth,
  kWeb,
  kLogging,
  kMetrics,
  kWebhooks,
  kProfile,
  kUser,
  kGroup,
  kClient,
  kLink
};

struct Entry {
  Scope scope;
  const char* key;
  const char* how;  // "e2e/x.sh", "unit/dir/x_test.cc", "inert:<switch>", "no-effect", "untested"
  const char* needle = nullptr;
};

// clang-format off
const std::vector<Entry> kEntries = {
    // [auth]
    {Scope::kAuth, "users_file", "e2e/lib.sh"},
    {Scope::kAuth, "require_client_key_proof", "unit/handshake/handshake_test.cc", "key_proof"},
    {Scope::kAuth, "bind_static_to_session", "e2e/key_mismatch.sh"},
    {Scope::kAuth, "brute_force.enabled", "untested"},
    {Scope::kAuth, "brute_force.max_attempts", "e2e/wrong_password.sh"},
    {Scope::kAuth, "brute_force.window_secs", "unit/server/auth_guard_test.cc", "window"},
    {Scope::kAuth, "brute_force.address_max_attempts", "e2e/lockout.sh"},
    {Scope::kAuth, "brute_force.lockout_key", "unit/server/auth_guard_test.cc", "LockoutKey"},
    {Scope::kAuth, "identity_dir", "e2e/host_integration.sh"},
    {Scope::kAuth, "brute_force.lockout_secs", "unit/server/auth_guard_test.cc", "lockout"},
    // [web]: the panel (tests/e2e/web_panel.sh as an admin and an attacker meet it; the
    // request-level rules in unit/panel).
    {Scope::kWeb, "enabled", "e2e/web_panel.sh", "set-web-password"},
    {Scope::kWeb, "bind", "e2e/web_panel.sh", "127.0.0.1:8080"},
    {Scope::kWeb, "port", "e2e/web_panel.sh", "127.0.0.1:8080"},
    {Scope::kWeb, "username", "e2e/web_panel.sh", "--username boss"},
    {Scope::kWeb, "password_hash", "e2e/web_panel.sh"},
    {Scope::kWeb, "totp_secret", "e2e/web_panel.sh"},
    {Scope::kWeb, "insecure_no_auth", "e2e/web_panel.sh"},
    {Scope::kWeb, "tls", "e2e/web_panel.sh", "tls = true"},
    {Scope::kWeb, "tls_cert", "e2e/web_panel.sh"},
    {Scope::kWeb, "tls_key", "e2e/web_panel.sh"},
    {Scope::kWeb, "allowed_ips", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "public_host", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "allowed_origins", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "secure_cookie", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "trusted_proxies", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "base_path", "unit/panel/panel_app_test.cc"},
    {Scope::kWeb, "csrf", "e2e/web_panel.sh", "no_csrf"},
    {Scope::kWeb, "session_ttl_secs", "e2e/web_panel.sh"},
    {Scope::kWeb, "persist_session_key", "e2e/web_panel.sh"},
    {Scope::kWeb, "update_check", "refused"},
    {Scope::kWeb, "state_db", "e2e/web_panel.sh"},
    {Scope::kWeb, "brute_force.*", "e2e/web_panel.sh", "brute_force.max_attempts"},
    // [logging]
    {Scope::kLogging, "level", "unit/config/logging_section_test.cc"},
    {Scope::kLogging, "file", "unit/sys/log_output_test.cc", "reopen"},
    {Scope::kLogging, "time_format", "unit/sys/log_output_test.cc", "TimeFormat"},
    {Scope::kLogging, "format", "no-effect"},
    // [metrics]
    {Scope::kMetrics, "enabled", "e2e/metrics.sh"},
    {Scope::kMetrics, "listen", "e2e/metrics.sh"},
    {Scope::kMetrics, "per_user", "e2e/metrics.sh"},
    {Scope::kMetrics, "per_user_limit", "unit/metrics/metrics_page_test.cc",
     "PerUserSeriesAreCapped"},
    // [webhooks]
    {Scope::kWebhooks, "enabled", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "url", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "secret_file", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "events", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "outbox", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "allow_http", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "allow_private", "e2e/webhooks.sh"},
    {Scope::kWebhooks, "timeout_secs", "unit/config/webhooks_section_test.cc"},
    {Scope::kWebhooks, "retry_hours", "unit/server/webhook_test.cc", "GivesUp"},
    // [profile:NAME] listener, identity, TUN, pool
    {Scope::kProfile, "enabled", "unit/config/server_config_test.cc", "enabled = false"},
    {Scope::kProfile, "identity_key", "unit/config/identity_store_test.cc", "override"},
    {Scope::kProfile, "bind.transport", "e2e/lib.sh"},
    {Scope::kProfile, "bind.address", "e2e/lib.sh"},
    {Scope::kProfile, "bind.port", "e2e/lib.sh"},
    {Scope::kProfile, "listen", "e2e/ipv6_outer.sh"},
    {Scope::kProfile, "tun.name", "e2e/host_integration.sh"},
    {Scope::kProfile, "tun.address", "e2e/lib.sh"},
    {Scope::kProfile, "tun.mtu", "e2e/udp_pmtu.sh"},
    {Scope::kProfile, "tun.tx_queue_len", "e2e/hooks.sh"},
    {Scope::kProfile, "tun.device_type", "refused"},
    {Scope::kProfile, "tun.queues", "e2e/lib.sh"},
    {Scope::kProfile, "tun.netmask", "no-effect"},
    {Scope::kProfile, "pool.cidr", "e2e/lib.sh"},
    {Scope::kProfile, "pool.exclude", "unit/server/ip_pool_test.cc", "xclude"},
    {Scope::kProfile, "pool.reservation.<user>", "untested"},
    {Scope::kProfile, "pool.ipv6.cidr", "e2e/ipv6_inside.sh"},
    // routing, DNS, DHCP
    {Scope::kProfile, "routing.client_to_client", "unit/server/ipv6_plan_test.cc"},
    {Scope::kProfile, "routing.forward_private", "refused"},
    {Scope::kProfile, "routing.nat.enabled", "e2e/server_policy.sh"},
    {Scope::kProfile, "routing.nat.interface", "e2e/server_policy.sh"},
    {Scope::kProfile, "routing.ipv6.mode", "e2e/ipv6_inside.sh"},
    {Scope::kProfile, "routing.ipv6.inbound", "e2e/ipv6_inside.sh"},
    {Scope::kProfile, "routing.ipv6.ndp_proxy", "e2e/ipv6_ndp_proxy.sh"},
    {Scope::kProfile, "route", "e2e/user_management.sh"},
    {Scope::kProfile, "routing.post_up", "e2e/hooks.sh"},
    {Scope::kProfile, "routing.post_down", "e2e/hooks.sh"},
    {Scope::kProfile, "dns.enabled", "e2e/dns_proxy.sh"},
    {Scope::kProfile, "dns.listen", "unit/server/dns_service_test.cc", "listen"},
    {Scope::kProfile, "dns.listen_ipv6", "e2e/ipv6_inside.sh"},
    {Scope::kProfile, "dns.port", "unit/server/dns_service_test.cc", "port"},
    {Scope::kProfile, "dns.upstream", "e2e/dns_proxy.sh"},
    {Scope::kProfile, "dns.upstream_protocol", "unit/dns/resolver_test.cc", "Tcp"},
    {Scope::kProfile, "dns.cache_size", "unit/dns/cache_test.cc", "SizeZero"},
    {Scope::kProfile, "dns.timeout_secs", "e2e/dns_proxy.sh"},
    {Scope::kProfile, "dns.blocklist", "e2e/dns_proxy.sh"},
    {Scope::kProfile, "dns.push_servers", "e2e/host_integration.sh"},
    {Scope::kProfile, "dhcp.enabled", "refused"},
    {Scope::kProfile, "dhcp.listen", "inert:dhcp.enabled"},
    {Scope::kProfile, "dhcp.pool_start", "inert:dhcp.enabled"},
    {Scope::kProfile, "dhcp.pool_end", "inert:dhcp.enabled"},
    {Scope::kProfile, "dhcp.lease_time_secs", "inert:dhcp.enabled"},
    {Scope::kProfile, "dhcp.domain_name", "inert:dhcp.enabled"},
    // mode
    {Scope::kProfile, "obf.mode", "e2e/udp_modes.sh"},
    {Scope::kProfile, "obf.obfs_key", "e2e/udp_modes.sh", "obfs"},
    {Scope::kProfile, "obf.obfs_fronting", "e2e/obfs.sh"},
    {Scope::kProfile, "obf.awg.enabled", "e2e/udp_modes.sh"},
    {Scope::kProfile, "obf.awg.jc", "e2e/udp_modes.sh"},
    {Scope::kProfile, "obf.awg.jmin", "e2e/udp_modes.sh"},
    {Scope::kProfile, "obf.awg.jmax", "e2e/udp_modes.sh"},
    {Scope::kProfile, "obf.tls.server_name", "unit/cli/cli_test.cc"},
    {Scope::kProfile, "obf.tls.reality_proxy.enabled", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.target", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.target_port", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.short_ids", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.real_tls", "e2e/reality_tls.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.handrolled", "e2e/reality_tls.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.peek_timeout_ms", "e2e/reality.sh",
     "peek_timeout"},
    {Scope::kProfile, "obf.tls.reality_proxy.max_bridges", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.bridge_connect_timeout_secs",
     "unit/transport/bridge_test.cc", "ConnectTimeout"},
    {Scope::kProfile, "obf.tls.reality_proxy.bridge_idle_timeout_secs", "e2e/reality.sh"},
    {Scope::kProfile, "obf.tls.reality_proxy.bridge_lifetime_secs",
     "unit/transport/bridge_test.cc", "Lifetime"},
    {Scope::kProfile, "obf.padding.enabled", "e2e/tcp_modes.sh"},
    {Scope::kProfile, "obf.padding.min_bytes", "e2e/tcp_modes.sh"},
    {Scope::kProfile, "obf.padding.max_bytes", "e2e/tcp_modes.sh"},
    {Scope::kProfile, "obf.padding.randomize", "untested"},
    {Scope::kProfile, "obf.padding.probability", "untested"},
    {Scope::kProfile, "obf.fragmentation.enabled", "e2e/tcp_modes.sh"},
    {Scope::kProfile, "obf.fragmentation.min_chunk_size", "unit/handshake/handshake_test.cc",
     "fragmented_server_hello"},
    {Scope::kProfile, "obf.fragmentation.max_chunk_size", "unit/handshake/handshake_test.cc",
     "fragmented_server_hello"},
    {Scope::kProfile, "obf.fragmentation.max_fragments_per_packet",
     "unit/handshake/handshake_test.cc", "fragmented_server_hello"},
    {Scope::kProfile, "obf.heartbeat.enabled", "e2e/kill9_liveness.sh", "heartbeat"},
    {Scope::kProfile, "obf.heartbeat.interval_ms", "e2e/kill9_liveness.sh"},
    {Scope::kProfile, "obf.heartbeat.data_size_bytes", "untested"},
    {Scope::kProfile, "obf.heartbeat.jitter_ms", "e2e/kill9_liveness.sh"},
    {Scope::kProfile, "obf.traffic_shaping.enabled", "refused"},
    {Scope::kProfile, "obf.traffic_shaping.idle_gap_mean_ms", "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.idle_gap_min_ms", "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.idle_gap_max_ms", "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.budget_bytes_per_sec",
     "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.min_size", "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.max_size", "inert:obf.traffic_shaping.enabled"},
    {Scope::kProfile, "obf.traffic_shaping.stealth", "refused"},
    {Scope::kProfile, "obf.traffic_shaping.stealth_rate_mbps", "inert:obf.traffic_shaping.stealth"},
    {Scope::kProfile, "obf.traffic_normalization.enabled", "unit/tunnel/padding_policy_test.cc",
     "Normalisation"},
    {Scope::kProfile, "obf.traffic_normalization.round_sizes",
     "unit/tunnel/padding_policy_test.cc", "set_round_sizes"},
    {Scope::kProfile, "obf.anti_fingerprinting.enabled", "unit/handshake/handshake_test.cc",
     "jitter"},
    {Scope::kProfile, "obf.anti_fingerprinting.add_jitter_to_handshake",
     "unit/handshake/handshake_test.cc", "jitter"},
    {Scope::kProfile, "obf.quic.enabled", "unit/cli/cli_test.cc", "quic"},
    {Scope::kProfile, "obf.multipath.enabled", "e2e/bonding.sh"},
    {Scope::kProfile, "obf.multipath.max_streams", "e2e/bonding.sh"},
    {Scope::kProfile, "obf.multipath.adaptive", "unit/server/stream_bond_test.cc",
     "multipath.adaptive"},
    {Scope::kProfile, "roaming.enabled", "e2e/roaming.sh"},
    {Scope::kProfile, "roaming.grace_secs", "e2e/tcp_resume.sh"},
    {Scope::kProfile, "roaming.max_orphaned", "e2e/tcp_resume.sh"},
    // perf
    {Scope::kProfile, "perf.tcp.nodelay", "untested"},
    {Scope::kProfile, "perf.tcp.keepalive_secs", "untested"},
    {Scope::kProfile, "perf.tcp.send_buffer_size", "untested"},
    {Scope::kProfile, "perf.tcp.recv_buffer_size", "untested"},
    {Scope::kProfile, "perf.udp.recv_buffer_size", "unit/transport/udp_socket_test.cc",
     "recv_buffer"},
    {Scope::kProfile, "perf.udp.send_buffer_size", "untested"},
    {Scope::kProfile, "perf.tun.read_buffer_size", "no-effect"},
    {Scope::kProfile, "perf.connection.max_clients", "unit/server/session_table_test.cc",
     "max_clients"},
    {Scope::kProfile, "perf.connection.handshake_timeout_secs", "e2e/dribble.sh"},
    {Scope::kProfile, "perf.connection.idle_timeout_secs", "e2e/idle_timeout.sh"},
    {Scope::kProfile, "perf.connection.new_session_rate_max", "e2e/udp_defences.sh",
     "new_session_rate_limited"},
    {Scope::kProfile, "perf.connection.new_session_rate_window_secs",
     "unit/server/new_session_limiter_test.cc", "window"},
    // [user:NAME]
    {Scope::kUser, "password_hash", "e2e/user_management.sh"},
    {Scope::kUser, "password_enc", "no-effect"},
    {Scope::kUser, "reality_short_ids", "e2e/reality.sh", "own-short-id"},
    {Scope::kUser, "enabled", "unit/server/control_handler_test.cc", "enabled = false"},
    {Scope::kUser, "static_ip", "untested"},
    {Scope::kUser, "max_sessions", "unit/server/session_table_test.cc"},
    {Scope::kUser, "profiles", "untested"},
    {Scope::kUser, "group", "e2e/server_policy.sh"},
    {Scope::kUser, "route", "e2e/user_management.sh"},
    {Scope::kUser, "client_subnet", "e2e/client_subnet.sh"},
    {Scope::kUser, "allowed_networks", "e2e/server_policy.sh"},
    {Scope::kUser, "bandwidth.limit_mbps", "e2e/bandwidth_quota.sh"},
    {Scope::kUser, "bandwidth.burst_mbps", "unit/engine/traffic_account_test.cc", "Burst"},
    {Scope::kUser, "data_limit_gb", "e2e/bandwidth_quota.sh"},
    {Scope::kUser, "expire_at", "untested"},
    {Scope::kUser, "metadata.<key>", "no-effect"},
    {Scope::kUser, "device.<id>", "e2e/device_links.sh", "revoke-device"},
    // [group:NAME]
    {Scope::kGroup, "bandwidth_limit_mbps", "unit/server/usage_store_test.cc", "group"},
    {Scope::kGroup, "max_sessions", "untested"},
    {Scope::kGroup, "allowed_networks", "unit/server/destination_acl_test.cc", "group"},
    // [qeli]
    {Scope::kClient, "server", "e2e/lib.sh"},
    {Scope::kClient, "proto", "e2e/udp_modes.sh"},
    {Scope::kClient, "mode", "e2e/tcp_modes.sh"},
    {Scope::kClient, "user", "e2e/lib.sh"},
    {Scope::kClient, "pass", "e2e/lib.sh"},
    {Scope::kClient, "password_file", "unit/config/client_config_test.cc",
     "password_file_is_beside_the_config"},
    {Scope::kClient, "password_command", "unit/sys/hook_runner_test.cc", "password"},
    {Scope::kClient, "key", "e2e/key_mismatch.sh"},
    {Scope::kClient, "bind_static", "e2e/key_mismatch.sh"},
    {Scope::kClient, "allow_unpinned_tofu", "untested"},
    {Scope::kClient, "sni", "unit/wire/faketls_test.cc"},
    {Scope::kClient, "obfs_key", "e2e/udp_modes.sh", "obfs"},
    {Scope::kClient, "front", "e2e/obfs.sh"},
    {Scope::kClient, "reality_sid", "e2e/reality.sh", "rsid"},
    {Scope::kClient, "quic", "e2e/udp_modes.sh"},
    {Scope::kClient, "awg", "e2e/udp_modes.sh"},
    {Scope::kClient, "jc", "e2e/udp_modes.sh"},
    {Scope::kClient, "jmin", "e2e/udp_modes.sh"},
    {Scope::kClient, "jmax", "e2e/udp_modes.sh"},
    {Scope::kClient, "timeout", "untested"},
    {Scope::kClient, "keepalive", "untested"},
    {Scope::kClient, "tcp_nodelay", "untested"},
    {Scope::kClient, "recv_buffer_size", "untested"},
    {Scope::kClient, "send_buffer_size", "untested"},
    {Scope::kClient, "local", "refused"},
    {Scope::kClient, "lport", "refused"},
    {Scope::kClient, "padding", "unit/engine/datagram_path_test.cc"},
    {Scope::kClient, "padding_min", "untested"},
    {Scope::kClient, "padding_max", "untested"},
    {Scope::kClient, "heartbeat", "e2e/kill9_liveness.sh"},
    {Scope::kClient, "heartbeat_interval", "untested"},
    {Scope::kClient, "heartbeat_size", "untested"},
    {Scope::kClient, "heartbeat_jitter", "untested"},
    {Scope::kClient, "shaping", "refused"},
    {Scope::kClient, "shaping_gap_mean", "inert:shaping"},
    {Scope::kClient, "shaping_gap_min", "inert:shaping"},
    {Scope::kClient, "shaping_gap_max", "inert:shaping"},
    {Scope::kClient, "shaping_budget", "inert:shaping"},
    {Scope::kClient, "shaping_min_size", "inert:shaping"},
    {Scope::kClient, "shaping_max_size", "inert:shaping"},
    {Scope::kClient, "shaping_stealth", "refused"},
    {Scope::kClient, "shaping_stealth_mbps", "inert:shaping_stealth"},
    {Scope::kClient, "reconnect", "e2e/path_break.sh", "reconnect"},
    {Scope::kClient, "reconnect_retries", "e2e/broken_config.sh"},
    {Scope::kClient, "reconnect_base_delay", "e2e/kill_switch_leak.sh"},
    {Scope::kClient, "reconnect_max_delay", "e2e/kill_switch_leak.sh"},
    {Scope::kClient, "dev", "e2e/lib.sh"},
    {Scope::kClient, "dev_attach", "refused"},
    {Scope::kClient, "dev_node", "refused"},
    {Scope::kClient, "metric", "refused"},
    {Scope::kClient, "mtu", "e2e/udp_pmtu.sh"},
    {Scope::kClient, "mtu_probe", "e2e/udp_pmtu.sh"},
    {Scope::kClient, "gateway", "e2e/kill_switch_leak.sh"},
    {Scope::kClient, "route_local", "untested"},
    {Scope::kClient, "include", "e2e/server_policy.sh"},
    {Scope::kClient, "exclude", "e2e/state_per_netns.sh"},
    {Scope::kClient, "route_file", "refused"},
    {Scope::kClient, "persist_tun", "refused"},
    {Scope::kClient, "dns", "e2e/dns_proxy.sh"},
    {Scope::kClient, "dns_servers", "unit/client/dns_choice_test.cc"},
    {Scope::kClient, "kill_switch", "e2e/kill_switch_leak.sh"},
    {Scope::kClient, "allow_ipv6_leak", "untested"},
    {Scope::kClient, "ipv6", "e2e/ipv6_inside.sh", "ipv6 = false"},
    {Scope::kClient, "allow_lan", "refused"},
    {Scope::kClient, "apps", "refused"},
    {Scope::kClient, "apps_mode", "refused"},
    {Scope::kClient, "gateway_nat", "refused"},
    {Scope::kClient, "lan_subnet", "refused"},
    {Scope::kClient, "exit_node", "refused"},
    {Scope::kClient, "forward", "refused"},
    {Scope::kClient, "post_up", "e2e/hooks.sh"},
    {Scope::kClient, "post_down", "e2e/hooks.sh"},
    {Scope::kClient, "autostart", "refused"},
    {Scope::kClient, "name", "no-effect"},
    // qeli:// link parameters (they fill the same client fields)
    {Scope::kLink, "proto", "e2e/udp_modes.sh"},
    {Scope::kLink, "mode", "e2e/udp_modes.sh"},
    {Scope::kLink, "key", "unit/config/link_test.cc"},
    {Scope::kLink, "sni", "unit/config/link_test.cc"},
    {Scope::kLink, "rsid", "e2e/reality.sh"},
    {Scope::kLink, "obfs", "e2e/udp_modes.sh"},
    {Scope::kLink, "front", "e2e/obfs.sh"},
    {Scope::kLink, "quic", "e2e/udp_modes.sh"},
    {Scope::kLink, "awg", "e2e/udp_modes.sh"},
    {Scope::kLink, "jc", "e2e/udp_modes.sh"},
    {Scope::kLink, "jmin", "e2e/udp_modes.sh"},
    {Scope::kLink, "jmax", "e2e/udp_modes.sh"},
    {Scope::kLink, "mtu", "unit/config/link_test.cc"},
    {Scope::kLink, "gateway", "e2e/client_links.sh", "gateway=1"},
};
// clang-format on

// Working keys that no test shows yet. This number may only go down.
constexpr std::size_t kMaxUntested = 30;

const char* name(Scope s) {
  switch (s) {
    case Scope::kAuth: return "[auth]";
    case Scope::kWeb: return "[web]";
    case Scope::kLogging: return "[logging]";
    case Scope::kMetrics: return "[metrics]";
    case Scope::kWebhooks: return "[webhooks]";
    case Scope::kProfile: return "[profile:NAME]";
    case Scope::kUser: return "[user:NAME]";
    case Scope::kGroup: return "[group:NAME]";
    case Scope::kClient: return "[qeli]";
    case Scope::kLink: return "qeli:// link";
  }
  return "?";
}

std::string source_dir() {
  const char* s = std::getenv("QELI_SOURCE_DIR");
  return s != nullptr ? s : "";
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The documented keys of docs/CONFIG.md: the first column of each table, per section;
// the "Group keys:" line; the parameters of the link template in §8.
std::map<std::pair<Scope, std::string>, std::string> documented_keys(const std::string& doc) {
  std::map<std::pair<Scope, std::string>, std::string> out;  // -> the doc line
  Scope scope = Scope::kAuth;
  bool in_table_section = false, in_link_block = false, link_section = false;
  std::istringstream lines(doc);
  std::string line;
  auto add = [&](Scope s, const std::string& key) { out[{s, key}] = line; };
  while (std::getline(lines, line)) {
    if (line.starts_with("## ") || line.starts_with("### ")) {
      in_table_section = true;
      link_section = line.find("qeli://") != std::string::npos;
      if (line.find("[auth]") != std::string::npos)
        scope = Scope::kAuth;
      else if (line.find("[web]") != std::string::npos)
        scope = Scope::kWeb;
      else if (line.find("[metrics]") != std::string::npos)
        scope = Scope::kMetrics;
      else if (line.find("[webhooks]") != std::string::npos)
        scope = Scope::kWebhooks;
      else if (line.find("[logging]") != std::string::npos &&
               line.find("Server") != std::string::npos)
        scope = Scope::kLogging;
      else if (line.find("[profile:") != std::string::npos || line.starts_with("### 5."))
        scope = Scope::kProfile;
      else if (line.find("[user:") != std::string::npos)
        scope = Scope::kUser;
      else if (line.find("[qeli]") != std::string::npos)
        scope = Scope::kClient;
      else
        in_table_section = false;
      continue;
    }
    if (link_section && line.starts_with("```")) {
      in_link_block = !in_link_block;
      continue;
    }
    if (in_link_block) {
      for (std::size_t p = 0; (p = line.find_first_of("?&", p)) != std::string::npos; ++p) {
        const auto eq = line.find('=', p);
        if (eq != std::string::npos) add(Scope::kLink, line.substr(p + 1, eq - p - 1));
      }
      continue;
    }
    if (line.starts_with("Group keys:")) {
      for (std::size_t p = 0; (p = line.find('`', p)) != std::string::npos;) {
        const auto q = line.find('`', p + 1);
        add(Scope::kGroup, line.substr(p + 1, q - p - 1));
        p = q + 1;
      }
      continue;
    }
    if (!in_table_section || !line.starts_with("| `")) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    for (std::size_t p = 0; (p = first.find('`', p)) != std::string::npos;) {
      const auto q = first.find('`', p + 1);
      add(scope, first.substr(p + 1, q - p - 1));
      p = q + 1;
    }
  }
  return out;
}

const UnbuiltFeature* refused_row(Scope s, std::string_view key) {
  for (const auto& f : unbuilt_features()) {
    const bool scope_ok =
        (f.scope == UnbuiltScope::kProfile && s == Scope::kProfile) ||
        (f.scope == UnbuiltScope::kWeb && s == Scope::kWeb) ||
        (f.scope == UnbuiltScope::kClient && (s == Scope::kClient || s == Scope::kLink));
    if (scope_ok && f.key == key) return &f;
  }
  return nullptr;
}

std::string last_component(const std::string& key) {
  const auto dot = key.rfind('.');
  std::string k = dot == std::string::npos ? key : key.substr(dot + 1);
  if (k.starts_with("<")) k = key.substr(0, dot + 1);  // pool.reservation.<user>
  return k;
}

TEST(DocumentedKeys, TheParserFindsEverySection) {
  const auto keys = documented_keys(read(source_dir() + "/docs/CONFIG.md"));
  std::map<Scope, int> per;
  for (const auto& [k, line] : keys) per[k.first]++;
  for (Scope s : {Scope::kAuth, Scope::kWeb, Scope::kLogging, Scope::kMetrics, Scope::kWebhooks,
                  Scope::kProfile, Scope::kUser, Scope::kGroup, Scope::kClient, Scope::kLink}) {
    EXPECT_GE(per[s], 3) << name(s) << ": the CONFIG.md parser lost a section";
  }
}

TEST(DocumentedKeys, EveryKeyIsCoveredOrRefused) {
  const std::string src = source_dir();
  ASSERT_FALSE(src.empty()) << "QELI_SOURCE_DIR is not set";
  const std::string doc = read(src + "/docs/CONFIG.md");
  const auto keys = documented_keys(doc);
  std::set<std::pair<Scope, std::string>> listed;
  std::size_t untested = 0;
  for (const auto& e : kEntries) {
    const std::string key = e.key;
    const std::string how = e.how;
    SCOPED_TRACE(std::string(name(e.scope)) + " " + key + " (" + how + ")");
    EXPECT_TRUE(listed.insert({e.scope, key}).second) << "listed twice";
    const auto doc_line = keys.find({e.scope, key});
    EXPECT_NE(doc_line, keys.end()) << "listed here but not documented in docs/CONFIG.md";
    if (how == "refused") {
      EXPECT_NE(refused_row(e.scope, key), nullptr) << "no row in config/unbuilt.cc";
    } else if (how.starts_with("inert:")) {
      EXPECT_NE(refused_row(e.scope, how.substr(6)), nullptr)
          << "the switch it depends on is not refused";
    } else if (how == "no-effect") {
      if (doc_line != keys.end()) {
        const std::string& l = doc_line->second;
        EXPECT_TRUE(l.find("no effect") != std::string::npos ||
                    l.find("never read") != std::string::npos ||
                    l.find("informational") != std::string::npos)
            << "the docs must say it has no effect: " << l;
      }
    } else if (how == "untested") {
      ++untested;
    } else {
      const std::string text = read(src + "/tests/" + how);
      ASSERT_FALSE(text.empty()) << "tests/" << how << " does not exist";
      const std::string needle = e.needle != nullptr ? e.needle : last_component(key);
      EXPECT_NE(text.find(needle), std::string::npos)
          << "tests/" << how << " never mentions `" << needle << "`";
    }
    // A key with a refused row may still have working values (obf.mode = fake-tls): then
    // it names its behaviour test; it must not be called untested or without effect.
    if ((how == "untested" || how == "no-effect" || how.starts_with("inert:")) &&
        refused_row(e.scope, key) != nullptr) {
      ADD_FAILURE() << "refused by config/unbuilt.cc but listed as " << how;
    }
  }
  for (const auto& [k, line] : keys) {
    EXPECT_TRUE(listed.count(k) > 0)
        << name(k.first) << " " << k.second
        << " is documented in docs/CONFIG.md but neither named with a behaviour test here "
           "nor refused in config/unbuilt.cc";
  }
  EXPECT_LE(untested, kMaxUntested) << "the list of untested keys may only shrink";
}

// Each refused row really refuses: check-config and start-up (both load the config the
// same way) report "not supported yet" on that key.
TEST(DocumentedKeys, EveryRefusedRowIsRefusedWithItsReason) {
  for (const auto& f : unbuilt_features()) {
    SCOPED_TRACE(std::string(f.key) + " = " + std::string(f.example));
    std::string lines =
        std::string(f.context) + "\n" + std::string(f.key) + " = " + std::string(f.example) + "\n";
    Findings findings;
    if (f.scope == UnbuiltScope::kClient) {
      findings = load_client_config_text("[qeli]\nserver = vpn.example:443\n" + lines,
                                         "/nonexistent/client.conf")
                     .findings;
    } else if (f.scope == UnbuiltScope::kWeb) {
      findings = load_server_config_text("[web]\n" + lines + "[profile:p]\nobf.mode = plain\n",
                                         "/nonexistent/server.conf")
                     .findings;
    } else {
      findings =
          load_server_config_text("[profile:p]\n" + lines, "/nonexistent/server.conf").findings;
    }
    EXPECT_TRUE(findings.contains(Severity::kError, f.key, "not supported yet")) << "not refused";
    EXPECT_TRUE(findings.contains(Severity::kError, f.key, f.reason)) << "reason missing";
  }
}

// A link asks for the same client features and is checked by the same code: a
// reality-tls link is taken, and one that cannot work is refused like a config would be.
TEST(DocumentedKeys, ALinkIsCheckedLikeAConfig) {
  const std::string key = "0000000000000000000000000000000000000000000000000000000000000001";
  auto ok = parse_link("qeli://u:p@vpn.example:443?proto=tcp&mode=reality-tls&rsid=ab&key=" + key);
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(client_config_from_link(*ok).findings.has_errors());
  auto bad =
      parse_link("qeli://u:p@vpn.example:443?proto=tcp&mode=reality-tls&rsid=ab&sni=!&key=" + key);
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(client_config_from_link(*bad).findings.contains(Severity::kError, "",
                                                              "reality-tls sends a real"));
}

}  // namespace
}  // namespace qeli::config
