// The server configuration model (reference §5.2–§5.6) and its loader.
//
// Every field carries its documented default as a member initializer, so a missing
// section or key is the default written here — never an accidental zero. The loader
// fills these from the INI file, validates every value (§5.8) and returns the findings;
// a config with any error finding must not be used. docs/CONFIG.md lists every key.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/log_options.h"
#include "config/device_credential.h"
#include "config/finding.h"
#include "config/ini_reader.h"
#include "config/ipv6_cidr.h"
#include "config/limits.h"
#include "config/modes.h"
#include "config/values.h"

namespace qeli::config {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct BruteForceConfig {
  bool enabled = true;
  std::uint32_t max_attempts = 5;  // 1..10000 failures ...
  seconds window{300};             // 1..86400 ... within this window ...
  seconds lockout{900};            // 1..2592000 ... lock the (address, user) pair out this long
  std::uint32_t address_max_attempts = 20;  // 1..100000 failures from one address, any users
  bool per_address_only = false;            // lockout_key = address (0.7.16's behaviour)
  friend bool operator==(const BruteForceConfig&, const BruteForceConfig&) = default;
};

struct AuthConfig {
  std::string users_file = kDefaultUsersFile;  // relative paths: against the config's dir
  bool users_file_explicit = false;            // the key was present
  // The per-profile identity keys, <dir>/<profile>.key (relative: against the config's dir);
  // every command that needs them (server, show-identity, rotate-identity, add-client
  // --link) reads this unless given --identity-dir.
  std::string identity_dir = kDefaultIdentityDir;
  bool require_client_key_proof = false;
  bool bind_static_to_session = true;  // H-1: static DH folded into the data keys
  BruteForceConfig brute_force;
};

struct WebConfig {
  bool enabled = false;
  std::string bind = "127.0.0.1";
  std::uint16_t port = 8080;
  std::string username = "admin";
  std::string password_hash;  // empty: the panel refuses to start
  /// The admin's TOTP secret (RFC 6238), Base32; empty = no second factor. Written by
  /// `qeli set-web-totp`; checked to decode to at least 128 bits.
  std::string totp_secret;
  bool insecure_no_auth = false;
  bool tls = false;
  std::string tls_cert, tls_key;
  std::vector<Ipv4Cidr> allowed_ips;  // empty = any
  std::string public_host;
  std::vector<std::string> allowed_origins;
  bool secure_cookie = false;
  std::vector<Ipv4Cidr> trusted_proxies;
  std::string base_path;
  bool csrf = true;
  seconds session_ttl{86400};  // 1 s .. 30 days
  bool persist_session_key = true;
  bool update_check = false;
  /// The panel's own SQLite file (API tokens); relative: to the config's directory;
  /// empty: no state (API tokens off).
  std::string state_db = "/var/lib/qeli/server/panel.db";
  BruteForceConfig brute_force;
  friend bool operator==(const WebConfig&, const WebConfig&) = default;
};

using LogLevel = qeli::LogLevel;      // base/log_options.h
using TimeFormat = qeli::TimeFormat;  // base/log_options.h

struct LoggingConfig {
  LogLevel level = LogLevel::kInfo;
  std::string file;  // empty: stderr / journald; else absolute (relative: to the config's dir)
  TimeFormat time_format = TimeFormat::kDatetime;
  std::string format;  // accepted for compatibility; 0.7.16 ignores it too

