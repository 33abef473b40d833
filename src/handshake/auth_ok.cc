#include "handshake/auth_ok.h"

#include "base/ipv6_scope.h"

#include "handshake/auth_message.h"

#include <arpa/inet.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace qeli::handshake {
namespace {

// ordered_json keeps key order, so the pushed obfuscation object is passed on as sent.
using json = nlohmann::ordered_json;
using ordered = nlohmann::ordered_json;

// Unsigned integer field: absent → fallback; present but not an unsigned integer → nullopt
// via `ok = false`.
std::uint64_t get_uint(const json& j, const char* key, std::uint64_t fallback, bool& ok) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_unsigned()) {
    ok = false;
    return fallback;
  }
  return it->get<std::uint64_t>();
}

std::string get_string(const json& j, const char* key, bool& ok) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) {
    ok = false;
    return {};
  }
  return it->get<std::string>();
}

}  // namespace

const char* to_string(AuthOkError e) {
  switch (e) {
    case AuthOkError::kNoPrefix: return "no OK: prefix";
    case AuthOkError::kTooLarge: return "AUTH OK too large";
    case AuthOkError::kNotJson: return "AUTH OK is not a JSON object";
    case AuthOkError::kBadClientIp: return "client_ip is not IPv4";
    case AuthOkError::kBadPrefix: return "prefix out of 1..32";
    case AuthOkError::kBadField: return "AUTH OK field of the wrong type";
    case AuthOkError::kBadToken: return "bad session_token";
  }
  return "?";
}

bool is_ipv6(std::string_view s) {
  if (s.empty() || s.size() > 45 || s.find('\0') != std::string_view::npos) return false;
  const std::string str(s);
  unsigned char buf[16];
  return inet_pton(AF_INET6, str.c_str(), buf) == 1;
}

