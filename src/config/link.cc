#include "config/link.h"

#include "config/short_id.h"
#include "config/sni_rules.h"
#include "config/values.h"

namespace qeli::config {
namespace {

constexpr std::string_view kScheme = "qeli://";

bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (hex_digit(c) < 0) return false;
  }
  return true;
}

Unexpected<std::string> refuse(std::string why) { return fail(std::move(why)); }

// Applies one decoded query parameter. Returns an error text for a malformed known one.
std::optional<std::string> apply_param(ShareLink& l, std::string_view name, const std::string& v) {
  auto number = [&](std::uint32_t& dst, std::uint64_t max) -> std::optional<std::string> {
    const auto n = parse_uint(v, max);
    if (!n) return std::string(name) + "=" + v + " is not a number in 0.." + std::to_string(max);
    dst = static_cast<std::uint32_t>(*n);
    return std::nullopt;
  };
  auto flag = [&](bool& dst) -> std::optional<std::string> {
    const auto b = parse_bool(v);
    if (!b) return std::string(name) + "=" + v + " is not 1/0/true/false";
    dst = *b;
    return std::nullopt;
  };
  if (name == "proto") {
    const auto t = parse_transport(v);
    if (!t) return "proto=" + v + " is not tcp or udp";
    l.proto = *t;
  } else if (name == "mode") {
    if (const auto alias = parse_mode_alias(v)) {
      l.proto = alias->transport;
      l.mode = alias->mode;
      l.quic = l.quic || alias->quic;
    } else if (const auto m = parse_client_mode(v)) {
      l.mode = *m;
    } else {
      return "mode=" + v + " is not a qeli mode";
    }
  } else if (name == "key") {
    if (!v.empty() && (v.size() != 64 || !is_hex(v))) return "key is not 64 hex digits";
    l.server_key = ascii_lower(v);
  } else if (name == "sni") {
    l.sni = v;
  } else if (name == "rsid") {
    if (!is_valid_short_id(v)) return "rsid=" + v + " is not a short id (1..16 hex digits)";
    l.reality_sid = short_id_digits(v);  // separators would not survive a trimmed link
  } else if (name == "obfs") {
    l.obfs_key = v;
  } else if (name == "front") {
    const auto f = parse_fronting(v);
    if (!f) return "front=" + v + " is not websocket or none";
    l.front = *f;
  } else if (name == "quic") {
    return flag(l.quic);
  } else if (name == "awg") {
    return flag(l.awg);
  } else if (name == "jc") {
    return number(l.jc, 0xffffffffULL);
  } else if (name == "jmin") {
    return number(l.jmin, 0xffffffffULL);
  } else if (name == "jmax") {
    return number(l.jmax, 0xffffffffULL);
  } else if (name == "mtu") {
    return number(l.mtu, 0xffffffffULL);
  } else if (name == "gateway") {
    bool full = false;
    if (auto err = flag(full)) return err;
    l.gateway = full;
  }
  return std::nullopt;  // unknown parameter: ignored (forward compatible)
}

}  // namespace

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (is_unreserved(c)) {
      out += c;
    } else {
      const auto b = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_digit(s[i + 1]);
    const int lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>((hi << 4) | lo);
    i += 2;
  }
  return out;
}

std::string_view trim_link_text(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  for (;;) {
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    if (s.size() < 2) return s;
    const char open = s.front(), close = s.back();
    const bool quoted = (open == '"' && close == '"') || (open == '\'' && close == '\'') ||
                        (open == '`' && close == '`') || (open == '<' && close == '>');
    if (!quoted) return s;
    s = s.substr(1, s.size() - 2);
  }
}

