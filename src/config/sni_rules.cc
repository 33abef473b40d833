#include "config/sni_rules.h"

#include "config/values.h"

namespace qeli::config {
namespace {

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_label(std::string_view l) {
  if (l.empty() || l.size() > 63 || l.front() == '-' || l.back() == '-') return false;
  for (const char c : l) {
    if (!is_label_char(c)) return false;
  }
  return true;
}

bool is_ip_literal(std::string_view s) {
  return Ipv4Addr::parse(s).has_value() || is_ipv6_literal(s) ||
         (s.size() > 2 && s.front() == '[' && s.back() == ']');
}

bool is_fake_tls_form(std::string_view s) { return s == "!" || s == "~" || s == "@"; }

}  // namespace

bool is_host_name(std::string_view s) {
  if (!s.empty() && s.back() == '.') s.remove_suffix(1);
  if (s.empty() || s.size() > kMaxHostNameChars || is_ip_literal(s)) return false;
  while (true) {
    const auto dot = s.find('.');
    if (!is_label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

std::string sni_conflict(ClientMode mode, std::string_view sni) {
  if (sni.size() > kMaxHostNameChars) {
    return "is " + std::to_string(sni.size()) + " characters; a host name has at most " +
           std::to_string(kMaxHostNameChars) + " (RFC 1035 §2.3.4)";
  }
  if (mode != ClientMode::kRealityTls || sni.empty()) return {};
  if (is_fake_tls_form(sni)) {
    return "reality-tls sends a real TLS server_name: set sni to the REALITY target's host name "
           "(the `!`, `~` and `@` forms are for fake-tls)";
  }
  if (is_ip_literal(sni)) {
    return "reality-tls sends a real TLS server_name, which is a host name, never an IP "
           "address (RFC 6066 §3): set sni to the REALITY target's host name";
  }
  if (!is_host_name(sni)) {
    return "`" + std::string(sni) +
           "` is not a host name (labels of letters, digits, `-` and `_` separated by dots)";
  }
  return {};
}

std::string sni_advice(ClientMode mode, std::string_view sni) {
  if (mode == ClientMode::kRealityTls || mode == ClientMode::kPlain || mode == ClientMode::kObfs ||
      !is_ip_literal(sni)) {
    return {};
  }
  return "an IP address as server_name is never sent by a browser (RFC 6066 §3) and marks "
         "the connection; use a host name";
}

}  // namespace qeli::config