  LogOptions options() const { return {level, file, time_format}; }
};

enum class DeviceType { kTun, kTap };

struct TunConfig {
  std::string name = "vpn0";        // <= 15 bytes, no space or '/'
  Ipv4Addr address{0x0a090001};     // 10.9.0.1, a usable host of pool.cidr
  std::uint32_t mtu = kMtuDefault;  // 576..16638, pushed to clients
  std::uint32_t tx_queue_len = 1000;
  DeviceType device_type = DeviceType::kTun;
  std::uint32_t queues = 0;  // 0 = one per CPU; <= 256
};

struct PoolConfig {
  Ipv4Cidr cidr{{0x0a090000}, 24};  // 10.9.0.0/24
  std::vector<Ipv4Cidr> exclude;    // addresses never handed out (a.b.c.d or a.b.c.d/n)
  std::map<std::string, Ipv4Addr> reservations;  // pool.reservation.<user> = a.b.c.d
  /// `pool.ipv6.cidr`: IPv6 inside the tunnel (our extension, negotiated; docs/PROTOCOL.md
  /// §21). A client's IPv6 address is this network plus its IPv4 address's host offset in
  /// `cidr` (10.9.0.5 in 10.9.0.0/24 → fd00:9::5): one address plan, no second pool.
  std::optional<Ipv6Cidr> ipv6;
};

struct RouteSpec {
  Ipv4Cidr cidr;
  std::optional<Ipv4Addr> gateway;
  std::optional<std::uint32_t> metric;
  std::string to_string() const;
};
/// Parses `<cidr> [gateway=<ip>] [metric=<n>]`.
std::optional<RouteSpec> parse_route(std::string_view s);
/// An IPv6 `route` line: pushed as `x_routes6` to clients with IPv6 inside the tunnel
/// (docs/PROTOCOL.md §21); always through the tunnel, so no gateway.
struct Route6Spec {
  Ipv6Cidr cidr;
  std::optional<std::uint32_t> metric;
  std::string to_string() const;
};
/// Parses `<x::/n> [metric=<n>]`.
std::optional<Route6Spec> parse_route6(std::string_view s);
/// The warning for `route` lines broader than /8 ("" when none is): clients refuse them
/// (0.7.16's and ours, client/route_plan.h): a server cannot make a split tunnel full.
std::string broad_route_warning(const std::vector<RouteSpec>& routes,
                                const std::vector<Route6Spec>& routes6);
/// What a `route` line that parses as neither should look like (the loaders' message).
inline constexpr std::string_view kRouteShape =
    "<a.b.c.d/n> [gateway=<a.b.c.d>] [metric=<n>], or <x::/n> [metric=<n>] (an IPv6 "
    "route goes through the tunnel: no gateway)";

enum class Ipv6Routing { kNat66, kRoute };

struct RoutingConfig {
  bool client_to_client = false;
  bool forward_private = true;
  bool nat_enabled = false;
  std::string nat_interface;        // empty: the interface of the default route
  std::vector<RouteSpec> routes;    // pushed to clients
  std::vector<Route6Spec> routes6;  // pushed to clients with IPv6 inside the tunnel
  std::string post_up, post_down;
  /// `routing.ipv6.mode`: how the IPv6 pool reaches past the server — masqueraded with
  /// the IPv4 NAT (`routing.nat.enabled`), or forwarded with the clients' own addresses
  /// (the upstream routes pool.ipv6.cidr to this server).
  Ipv6Routing ipv6_mode = Ipv6Routing::kNat66;
  /// `routing.ipv6.inbound` (our key): in `route` mode, true (`open`) forwards new
  /// connections from outside to the clients' addresses; false (`stateful`, the default)
  /// only what answers their own.
  bool ipv6_inbound_open = false;
  /// `routing.ipv6.ndp_proxy` (`off|auto|required`): in route mode, answer the uplink's
  /// Neighbor Solicitations for each client's address when pool.ipv6.cidr lies inside an
  /// on-link prefix there (server/ndp_proxy_runtime.h); `required` refuses to start
  /// without such an interface.
  std::string ipv6_ndp_proxy = "off";
};

enum class DnsProtocol { kUdp, kTcp };

struct DnsConfig {
  bool enabled = false;
  Ipv4Addr listen{0x0a090001};
  std::uint16_t port = 53;
  std::vector<std::string> upstream{"1.1.1.1", "8.8.8.8"};
  DnsProtocol upstream_protocol = DnsProtocol::kUdp;
  std::uint32_t cache_size = 1000;
  seconds timeout{5};
  std::vector<std::string> blocklist;
  /// `dns.push_servers`: pushed instead of the proxy's address of the same family (the
  /// first IPv4 entry as AUTH OK `dns`, the first IPv6 one as `x_dns6`).
  std::vector<Ipv4Addr> push_servers;
  std::vector<Ipv6Addr> push_servers6;
  /// `dns.listen_ipv6` (the 0.8 line's key): the proxy also answers on this address, inside
  /// pool.ipv6.cidr (`auto`: the server's tunnel address, ProfileConfig::server_ipv6()).
  /// Unset: IPv4 only, as before.
  std::optional<Ipv6Addr> listen_ipv6;
};

/// Whether an IPv6 `dns.upstream` entry can be asked: Ipv6Addr::is_routable_unicast, or
/// ::1 (a resolver on this host). Link-local needs a zone id the key does not take;
/// unspecified, IPv4-mapped and multicast addresses are no resolver.
bool dns_upstream_usable(const Ipv6Addr& a);

struct DhcpConfig {
  bool enabled = false;
  Endpoint listen{"0.0.0.0", 67, false};
  std::optional<Ipv4Addr> pool_start, pool_end;  // default: derived from pool.cidr
  seconds lease_time{86400};
  std::string domain_name = "vpn";
};

struct AwgConfig {
  bool enabled = false;
  std::uint32_t jc = 0;  // junk packets before the handshake, <= 128
  std::uint32_t jmin = kAwgJminDefault;
  std::uint32_t jmax = kAwgJmaxDefault;  // jmin <= jmax <= 1400
};

struct RealityProxyConfig {
  bool enabled = false;
  std::string target = "www.cloudflare.com";
  std::uint16_t target_port = 443;
  std::vector<std::string> short_ids;  // hex, 1..16 digits, not all zero
  bool real_tls = false;
  bool handrolled = true;
  milliseconds peek_timeout{1500};
  /// Our additions (0.7.16 hard-codes them): the decoy bridge's pool and limits.
  std::uint32_t max_bridges = 0;  // 0 = max(128, 4 × cores), as 0.7.16
  seconds bridge_connect_timeout{10};
  seconds bridge_idle_timeout{120};
  seconds bridge_lifetime{600};
};

struct PaddingConfig {
  bool enabled = true;
  std::uint32_t min_bytes = 32;
  std::uint32_t max_bytes = 512;
  bool randomize = true;
  double probability = 1.0;
};

struct FragmentationConfig {
  bool enabled = true;
  std::uint32_t min_chunk_size = 256;
  std::uint32_t max_chunk_size = 1024;
  std::uint32_t max_fragments_per_packet = 4;
};

struct HeartbeatConfig {
  bool enabled = true;
  milliseconds interval{15000};
  std::uint32_t data_size_bytes = 16;
  milliseconds jitter{20};
};

struct ShapingConfig {
  bool enabled = false;
  milliseconds idle_gap_mean{700};
  milliseconds idle_gap_min{40};
  milliseconds idle_gap_max{6000};
  std::uint32_t budget_bytes_per_sec = 16384;
  std::uint32_t min_size = 64;
  std::uint32_t max_size = 1024;
  bool stealth = false;
  std::uint32_t stealth_rate_mbps = 2;
};

struct NormalizationConfig {
  bool enabled = false;
  std::vector<std::uint32_t> round_sizes{64, 128, 256, 512, 1024, 1500};
};

struct MultipathConfig {
  bool enabled = false;
  std::uint32_t max_streams = 4;
  bool adaptive = false;
};

struct ObfConfig {
  ObfMode mode = ObfMode::kFakeTls;
  std::string obfs_key;
  Fronting obfs_fronting = Fronting::kWebsocket;
  AwgConfig awg;
  std::string tls_server_name = "www.cloudflare.com";
  RealityProxyConfig reality;
  PaddingConfig padding;
  FragmentationConfig fragmentation;
  HeartbeatConfig heartbeat;
  ShapingConfig shaping;
  NormalizationConfig normalization;
  bool anti_fingerprinting = false;
  bool add_jitter_to_handshake = true;
  bool quic = false;  // only stamps quic=1 into links; the server detects QUIC shape itself
  MultipathConfig multipath;
};

struct PerfConfig {
  bool tcp_nodelay = true;
  seconds tcp_keepalive{60};
  std::uint32_t tcp_send_buffer_size = 0;  // 0 = kernel default
  std::uint32_t tcp_recv_buffer_size = 0;
  std::uint64_t udp_recv_buffer_size = 0;  // 0 = auto (4 -> 8 -> 16 MiB)
  std::uint64_t udp_send_buffer_size = 0;
  std::uint64_t tun_read_buffer_size = 65535;  // >= mtu (+14 for tap), <= 1 MiB
  std::uint32_t max_clients = 128;
  seconds handshake_timeout{10};
  seconds idle_timeout{300};  // 0 = never
  std::uint32_t new_session_rate_max = 10;
  seconds new_session_rate_window{60};
};

struct ProfileConfig {
  std::string name;
  int line = 0;  // of the [profile:NAME] header
  bool enabled = true;
  std::string identity_key;  // empty: <identity dir>/<name>.key
  Transport transport = Transport::kTcp;
  std::string bind_address = "0.0.0.0";
  std::uint16_t bind_port = 443;
  std::vector<Endpoint> listen;  // extra listeners, same transport
  TunConfig tun;
  PoolConfig pool;
  RoutingConfig routing;
  DnsConfig dns;
  DhcpConfig dhcp;
  ObfConfig obf;
  PerfConfig perf;
  /// `roaming.enabled`: UDP connection migration (caps::kRoam, docs/PROTOCOL.md §20) and
  /// TCP session resume (caps::kResume, §22).
  bool roaming = true;
  /// `roaming.grace_secs`: how long a TCP session whose connection broke waits for its
  /// client to resume it (1..3600).
  std::chrono::seconds roaming_grace{30};
  /// `roaming.max_orphaned`: TCP sessions held for a resume at once (0 = none held).
  std::uint32_t roaming_max_orphaned = 256;

