// The client configuration model (reference §5.7, the `[qeli]` section plus an optional
// `[logging]`) and its strict loader: an unknown key or an unparseable value is an
// error, and `server` is required. Defaults are the member initializers below.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/finding.h"
#include "config/ipv6_cidr.h"
#include "config/limits.h"
#include "config/link.h"
#include "config/modes.h"
#include "config/server_config.h"
#include "config/values.h"

namespace qeli::config {

enum class ClientDns { kTunnel, kOff };  ///< `dns = tunnel`; `off` (or `system`, 0.7.16's alias)
enum class AppsMode { kAll, kInclude, kExclude };

/// Local data-plane settings, used until (and unless) the server pushes its own.
struct ClientFallbacks {
  bool padding = true;
  std::uint32_t padding_min = 32;
  std::uint32_t padding_max = 512;
  bool heartbeat = true;
  milliseconds heartbeat_interval{15000};
  std::uint32_t heartbeat_size = 16;
  milliseconds heartbeat_jitter{20};
  bool shaping = false;
  milliseconds shaping_gap_mean{700};
  milliseconds shaping_gap_min{40};
  milliseconds shaping_gap_max{6000};
  std::uint32_t shaping_budget = 16384;  // bytes per second
  std::uint32_t shaping_min_size = 64;
  std::uint32_t shaping_max_size = 1024;
  bool shaping_stealth = false;
  std::uint32_t shaping_stealth_mbps = 2;
};

struct ClientConfig {
  std::string file;
  // connection / wire
  Endpoint server;  // REQUIRED host:port
  Transport proto = Transport::kTcp;
  std::string user = "client";
  std::string pass;
  std::string password_file;
  std::string password_command;
  std::string key;  // pinned server key, 64 hex; empty or all-zero = TOFU
  bool bind_static = true;
  bool allow_unpinned_tofu = false;
  ClientMode mode = ClientMode::kFakeTls;
  std::string sni;  // empty: the server host
  std::string obfs_key;
  Fronting front = Fronting::kWebsocket;
  std::string reality_sid;
  bool quic = false;
  bool awg = false;
  std::uint32_t jc = 0;
  std::uint32_t jmin = kAwgJminDefault;
  std::uint32_t jmax = kAwgJmaxDefault;
  seconds timeout{30};  // connect + handshake
  seconds keepalive{60};
  bool tcp_nodelay = true;
  std::optional<std::uint64_t> recv_buffer_size;  // absent = auto (4 MiB)
  std::uint64_t send_buffer_size = 0;
  std::string local;  // source address to bind
  std::uint16_t lport = 0;
  ClientFallbacks fallbacks;
  // reconnect
  bool reconnect = true;
  std::int64_t reconnect_retries = -1;  // -1 = forever
  seconds reconnect_base_delay{1};
  seconds reconnect_max_delay{60};
  // interface / routing (never in links, never pushed)
  std::string dev = "vpn0";
  bool dev_attach = false;
  std::string dev_node;
  std::uint32_t metric = 0;
  std::uint32_t mtu = 0;  // 0 = the server's
  bool mtu_probe = true;
  bool gateway = false;  // true = full tunnel
  bool route_local = false;
  std::vector<Ipv4Cidr> include;
  std::vector<Ipv4Cidr> exclude;
  /// The IPv6 entries of `include` / `exclude` (one list each in the file).
  std::vector<Ipv6Cidr> include6;
  std::vector<Ipv6Cidr> exclude6;
  std::string route_file;
  bool persist_tun = false;
  ClientDns dns = ClientDns::kTunnel;
  std::vector<Ipv4Addr> dns_servers;
  bool kill_switch = false;
  bool allow_ipv6_leak = false;
  /// `ipv6` (our key): take IPv6 inside the tunnel when the server offers it
  /// (docs/PROTOCOL.md §21); false keeps the tunnel IPv4-only as with a 0.7.16 server.
  bool ipv6 = true;
  bool allow_lan = false;
  std::vector<std::string> apps;
  AppsMode apps_mode = AppsMode::kAll;
  bool gateway_nat = false;
  std::vector<Ipv4Cidr> lan_subnet;
  bool exit_node = false;
  bool forward = false;
  std::string post_up, post_down;
  bool autostart = false;
  std::string name;
  LoggingConfig logging;
};

struct ClientLoad {
  ClientConfig config;
  Findings findings;
  bool ok() const { return !findings.has_errors(); }
};

struct ClientLoadOptions {
  /// `qeli client -c FILE LINK`: the link supplies the server, so `server` may be absent.
  bool server_from_link = false;
  /// An app's profile (libqeli): accept what 0.7.16's core accepts where the checks
  /// protect only the daemon — the [logging] values and 0.7.16's GUI-only keys
  /// (kGuiOnlyClientKeys) as written and unchecked (the library applies none of them),
  /// AmneziaWG junk sizes clamped instead of refused, an `include`/`exclude` entry it
  /// cannot read left out with a warning (as 0.7.16), no heartbeat_jitter check, and no
  /// refusal of features this build lacks (config/unbuilt.h: the caller says what it does
  /// not apply). Unknown keys stay errors, as in 0.7.16.
  bool app_profile = false;
};

/// 0.7.16's GUI-only `[qeli]` keys (its config/mod.rs GUI_ONLY_CLIENT_KEYS): accepted, never
/// read by its core. `qeli client` reads and checks them; an app profile takes them as text.
inline constexpr std::string_view kGuiOnlyClientKeys[] = {"dev_node",
                                                          "metric",
                                                          "persist_tun",
                                                          "route_file",
                                                          "allow_lan",
                                                          "apps",
                                                          "apps_mode",
                                                          "name",
                                                          "reconnect",
                                                          "reconnect_retries",
                                                          "reconnect_base_delay",
                                                          "reconnect_max_delay"};

ClientLoad load_client_config(const std::string& path, ClientLoadOptions options = {});
ClientLoad load_client_config_text(std::string_view text, const std::string& file,
                                   ClientLoadOptions options = {});

/// A client config built from a share link (file-only keys keep their defaults). The
/// findings hold validate_link()'s complaints as errors.
ClientLoad client_config_from_link(const ShareLink& link);

/// `qeli client -c FILE LINK` (docs/OPERATIONS.md "Links and config files together"): the
/// link says where and who — it overrides the file's server, proto, user, pass (and
/// clears password_file / password_command), key, mode, sni, reality_sid, obfs_key, front,
/// quic, awg/jc/jmin/jmax, its mtu if non-zero, its gateway if it has one, and name if
/// labelled; the file keeps everything else (dev, routes, DNS, kill switch, reconnect,
/// logging, …). validate_link()'s complaints and the merged result's conflicts are errors
/// in `load.findings`; every file key the link overrode is returned as a note.
std::vector<std::string> apply_link(ClientLoad& load, const ShareLink& link);

}  // namespace qeli::config