Result<ShareLink, std::string> parse_link(std::string_view uri) {
  uri = trim_link_text(uri);
  if (uri.size() > 8192) return refuse("link longer than 8192 bytes");
  if (!uri.starts_with(kScheme)) return refuse("not a qeli:// link");
  std::string_view rest = uri.substr(kScheme.size());
  ShareLink l;

  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    const auto label = percent_decode(rest.substr(hash + 1));
    if (!label) return refuse("bad percent-escape in the label");
    l.label = *label;
    rest = rest.substr(0, hash);
  }
  std::string_view query;
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);  // "host:port/?..."
  if (rest.find('/') != std::string_view::npos) return refuse("unexpected path in the link");

  std::string_view hostport = rest;
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    hostport = rest.substr(at + 1);
    const auto colon = userinfo.find(':');
    const auto user = percent_decode(userinfo.substr(0, colon));
    const auto pass = percent_decode(colon == std::string_view::npos ? std::string_view{}
                                                                     : userinfo.substr(colon + 1));
    if (!user || !pass) return refuse("bad percent-escape in user or password");
    l.user = *user;
    l.pass = *pass;
  }
  std::string_view port_text;
  if (!hostport.empty() && hostport.front() == '[') {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) return refuse("unterminated [IPv6] host");
    if (close + 1 >= hostport.size() || hostport[close + 1] != ':') {
      return refuse("a bracketed host needs :PORT");
    }
    l.host = std::string(hostport.substr(1, close - 1));
    port_text = hostport.substr(close + 2);
    if (!is_ipv6_literal(l.host)) return refuse("[...] must hold an IPv6 address");
  } else {
    const auto colon = hostport.rfind(':');
    if (colon == std::string_view::npos) return refuse("missing :PORT");
    l.host = std::string(hostport.substr(0, colon));
    port_text = hostport.substr(colon + 1);
    if (l.host.find(':') != std::string::npos) return refuse("IPv6 hosts must be bracketed");
  }
  if (l.host.empty()) return refuse("empty host");
  if (l.host.find(':') == std::string::npos && !is_host_name(l.host) && !Ipv4Addr::parse(l.host)) {
    return refuse("host has characters a host name cannot have");
  }
  const auto port = parse_uint(port_text, 65535);
  if (!port || *port == 0) return refuse("port must be 1..65535");
  l.port = static_cast<std::uint16_t>(*port);

  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const auto name = percent_decode(pair.substr(0, eq));
    const auto value =
        percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!name || !value) return refuse("bad percent-escape in a parameter");
    if (auto err = apply_param(l, *name, *value)) return refuse(*err);
  }
  return l;
}

std::string emit_link(const ShareLink& l) {
  const bool v6 = l.host.find(':') != std::string::npos;
  std::string s(kScheme);
  s += percent_encode(l.user) + ":" + percent_encode(l.pass) + "@";
  s += v6 ? "[" + l.host + "]" : l.host;  // parse_link only accepts hosts that need no escaping
  s += ":" + std::to_string(l.port);
  s += "?proto=" + std::string(to_string(l.proto));
  s += "&mode=" + std::string(to_string(l.mode));
  if (!l.server_key.empty()) s += "&key=" + l.server_key;
  if (l.sni) s += "&sni=" + percent_encode(*l.sni);
  if (l.reality_sid) s += "&rsid=" + percent_encode(*l.reality_sid);
  if (l.obfs_key) s += "&obfs=" + percent_encode(*l.obfs_key);
  if (l.front != Fronting::kWebsocket) s += "&front=" + std::string(to_string(l.front));
  if (l.quic) s += "&quic=1";
  if (l.awg) {
    s += "&awg=1&jc=" + std::to_string(l.jc) + "&jmin=" + std::to_string(l.jmin) +
         "&jmax=" + std::to_string(l.jmax);
  }
  if (l.mtu != 0) s += "&mtu=" + std::to_string(l.mtu);
  if (l.gateway) s += *l.gateway ? "&gateway=1" : "&gateway=0";
  if (!l.label.empty()) s += "#" + percent_encode(l.label);
  return s;
}

std::vector<std::string> validate_link(const ShareLink& l) {
  std::vector<std::string> out;
  if (auto why = transport_mode_conflict(l.proto, l.mode); !why.empty())
    out.push_back(std::move(why));
  if (auto why = sni_conflict(l.mode, l.sni.value_or("")); !why.empty()) {
    out.push_back("sni=: " + why);
  }
  if (l.mode == ClientMode::kRealityTls && l.sni.value_or("").empty() && !is_host_name(l.host)) {
    out.emplace_back("mode=reality-tls needs sni= with the REALITY target's host name");
  }
  if (l.mode == ClientMode::kObfs && (!l.obfs_key || l.obfs_key->empty())) {
    out.emplace_back("mode=obfs needs an obfs= key");
  }
  if ((l.mode == ClientMode::kReality || l.mode == ClientMode::kRealityTls) && !l.reality_sid) {
    out.emplace_back("REALITY modes need an rsid= short id");
  }
  if (l.awg) {
    if (l.jc > kAwgJcMax) out.emplace_back("jc must be <= 128");
    if (l.jmax > kAwgJunkMaxBytes) out.emplace_back("jmax must be <= 1400");
    if (l.jmin > l.jmax) out.emplace_back("jmin must not exceed jmax");
  }
  if (l.mtu != 0 && (l.mtu < kMtuMin || l.mtu > kMtuMax)) {
    out.emplace_back("mtu must be 0 or 576..16638");
  }
  return out;
}

}  // namespace qeli::config