  /// What a client puts in `mode=`: reality / reality-tls when the REALITY proxy is on.
  ClientMode link_mode() const;
  /// The server's IPv6 address in the tunnel (on its TUN): pool.ipv6.cidr plus
  /// tun.address's host offset in pool.cidr (server/ipv6_plan.h); nullopt without the pool.
  std::optional<Ipv6Addr> server_ipv6() const;
  /// The IPv4 address clients reach the DNS proxy at: dns.listen, or tun.address when it
  /// listens on 0.0.0.0 (all addresses, the tunnel's among them; 0.0.0.0 is no resolver).
  Ipv4Addr dns_proxy_address() const;
};

struct UserConfig {
  std::string name;
  std::string source_file;  // where it was defined (inline config or users file)
  int line = 0;
  std::string password_hash;  // Argon2id PHC
  std::string password_enc;
  bool enabled = true;
  std::optional<Ipv4Addr> static_ip;
  /// This user's own REALITY short ids (our extension; revoked alone by removing them or
  /// disabling the user). Validated like obf.tls.reality_proxy.short_ids.
  std::vector<std::string> reality_short_ids;
  std::uint32_t max_sessions = 0;     // 0 = the group's, else unlimited
  std::vector<std::string> profiles;  // empty = all
  std::string group;
  /// A user's own `route` lines (of either family) replace the profile's, both families.
  std::vector<RouteSpec> routes;
  std::vector<Route6Spec> routes6;
  /// `client_subnet`: networks behind this client (OpenVPN's iroute), routed into its
  /// session while it is connected (server/subnet_claims.h); the IPv6 entries apart.
  std::vector<Ipv4Cidr> client_subnets;
  std::vector<Ipv6Cidr> client_subnets6;
  std::vector<Ipv4Cidr> allowed_networks;
  /// The IPv6 entries of `allowed_networks`. A list with only IPv4 entries allows no IPv6
  /// destination (a restriction stays one when the tunnel carries IPv6).
  std::vector<Ipv6Cidr> allowed_networks6;
  double bandwidth_limit_mbps = 0;         // 0 = unlimited
  double bandwidth_burst_mbps = 0;         // the rate bucket (server/traffic_accounts.cc)
  double data_limit_gb = 0;                // 0 = unlimited
  std::optional<std::uint64_t> expire_at;  // unix seconds
  std::map<std::string, std::string> metadata;
  /// Credentials of this user's devices (config/device_credential.h), by id.
  std::vector<DeviceCredential> devices;
  const DeviceCredential* find_device(std::string_view id) const;
};

struct GroupConfig {
  std::string name;
  int line = 0;
  double bandwidth_limit_mbps = 0;
  std::uint32_t max_sessions = 0;
  std::vector<Ipv4Cidr> allowed_networks;
  std::vector<Ipv6Cidr> allowed_networks6;  // as UserConfig::allowed_networks6
};

/// [metrics]: the Prometheus endpoint `qeli server` serves on its own (docs/CONFIG.md §4a).
struct MetricsConfig {
  bool enabled = false;
  Ipv4Addr listen_address{0x7f000001};  // 127.0.0.1
  std::uint16_t listen_port = 9477;
  bool per_user = false;               // per-user series (one per user: opt-in)
  std::uint32_t per_user_limit = 100;  // 1..10000 users with series; the rest omitted