// x_routes6: "x::/n", n in 0..128 (the address part may have host bits: the route
// takes the network, as `ip route` does).
static bool is_ipv6_network(std::string_view s) {
  const auto slash = s.find('/');
  if (slash == std::string_view::npos || !is_ipv6(s.substr(0, slash))) return false;
  const std::string_view len = s.substr(slash + 1);
  if (len.empty() || len.size() > 3 || len.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  return std::stoul(std::string(len)) <= 128;
}

// x_dns6: a unicast address a packet through the tunnel can go to (base/ipv6_scope.h).
bool is_routable_ipv6(std::string_view s) {
  if (!is_ipv6(s)) return false;
  const std::string str(s);
  std::uint8_t b[16];
  return inet_pton(AF_INET6, str.c_str(), b) == 1 && is_routable_ipv6_unicast(b);
}

bool is_ipv4(std::string_view s) {
  int octets = 0;
  std::size_t i = 0;
  while (octets < 4) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    unsigned v = 0;
    std::size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 4) {
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
      ++i, ++digits;
    }
    if (digits > 3 || v > 255) return false;
    ++octets;
    if (octets < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  return i == s.size();
}

Bytes build_auth_ok(const AuthOk& ok) {
  ordered j;
  j["client_ip"] = ok.client_ip;
  j["server_ip"] = ok.server_ip;
  j["prefix"] = ok.prefix;
  if (ok.mtu) j["mtu"] = *ok.mtu;
  j["dns"] = ok.dns;
  j["dns_port"] = ok.dns_port;
  ordered routes = ordered::array();
  for (const auto& r : ok.routes) {
    routes.push_back({{"cidr", r.cidr}, {"gateway", r.gateway}, {"metric", r.metric}});
  }
  j["routes"] = std::move(routes);
  ordered obf = ordered::parse(ok.obfuscation_json, nullptr, false);
  j["obfuscation"] = obf.is_object() ? std::move(obf) : ordered::object();
  j["session_token"] = ok.session_token ? to_hex(*ok.session_token) : std::string();
  j["max_streams"] = ok.max_streams;
  j["multipath_adaptive"] = ok.multipath_adaptive;
  if (ok.x_caps) j["x_caps"] = *ok.x_caps;
  if (ok.x_tls_bind) j["x_tls_bind"] = *ok.x_tls_bind;
  if (ok.x_roam_key) j["x_roam_key"] = *ok.x_roam_key;
  if (ok.x_resume_secs) j["x_resume_secs"] = *ok.x_resume_secs;
  if (ok.x_ip6 && ok.x_server_ip6) {
    j["x_ip6"] = *ok.x_ip6;
    j["x_server_ip6"] = *ok.x_server_ip6;
    if (ok.x_dns6) j["x_dns6"] = *ok.x_dns6;
    if (!ok.x_routes6.empty()) {
      ordered routes6 = ordered::array();
      for (const auto& r : ok.x_routes6)
        routes6.push_back({{"cidr", r.cidr}, {"metric", r.metric}});
      j["x_routes6"] = std::move(routes6);
    }
  }
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  // Sized once and filled with memcpy: GCC 12 reports a false -Warray-bounds for the
  // insert-after-construct form under -O2.
  Bytes out(kAuthOkPrefix.size() + text.size());
  std::memcpy(out.data(), kAuthOkPrefix.data(), kAuthOkPrefix.size());
  if (!text.empty()) std::memcpy(out.data() + kAuthOkPrefix.size(), text.data(), text.size());
  return out;
}

Result<AuthOk, AuthOkError> parse_auth_ok(ByteSpan p, bool accept_extensions) {
  const std::string_view text(reinterpret_cast<const char*>(p.data()), p.size());
  if (text.substr(0, kAuthOkPrefix.size()) != kAuthOkPrefix) return fail(AuthOkError::kNoPrefix);
  if (p.size() > wire::kMaxAuthOkSize) return fail(AuthOkError::kTooLarge);
  const json j = json::parse(text.substr(kAuthOkPrefix.size()), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(AuthOkError::kNotJson);

  AuthOk ok;
  bool good = true;
  ok.client_ip = get_string(j, "client_ip", good);
  if (!good || !is_ipv4(ok.client_ip)) return fail(AuthOkError::kBadClientIp);
  const std::uint64_t prefix = get_uint(j, "prefix", 24, good);
  if (!good || prefix < 1 || prefix > 32) return fail(AuthOkError::kBadPrefix);
  ok.prefix = static_cast<std::uint8_t>(prefix);
  ok.server_ip = get_string(j, "server_ip", good);
  ok.dns = get_string(j, "dns", good);
  const std::uint64_t mtu = get_uint(j, "mtu", 0, good);
  if (mtu >= wire::kMinTunnelMtu && mtu <= wire::kMaxTunnelMtu) {
    ok.mtu = static_cast<std::uint16_t>(mtu);
  }
  const std::uint64_t port = get_uint(j, "dns_port", 53, good);
  ok.dns_port = port >= 1 && port <= 65535 ? static_cast<std::uint16_t>(port) : 53;
  const std::uint64_t streams = get_uint(j, "max_streams", 1, good);
  ok.max_streams =
      static_cast<std::uint8_t>(std::clamp<std::uint64_t>(streams, 1, wire::kMaxStreams));
  if (const auto it = j.find("multipath_adaptive"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return fail(AuthOkError::kBadField);
    ok.multipath_adaptive = it->get<bool>();
  }
  if (const auto it = j.find("routes"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return fail(AuthOkError::kBadField);
    for (const json& r : *it) {
      if (!r.is_object()) return fail(AuthOkError::kBadField);
      PushedRoute route;
      route.cidr = get_string(r, "cidr", good);
      route.gateway = get_string(r, "gateway", good);
      const std::uint64_t metric = get_uint(r, "metric", 100, good);
      if (route.cidr.empty() || metric > 0xFFFFFFFFULL) return fail(AuthOkError::kBadField);
      route.metric = static_cast<std::uint32_t>(metric);
      ok.routes.push_back(std::move(route));
    }
  }
  if (const auto it = j.find("obfuscation"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return fail(AuthOkError::kBadField);
    ok.obfuscation_json = it->dump(-1, ' ', false, json::error_handler_t::replace);
  }
  const std::string token = get_string(j, "session_token", good);
  if (!token.empty()) {
    JoinToken t{};
    if (!from_hex_into(token, t)) return fail(AuthOkError::kBadToken);
    ok.session_token = t;
  }
  if (accept_extensions) {
    // A malformed x_caps is ignored (treated as absent), never fatal.
    bool caps_ok = true;
    const std::uint64_t caps = get_uint(j, "x_caps", 0, caps_ok);
    if (j.contains("x_caps") && caps_ok && caps <= 0xFFFFFFFFULL) {
      ok.x_caps = static_cast<std::uint32_t>(caps);
    }
    bool bind_ok = true;
    const std::string bind = get_string(j, "x_tls_bind", bind_ok);
    if (bind_ok && bind.size() == 64) ok.x_tls_bind = bind;  // else absent: not bound
    bool roam_ok = true;
    const std::string roam = get_string(j, "x_roam_key", roam_ok);
    if (roam_ok && roam.size() == 64) ok.x_roam_key = roam;  // else absent: no roaming
    bool resume_ok = true;
    const std::uint64_t resume = get_uint(j, "x_resume_secs", 0, resume_ok);
    if (resume_ok && resume >= 1 && resume <= 3600) {
      ok.x_resume_secs = static_cast<std::uint32_t>(resume);  // else absent: no resume
    }
    // Both valid or neither: the client answers caps::kIpv6Inside only with an address.
    bool ip6_ok = true;
    const std::string ip6 = get_string(j, "x_ip6", ip6_ok);
    const std::string server6 = get_string(j, "x_server_ip6", ip6_ok);
    const auto slash = ip6.find('/');
    if (ip6_ok && slash != std::string::npos && is_ipv6(ip6.substr(0, slash)) && is_ipv6(server6)) {
      const std::string len = ip6.substr(slash + 1);
      const bool digits = !len.empty() && len.size() <= 3 &&
                          len.find_first_not_of("0123456789") == std::string::npos;
      if (digits && std::stoul(len) >= 1 && std::stoul(len) <= 128) {
        ok.x_ip6 = ip6;
        ok.x_server_ip6 = server6;
      }
    }
    // The IPv6 resolver: only beside the address (it is used only over IPv6 inside).
    bool dns6_ok = true;
    const std::string dns6 = get_string(j, "x_dns6", dns6_ok);
    if (ok.x_ip6 && dns6_ok && is_routable_ipv6(dns6)) ok.x_dns6 = dns6;
    // IPv6 routes: only beside the address; a malformed entry is dropped, never fatal.
    if (const auto it = j.find("x_routes6"); ok.x_ip6 && it != j.end() && it->is_array()) {
      for (const json& r : *it) {
        if (!r.is_object()) continue;
        bool route_ok = true;
        PushedRoute route;
        route.cidr = get_string(r, "cidr", route_ok);
        const std::uint64_t metric = get_uint(r, "metric", 100, route_ok);
        if (route_ok && metric <= 0xFFFFFFFFULL && is_ipv6_network(route.cidr)) {
          route.metric = static_cast<std::uint32_t>(metric);
          ok.x_routes6.push_back(std::move(route));
        }
      }
    }
  }
  if (!good) return fail(AuthOkError::kBadField);
  return ok;
}

}  // namespace qeli::handshake
