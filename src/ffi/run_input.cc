// qeli_client_run's input and qeli_client_new's profile text (ffi/ffi_client.h).
#include <nlohmann/json.hpp>

#include "config/link.h"
#include "config/unbuilt.h"
#include "ffi/ffi_client.h"

namespace qeli::ffi {

namespace {

// An array of strings (0.7.16: Vec<String>, so a wrong type is a JSON error).
bool string_list(const nlohmann::json& j, std::vector<std::string>& out) {
  if (!j.is_array()) return false;
  for (const auto& v : j) {
    if (!v.is_string()) return false;
    out.push_back(v.get<std::string>());
  }
  return true;
}

}  // namespace

Result<RunInputText, std::string> parse_run_input(std::string_view json) {
  RunInputText in;
  if (json.empty()) return in;
  if (!is_utf8(json)) return fail(std::string("not UTF-8"));
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail(std::string("not a JSON object"));
  for (const auto& [key, value] : j.items()) {
    if (key == "carrier_addresses") {
      if (!string_list(value, in.carrier_addresses)) {
        return fail(std::string("carrier_addresses must be an array of strings"));
      }
    } else if (key == "fallback_dns_servers") {
      if (!string_list(value, in.fallback_dns)) {
        return fail(std::string("fallback_dns_servers must be an array of strings"));
      }
    } else {
      return fail("unknown key \"" + key + "\"");
    }
  }
  return in;
}

Result<RunInput, std::string> check_run_input(const RunInputText& text, std::uint16_t server_port) {
  RunInput in;
  if (text.fallback_dns.size() > kMaxFallbackDns) {
    return fail("at most " + std::to_string(kMaxFallbackDns) + " fallback DNS servers");
  }
  for (const auto& s : text.fallback_dns) {
    const auto a = transport::SockAddr::parse_ip(s, 0);
    if (!a) return fail("invalid fallback DNS server '" + s + "'");
    in.fallback_dns.push_back(a->ip_string());
  }
  if (text.carrier_addresses.size() > kMaxCarrierAddresses) {
    return fail("at most " + std::to_string(kMaxCarrierAddresses) + " carrier addresses");
  }
  for (const auto& s : text.carrier_addresses) {
    // IPv4 as 0.7.16; IPv6 too (ours: IPv6 carriers).
    const auto a = transport::SockAddr::parse_ip(s, server_port);
    if (!a) return fail("invalid carrier address '" + s + "'");
    in.carrier_addresses.push_back(*a);
  }
  return in;
}

std::string error_text(std::string_view text) {
  return std::string(utf8_prefix(text, kMaxErrorChars));  // 0.7.16: chars().take(512)
}

std::vector<std::string> unapplied_settings(const config::ClientConfig& profile) {
  // The features 0.7.16's core applies and this build lacks (config/unbuilt.h); the
  // others it refuses for `qeli client` are the platform's, which 0.7.16's core ignores too.
  static constexpr std::string_view kCoreApplied[] = {"shaping", "shaping_stealth", "local",
                                                      "lport"};
  std::vector<std::string> out;
  config::refuse_unbuilt(profile, [&](std::string_view key, std::string why) {
    for (const auto k : kCoreApplied) {
      if (k == key) out.push_back("profile: " + std::string(key) + " is not applied: " + why);
    }
  });
  return out;
}

Result<config::ClientConfig, std::string> load_profile(std::string_view text) {
  const std::string_view trimmed = config::trim_link_text(text);
  config::ClientLoad load;
  if (trimmed.starts_with("qeli://")) {
    auto link = config::parse_link(trimmed);
    if (!link.ok()) return fail("bad link: " + link.error());
    load = config::client_config_from_link(*link);
  } else {
    // What 0.7.16's core accepts (config::ClientLoadOptions::app_profile).
    config::ClientLoadOptions options;
    options.app_profile = true;
    load = config::load_client_config_text(text, "<libqeli profile>", options);
  }
  std::string errors;
  for (const auto& f : load.findings.all()) {
    if (f.severity != config::Severity::kError && f.severity != config::Severity::kUnknownKey) {
      continue;
    }
    errors += (errors.empty() ? "" : "\n") + f.to_string();
  }
  if (!errors.empty()) return fail(std::move(errors));
  auto mode = client::ClientCore::check_mode(load.config);
  if (!mode.ok()) return fail(mode.error().detail);
  return std::move(load.config);
}

}  // namespace qeli::ffi