  friend bool operator==(const MetricsConfig&, const MetricsConfig&) = default;
};

/// [webhooks]: events POSTed to one HTTPS endpoint, signed, from a durable outbox
/// (docs/CONFIG.md "Server [webhooks]", docs/OPERATIONS.md "Webhooks").
struct WebhooksConfig {
  bool enabled = false;
  std::string url;  // http(s)://host[:port]/path
  /// The HMAC key's file (at least 32 bytes after trimming); never in this file, which
  /// the control API's config-get shows.
  std::string secret_file;
  std::string secret;               // its content, read by load_server_config
  std::vector<std::string> events;  // empty = every kind (kWebhookEvents)
  std::string outbox = "/var/lib/qeli/server/webhooks.db";
  std::chrono::seconds timeout{5};
  std::chrono::seconds retry_for{24 * 3600};  // then a delivery is given up
  bool allow_http = false;                    // plain http:// URLs
  bool allow_private = false;                 // loopback/private/link-local/CGNAT targets

  friend bool operator==(const WebhooksConfig&, const WebhooksConfig&) = default;
};

/// The event kinds a webhook can carry (control::Event::type).
inline constexpr std::array<std::string_view, 10> kWebhookEvents = {
    "session.connected", "session.disconnected", "session.kicked",     "auth.lockout",
    "user.disabled",     "user.enabled",         "user.quota_reached", "user.expired",
    "users.changed",     "config.changed"};

struct ServerConfig {
  std::string file;
  AuthConfig auth;
  WebConfig web;
  LoggingConfig logging;
  MetricsConfig metrics;
  WebhooksConfig webhooks;
  std::vector<ProfileConfig> profiles;
  std::vector<UserConfig> users;  // inline users merged with the users file (file wins)
  std::vector<GroupConfig> groups;

