#include "config/client_config.h"
#include "config/logging_section.h"

#include "config/config_path.h"
#include "config/section_reader.h"
#include "config/sni_rules.h"
#include "config/unbuilt.h"

namespace qeli::config {
namespace {

constexpr milliseconds kHour{3600000};

void read_connection(SectionReader& r, ClientConfig& c, const ClientLoadOptions& options) {
  if (const IniEntry* e = r.single("server")) {
    auto ep = Endpoint::parse(e->value);
    if (!ep) {
      r.bad_value(*e, "host:port or [IPv6]:port with a port in 1..65535");
    } else if (ep->bracketed && !is_ipv6_literal(ep->host)) {
      r.error_at(*e, "`[" + ep->host + "]` is not an IPv6 address (brackets hold IPv6 only)");
    } else {
      c.server = *ep;
    }
  } else if (!options.server_from_link) {
    r.error("server", "required (host:port of the qeli server)");
  }
  c.proto =
      r.get_enum("proto", Transport::kTcp, {{"tcp", Transport::kTcp}, {"udp", Transport::kUdp}});
  c.user = r.get_string("user", c.user);
  c.pass = r.get_string("pass", "");
  if (const std::string pw = r.get_string("password_file", ""); !pw.empty()) {
    c.password_file = beside_config(r.file(), pw);
  }
  c.password_command = r.get_string("password_command", "");
  if (const IniEntry* e = r.single("key")) {
    const bool hex64 = e->value.size() == 64 &&
                       e->value.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
    if (!e->value.empty() && !hex64) {
      r.bad_value(*e, "64 hex digits (the server's public key from `qeli show-identity`)");
    } else {
      c.key = ascii_lower(e->value);
    }
  }
  c.bind_static = r.get_bool("bind_static", true);
  c.allow_unpinned_tofu = r.get_bool("allow_unpinned_tofu", false);
  if (const IniEntry* e = r.single("mode")) {
    if (const auto alias = parse_mode_alias(e->value)) {
      c.mode = alias->mode;
      c.quic = alias->quic;
      if (!r.has("proto")) c.proto = alias->transport;
    } else if (const auto m = parse_client_mode(e->value)) {
      c.mode = *m;
    } else {
      r.bad_value(*e, wire::mode_names() + "|udp-quic|udp-obfs");
    }
  }
  c.sni = r.get_string("sni", "");
  c.obfs_key = r.get_string("obfs_key", "");
  c.front = r.get_enum("front", Fronting::kWebsocket,
                       {{"websocket", Fronting::kWebsocket}, {"none", Fronting::kNone}});
  c.reality_sid = r.get_string("reality_sid", "");
  if (!c.reality_sid.empty() && !is_valid_short_id(c.reality_sid)) {
    r.error("reality_sid", "not a short id (1..16 hex digits, not all zero)");
  }
  c.quic = r.get_bool("quic", c.quic);
  c.awg = r.get_bool("awg", false);
  if (options.app_profile) {
    // 0.7.16 clamps the junk to its caps rather than refusing the profile.
    c.jc = std::min(r.get_u<std::uint32_t>("jc", 0, 0, 0xffffffffU), kAwgJcMax);
    c.jmax = std::min<std::uint32_t>(r.get_u<std::uint32_t>("jmax", kAwgJmaxDefault, 0, 0xffff),
                                     kAwgJunkMaxBytes);
    c.jmin = std::min(r.get_u<std::uint32_t>("jmin", kAwgJminDefault, 0, 0xffff), c.jmax);
  } else {
    c.jc = r.get_u<std::uint32_t>("jc", 0, 0, kAwgJcMax);
    c.jmin = r.get_u<std::uint32_t>("jmin", kAwgJminDefault, 0, kAwgJunkMaxBytes);
    c.jmax = r.get_u<std::uint32_t>("jmax", kAwgJmaxDefault, 0, kAwgJunkMaxBytes);
    if (c.jmin > c.jmax) r.error("jmin", "jmin must not exceed jmax");
  }
  c.timeout = r.get_secs("timeout", c.timeout, seconds{1}, seconds{600});
  c.keepalive = r.get_secs("keepalive", c.keepalive, seconds{0}, seconds{86400});
  c.tcp_nodelay = r.get_bool("tcp_nodelay", true);
  if (r.has("recv_buffer_size")) {
    c.recv_buffer_size = r.get_uint("recv_buffer_size", 0, 0, kUdpBufferMax);
  }
  c.send_buffer_size = r.get_uint("send_buffer_size", 0, 0, kUdpBufferMax);
  c.local = r.get_string("local", "");
  if (!c.local.empty() && !Ipv4Addr::parse(c.local)) r.error("local", "not an IPv4 address");
  c.lport = r.get_u<std::uint16_t>("lport", 0, 0, 65535);
}

void read_fallbacks(SectionReader& r, ClientFallbacks& f, const ClientLoadOptions& options) {
  f.padding = r.get_bool("padding", f.padding);
  f.padding_min = r.get_u<std::uint32_t>("padding_min", f.padding_min, 0, kMtuMax);
  f.padding_max = r.get_u<std::uint32_t>("padding_max", f.padding_max, 0, kMtuMax);
  if (f.padding_min > f.padding_max) r.error("padding_min", "padding_min > padding_max");
  f.heartbeat = r.get_bool("heartbeat", f.heartbeat);
  f.heartbeat_interval =
      r.get_ms("heartbeat_interval", f.heartbeat_interval, milliseconds{1}, kHour);
  f.heartbeat_size = r.get_u<std::uint32_t>("heartbeat_size", f.heartbeat_size, 0, 1024);
  f.heartbeat_jitter = r.get_ms("heartbeat_jitter", f.heartbeat_jitter, milliseconds{0}, kHour);
  // (0.7.16 does not check it; the session treats such a jitter as none.)
  if (!options.app_profile && f.heartbeat && f.heartbeat_jitter >= f.heartbeat_interval) {
    r.error("heartbeat_jitter", "jitter must be smaller than heartbeat_interval");
  }
  f.shaping = r.get_bool("shaping", f.shaping);
  f.shaping_gap_mean = r.get_ms("shaping_gap_mean", f.shaping_gap_mean, milliseconds{1}, kHour);
  f.shaping_gap_min = r.get_ms("shaping_gap_min", f.shaping_gap_min, milliseconds{0}, kHour);
  f.shaping_gap_max = r.get_ms("shaping_gap_max", f.shaping_gap_max, milliseconds{0}, kHour);
  if (f.shaping_gap_min > f.shaping_gap_max) {
    r.error("shaping_gap_min", "shaping_gap_min > shaping_gap_max");
  }
  f.shaping_budget = r.get_u<std::uint32_t>("shaping_budget", f.shaping_budget, 1, 0x7fffffff);
  f.shaping_min_size = r.get_u<std::uint32_t>("shaping_min_size", f.shaping_min_size, 0, kMtuMax);
  f.shaping_max_size = r.get_u<std::uint32_t>("shaping_max_size", f.shaping_max_size, 1, kMtuMax);
  if (f.shaping_min_size > f.shaping_max_size) {
    r.error("shaping_min_size", "shaping_min_size > shaping_max_size");
  }
  f.shaping_stealth = r.get_bool("shaping_stealth", f.shaping_stealth);
  f.shaping_stealth_mbps =
      r.get_u<std::uint32_t>("shaping_stealth_mbps", f.shaping_stealth_mbps, 1, 100000);
}

// 0.7.16's GUI-only keys (kGuiOnlyClientKeys), as `qeli client` reads and checks them.
void read_gui_only_keys(SectionReader& r, ClientConfig& c) {
  c.reconnect = r.get_bool("reconnect", true);
  c.reconnect_retries = r.get_int("reconnect_retries", -1, -1, 1000000000);
  c.reconnect_base_delay =
      r.get_secs("reconnect_base_delay", c.reconnect_base_delay, seconds{1}, seconds{3600});
  c.reconnect_max_delay =
      r.get_secs("reconnect_max_delay", c.reconnect_max_delay, seconds{1}, seconds{86400});
  if (c.reconnect_base_delay > c.reconnect_max_delay) {
    r.error("reconnect_base_delay", "larger than reconnect_max_delay");
  }
  c.dev_node = r.get_string("dev_node", "");
  c.metric = r.get_u<std::uint32_t>("metric", 0, 0, 0xffffffffU);
  c.route_file = r.get_string("route_file", "");
  c.persist_tun = r.get_bool("persist_tun", false);
  c.allow_lan = r.get_bool("allow_lan", false);
  c.apps = r.get_list("apps", {});
  c.apps_mode = r.get_enum(
      "apps_mode", AppsMode::kAll,
      {{"all", AppsMode::kAll}, {"include", AppsMode::kInclude}, {"exclude", AppsMode::kExclude}});
  c.name = r.get_string("name", "");
}

// The same keys as an app profile has them (libqeli, 0.7.16's core): text, unchecked; the
// library applies none of them (reconnecting, per-app routing, labels are the app's).
void accept_gui_only_keys(SectionReader& r, ClientConfig& c) {
  for (const auto key : kGuiOnlyClientKeys) (void)r.get_string(key, "");
  c.reconnect = false;  // the app reconnects: one connection per run
}

void read_interface(SectionReader& r, ClientConfig& c, const ClientLoadOptions& options) {
  if (options.app_profile) {
    accept_gui_only_keys(r, c);
  } else {
    read_gui_only_keys(r, c);
  }
  c.dev = r.get_string("dev", c.dev);
  if (c.dev.empty() || c.dev.size() > kTunNameMaxBytes ||
      c.dev.find_first_of(" /\t") != std::string::npos) {
    r.error("dev", "`" + c.dev + "` is not a valid interface name (1..15 bytes)");
  }
  c.dev_attach = r.get_bool("dev_attach", false);
  if (const IniEntry* e = r.single("mtu")) {
    const auto v = parse_uint(e->value, kMtuMax);
    if (!v || (*v != 0 && *v < kMtuMin)) {
      r.bad_value(*e, "0 (use the server's) or 576..16638");
    } else {
      c.mtu = static_cast<std::uint32_t>(*v);
    }
  }
  c.mtu_probe = r.get_bool("mtu_probe", true);
  c.gateway = r.get_bool("gateway", false);
  c.route_local = r.get_bool("route_local", false);
  c.include = r.get_network_list("include", /*allow_bare=*/true, c.include6, options.app_profile);
  c.exclude = r.get_network_list("exclude", /*allow_bare=*/true, c.exclude6, options.app_profile);
  // `system` is 0.7.16's other spelling of `off` (its GUI editors write it): leave the
  // host's resolver alone.
  c.dns = r.get_enum(
      "dns", ClientDns::kTunnel,
      {{"tunnel", ClientDns::kTunnel}, {"off", ClientDns::kOff}, {"system", ClientDns::kOff}});
  for (const auto& s : r.get_list("dns_servers", {})) {
    if (const auto a = Ipv4Addr::parse(s)) {
      c.dns_servers.push_back(*a);
    } else {
      r.error("dns_servers", "`" + s + "` is not an IPv4 address");
    }
  }
  c.kill_switch = r.get_bool("kill_switch", false);
  if (c.kill_switch && !c.gateway) {
    r.warning("kill_switch", "only applies to a full tunnel (gateway = true); ignored");
  }
  c.allow_ipv6_leak = r.get_bool("allow_ipv6_leak", false);
  c.ipv6 = r.get_bool("ipv6", true);
  c.gateway_nat = r.get_bool("gateway_nat", false);
  c.lan_subnet = r.get_cidr_list("lan_subnet", /*allow_bare=*/false);
  c.exit_node = r.get_bool("exit_node", false);
  c.forward = r.get_bool("forward", false);
  c.post_up = r.get_string("post_up", "");
  c.post_down = r.get_string("post_down", "");
  c.autostart = r.get_bool("autostart", false);
}

void check_client(SectionReader& r, const ClientConfig& c, const ClientLoadOptions& options) {
  if (const auto why = transport_mode_conflict(c.proto, c.mode); !why.empty()) r.error("mode", why);
  // 0.7.16 accepts it (its servers write quic=1 into the links of TCP profiles that set
  // obf.quic.enabled), and it means nothing there: said, not refused.
  if (c.quic && c.proto != Transport::kUdp) {
    r.warning("quic", "has no effect over TCP: QUIC shaping is a UDP mode (proto = udp)");
  }
  if (c.mode == ClientMode::kObfs && c.obfs_key.empty()) {
    r.error("obfs_key", "mode obfs requires obfs_key");
  }
  if ((c.mode == ClientMode::kReality || c.mode == ClientMode::kRealityTls) &&
      c.reality_sid.empty()) {
    r.error("reality_sid", "REALITY modes need the server's short id");
  }
  if ((c.mode == ClientMode::kReality || c.mode == ClientMode::kRealityTls) &&
      (c.key.empty() || c.key.find_first_not_of('0') == std::string::npos)) {
    r.error("key", "REALITY modes need the server's key pinned (the token is sealed to it)");
  }
  if (auto why = sni_conflict(c.mode, c.sni); !why.empty()) r.error("sni", std::move(why));
  if (auto why = sni_advice(c.mode, c.sni); !why.empty()) r.warning("sni", std::move(why));
  if (c.mode == ClientMode::kRealityTls && c.sni.empty() && !c.server.host.empty() &&
      !is_host_name(c.server.host)) {
    r.error("sni",
            "reality-tls needs the REALITY target's host name: set sni (host is not a "
            "host name)");
  }
  const int secrets = !c.pass.empty() + !c.password_file.empty() + !c.password_command.empty();
  if (secrets > 1) r.error("pass", "give only one of pass, password_file, password_command");
  if (!options.app_profile) {
    refuse_unbuilt(c,
                   [&r](std::string_view key, std::string why) { r.error(key, std::move(why)); });
  }
}

}  // namespace

ClientLoad load_client_config_text(std::string_view text, const std::string& file,
                                   ClientLoadOptions options) {
  ClientLoad out;
  out.config.file = file;
  const IniDocument doc = parse_ini(text, file, out.findings);
  bool seen_qeli = false, seen_logging = false;
  for (const auto& s : doc.sections) {
    SectionReader r(s, file, out.findings, Severity::kError);
    if (s.name == "qeli" && !seen_qeli) {
      seen_qeli = true;
      read_connection(r, out.config, options);
      read_fallbacks(r, out.config.fallbacks, options);
      read_interface(r, out.config, options);
      check_client(r, out.config, options);
      r.finish();
    } else if (s.name == "logging" && !seen_logging) {
      seen_logging = true;
      if (options.app_profile) {
        accept_logging_section(r);
      } else {
        out.config.logging = read_logging_section(r);
      }
      r.finish();
    } else if (s.name == "qeli" || s.name == "logging") {
      out.findings.error(file, s.name, "", s.line, "section given more than once");
    } else if (s.name.empty()) {
      for (const auto& e : s.entries) {
        out.findings.error(file, "", e.key, e.line, "key outside of any [section]");
      }
    } else {
      out.findings.error(file, s.name, "", s.line,
                         "unknown section (a client config has [qeli] and [logging])");
    }
  }
  if (!seen_qeli) out.findings.error(file, "qeli", "", 0, "missing [qeli] section");
  return out;
}

ClientLoad load_client_config(const std::string& path, ClientLoadOptions options) {
  return load_config_file<ClientLoad>(
      path, [&](std::string_view text) { return load_client_config_text(text, path, options); });
}

ClientLoad client_config_from_link(const ShareLink& l) {
  ClientLoad out;
  auto& c = out.config;
  c.file = "<link>";
  c.server = Endpoint{l.host, l.port, l.host.find(':') != std::string::npos};
  c.proto = l.proto;
  c.user = l.user;
  c.pass = l.pass;
  c.key = l.server_key;
  c.mode = l.mode;
  c.sni = l.sni.value_or("");
  c.reality_sid = l.reality_sid.value_or("");
  c.obfs_key = l.obfs_key.value_or("");
  c.front = l.front;
  c.quic = l.quic;
  c.awg = l.awg;
  c.jc = l.jc;
  c.jmin = l.jmin;
  c.jmax = l.jmax;
  c.mtu = l.mtu;
  c.gateway = l.gateway.value_or(false);
  c.name = l.label;
  for (auto& why : validate_link(l)) out.findings.error("<link>", "", "", 0, std::move(why));
  refuse_unbuilt(c, [&out](std::string_view key, std::string why) {
    out.findings.error("<link>", "", std::string(key), 0, std::move(why));
  });
  return out;
}

std::vector<std::string> apply_link(ClientLoad& load, const ShareLink& l) {
  std::vector<std::string> notes;
  ClientConfig& c = load.config;
  const ClientConfig file = c;
  const ClientConfig from = client_config_from_link(l).config;
  auto note = [&](bool differs, const char* key) {
    if (differs) notes.push_back(std::string("the link's ") + key + " replaces the file's");
  };
  note(!file.server.host.empty() && file.server.to_string() != from.server.to_string(), "server");
  note(file.user != from.user && file.user != ClientConfig{}.user, "user");
  note(!file.pass.empty() || !file.password_file.empty() || !file.password_command.empty(),
       "password");
  note(!file.key.empty() && file.key != from.key, "key");
  // Only a file that chose a carrier (not the defaults) is overridden by the link's.
  const bool file_chose = file.proto != ClientConfig{}.proto || file.mode != ClientConfig{}.mode;
  note(file_chose && (file.proto != from.proto || file.mode != from.mode), "proto/mode");
  c.server = from.server;
  c.proto = from.proto;
  c.user = from.user;
  c.pass = from.pass;
  c.password_file.clear();
  c.password_command.clear();
  c.key = from.key;
  c.mode = from.mode;
  c.sni = from.sni;
  c.reality_sid = from.reality_sid;
  c.obfs_key = from.obfs_key;
  c.front = from.front;
  c.quic = from.quic;
  c.awg = from.awg;
  c.jc = from.jc;
  c.jmin = from.jmin;
  c.jmax = from.jmax;
  if (l.mtu != 0) {
    note(file.mtu != 0 && file.mtu != l.mtu, "mtu");
    c.mtu = l.mtu;
  }
  if (l.gateway) {
    note(file.gateway != *l.gateway, "gateway");
    c.gateway = *l.gateway;
  }
  if (!l.label.empty()) c.name = l.label;
  for (auto& why : validate_link(l)) load.findings.error("<link>", "", "", 0, std::move(why));
  return notes;
}

}  // namespace qeli::config
