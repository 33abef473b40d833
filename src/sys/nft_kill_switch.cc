#include "sys/nft_kill_switch.h"

#include <algorithm>

#include "sys/names.h"

namespace qeli::sys {

namespace {

// "{ a, b }" of the addresses of one family, deduplicated; empty if there are none.
std::string elements(std::vector<IpAddress> addrs, IpFamily family) {
  std::erase_if(addrs, [family](const IpAddress& a) { return a.family != family; });
  std::sort(addrs.begin(), addrs.end());
  addrs.erase(std::unique(addrs.begin(), addrs.end()), addrs.end());
  if (addrs.empty()) return {};
  std::string s = "{ ";
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    if (i != 0) s += ", ";
    s += addrs[i].to_string();
  }
  return s + " }";
}

std::string set_decl(const char* name, const char* type, const std::string& elems) {
  std::string s = std::string("  set ") + name + " {\n    type " + type + "\n";
  if (!elems.empty()) s += "    elements = " + elems + "\n";
  return s + "  }\n";
}

}  // namespace

std::string kill_switch_table_name(const std::string& tun) { return "qeli_ks_" + tun; }

HostResult<std::string> kill_switch_script(const KillSwitchSpec& spec) {
  if (!is_valid_ifname(spec.tun)) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + spec.tun + "'");
  }
  const std::string table = "inet " + kill_switch_table_name(spec.tun);
  const std::string tun = "\"" + spec.tun + "\"";
  std::string s = "add table " + table + "\ndelete table " + table + "\n";
  s += "table " + table + " {\n";
  s += set_decl("servers4", "ipv4_addr", elements(spec.servers, IpFamily::kV4));
  s += set_decl("servers6", "ipv6_addr", elements(spec.servers, IpFamily::kV6));
  s += set_decl("dns4", "ipv4_addr", elements(spec.resolvers, IpFamily::kV4));
  s += set_decl("dns6", "ipv6_addr", elements(spec.resolvers, IpFamily::kV6));
  s += "  chain output {\n    type filter hook output priority filter; policy drop;\n";
  s += "    oifname \"lo\" accept\n";
  s += "    oifname " + tun + " accept\n";
  if (spec.allow_dhcp) {
    s += "    udp sport 68 udp dport 67 accept\n";
    s += "    udp sport 546 udp dport 547 accept\n";
  }
  // Without neighbour discovery an IPv6 server (or the IPv6 gateway) is unreachable;
  // these messages carry no user data.
  s += "    icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert } accept\n";
  s += "    ip daddr @dns4 meta l4proto { tcp, udp } th dport 53 accept\n";
  s += "    ip6 daddr @dns6 meta l4proto { tcp, udp } th dport 53 accept\n";
  s += "    ip daddr @servers4 accept\n";
  s += "    ip6 daddr @servers6 accept\n";
  s += "    counter drop\n  }\n";
  if (spec.gateway_mode) {
    s += "  chain forward {\n    type filter hook forward priority filter; policy drop;\n";
    s += "    iifname " + tun + " accept\n";
    s += "    oifname " + tun + " accept\n";
    s += "    counter drop\n  }\n";
  }
  s += "}\n";
  return s;
}

HostStatus engage_kill_switch(NftContext& nft, const KillSwitchSpec& spec) {
  auto script = kill_switch_script(spec);
  if (!script) return fail(script.error());
  auto r = nft.run(*script);
  if (!r) {
    return host_fail(HostErrc::kNftables, "kill switch on " + spec.tun + ": " + r.error().detail);
  }
  return {};
}

HostStatus refresh_servers(NftContext& nft, const std::string& tun,
                           const std::vector<IpAddress>& servers) {
  if (!is_valid_ifname(tun)) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + tun + "'");
  }
  const std::string table = "inet " + kill_switch_table_name(tun);
  std::string s;
  for (const auto& [set, family] :
       {std::pair{"servers4", IpFamily::kV4}, std::pair{"servers6", IpFamily::kV6}}) {
    s += std::string("flush set ") + table + " " + set + "\n";
    if (auto e = elements(servers, family); !e.empty()) {
      s += std::string("add element ") + table + " " + set + " " + e + "\n";
    }
  }
  auto r = nft.run(s);
  if (!r) return fail(r.error());
  return {};
}

HostResult<bool> lift_kill_switch(NftContext& nft, const std::string& tun) {
  if (!is_valid_ifname(tun)) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + tun + "'");
  }
  return nft.delete_table("inet", kill_switch_table_name(tun));
}

std::vector<std::string> parse_kill_switch_tunnels(std::string_view out) {
  std::vector<std::string> tuns;
  const std::string_view marker = "table inet qeli_ks_";
  while (!out.empty()) {
    const auto nl = out.find('\n');
    std::string_view line = out.substr(0, nl);
    out = nl == std::string_view::npos ? std::string_view{} : out.substr(nl + 1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.starts_with(marker) && line.size() > marker.size()) {
      tuns.emplace_back(line.substr(marker.size()));
    }
  }
  return tuns;
}

HostResult<std::vector<std::string>> kill_switch_tunnels(NftContext& nft) {
  auto out = nft.run("list tables");
  if (!out.ok()) return host_fail(out.error().code, out.error().detail);
  return parse_kill_switch_tunnels(*out);
}

}  // namespace qeli::sys