  const ProfileConfig* find_profile(std::string_view name) const;
  const UserConfig* find_user(std::string_view name) const;
  /// auth.users_file resolved against the directory of `file`.
  std::string users_file_path() const;
  /// auth.identity_dir, a relative path resolved against the config file's directory.
  std::string identity_dir_path() const;
  /// webhooks.outbox / webhooks.secret_file, resolved like the others.
  std::string webhooks_outbox_path() const;
  std::string webhooks_secret_path() const;
  /// [web] tls_cert / tls_key, resolved like the others ("" stays "").
  std::string web_tls_cert_path() const;
  std::string web_tls_key_path() const;
  /// [web] state_db, resolved like the others ("" stays "").
  std::string web_state_db_path() const;
};

struct ServerLoad {
  ServerConfig config;
  Findings findings;
  bool ok() const { return !findings.has_errors(); }
};

/// Reads, parses and validates a server config and its users file.
ServerLoad load_server_config(const std::string& path);
/// The same over text already in memory (`file` names it in findings; relative
/// users_file paths resolve against its directory).
ServerLoad load_server_config_text(std::string_view text, const std::string& file);

/// load_server_config with the users file's content given: the text an edit is about to
/// write is judged exactly as start-up and check-config would judge the file (edit-user
/// validates before it writes).
ServerLoad load_server_config_with_users(const std::string& path, std::string_view users_text);

/// Reads the [user:NAME] sections of one section list into `out` (used for both the
/// inline users and the users file). Other sections are errors.
void read_user_sections(const IniDocument& doc, bool allow_other_sections,
                        std::vector<UserConfig>& out, Findings& findings);

/// The §5.8 cross-field rules over an already parsed config (called by the loaders).
void validate_server_config(const ServerConfig& cfg, Findings& findings);

}  // namespace qeli::config
