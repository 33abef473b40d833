// qeli_client_run's input and qeli_client_new's profile text (ffi/ffi_client.h).
#include <nlohmann/json.hpp>

#include "config/link.h"
#include "ffi/ffi_client.h"

namespace qeli::ffi {

namespace {
constexpr std::size_t kMaxListEntries = 16;

// `ipv6`: IPv6 addresses are taken too (the carrier's addresses; DNS servers stay IPv4).
Result<std::vector<transport::SockAddr>, std::string> address_list(const nlohmann::json& j,
                                                                   const char* key, bool ipv6) {
  const std::string what = ipv6 ? "IPv4 or IPv6" : "IPv4";
  if (!j.is_array()) return fail(std::string(key) + " must be an array of " + what + " strings");
  if (j.size() > kMaxListEntries) {
    return fail(std::string(key) + " has more than " + std::to_string(kMaxListEntries) +
                " entries");
  }
  std::vector<transport::SockAddr> out;
  for (const auto& v : j) {
    std::optional<transport::SockAddr> a;
    if (v.is_string()) a = transport::SockAddr::parse_ip(v.get<std::string>(), 0);
    if (!a || (!ipv6 && !a->is_ipv4())) {
      return fail(std::string(key) + ": " + v.dump() + " is not an " + what + " address");
    }
    out.push_back(*a);
  }
  return out;
}
}  // namespace

Result<RunInput, std::string> parse_run_input(std::string_view json, std::uint16_t server_port) {
  RunInput in;
  if (json.empty()) return in;
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail(std::string("not a JSON object"));
  for (const auto& [key, value] : j.items()) {
    if (key == "carrier_addresses") {
      auto list = address_list(value, "carrier_addresses", true);
      if (!list.ok()) return fail(list.error());
      for (const auto& a : *list) in.carrier_addresses.push_back(a.with_port(server_port));
    } else if (key == "fallback_dns_servers") {
      auto list = address_list(value, "fallback_dns_servers", false);
      if (!list.ok()) return fail(list.error());
      for (const auto& a : *list) in.fallback_dns.push_back(a.ip_string());
    } else {
      return fail("unknown key \"" + key + "\"");
    }
  }
  return in;
}

Result<config::ClientConfig, std::string> load_profile(std::string_view text) {
  const std::string_view trimmed = config::trim_link_text(text);
  config::ClientLoad load;
  if (trimmed.starts_with("qeli://")) {
    auto link = config::parse_link(trimmed);
    if (!link.ok()) return fail("bad link: " + link.error());
    load = config::client_config_from_link(*link);
  } else {
    load = config::load_client_config_text(text, "<libqeli profile>");
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
