#include "sys/nft_nat.h"

#include "sys/names.h"

namespace qeli::sys {

std::string nat_table_name(const std::string& profile) { return "qeli_nat_" + profile; }

HostResult<std::string> nat_script(const NatSpec& spec) {
  if (!is_valid_name_suffix(spec.profile)) {
    return host_fail(HostErrc::kInvalidArgument, "bad profile name '" + spec.profile + "'");
  }
  if (!is_valid_ifname(spec.tun) || (!spec.wan.empty() && !is_valid_ifname(spec.wan))) {
    return host_fail(HostErrc::kInvalidArgument,
                     "bad interface name '" + spec.tun + "' / '" + spec.wan + "'");
  }
  const bool forwards = !spec.pools.empty() || !spec.guarded.empty();
  const bool bridges = !spec.dns_bridge.empty() && spec.dns_port != 53;
  if (!forwards && !bridges) {
    return host_fail(HostErrc::kInvalidArgument, "NAT without a pool or a DNS bridge");
  }
  const std::string table = "inet " + nat_table_name(spec.profile);
  const std::string tun = "\"" + spec.tun + "\"";
  const std::string out_match =
      spec.wan.empty() ? "oifname != " + tun : "oifname \"" + spec.wan + "\"";

  // "add; delete; create" in one batch: the add makes the delete valid when no stale
  // table exists, so the same script serves a first start and a restart after a crash.
  std::string s = "add table " + table + "\ndelete table " + table + "\n";
  s += "table " + table + " {\n";
  if (bridges) {
    s += "  chain prerouting {\n    type nat hook prerouting priority dstnat; policy accept;\n";
    for (const IpAddress& a : spec.dns_bridge) {
      const bool v4 = a.family == IpFamily::kV4;
      const std::string l3 = v4 ? "ip" : "ip6";
      const std::string to = v4 ? a.to_string() : "[" + a.to_string() + "]";
      for (const char* l4 : {"udp", "tcp"}) {
        s += "    iifname " + tun + " " + l3 + " daddr " + a.to_string() + " " + l4 +
             " dport 53 dnat " + l3 + " to " + to + ":" + std::to_string(spec.dns_port) + "\n";
      }
    }
    s += "  }\n";
  }
  if (!forwards) return s + "}\n";
  s += "  chain postrouting {\n    type nat hook postrouting priority srcnat; policy accept;\n";
  for (const IpPrefix& p : spec.pools) {
    const char* l3 = p.addr.family == IpFamily::kV4 ? "ip" : "ip6";
    s += "    " + out_match + " " + l3 + " saddr " + p.to_string() + " masquerade\n";
  }
  s += "  }\n";
  s += "  chain forward {\n    type filter hook forward priority filter; policy accept;\n";
  if (spec.mss_clamp) {
    for (const char* dir : {"iifname", "oifname"}) {
      s += std::string("    ") + dir + " " + tun +
           " tcp flags & (syn | rst) == syn tcp option maxseg size set rt mtu\n";
    }
  }
  s += "    iifname " + tun + " accept\n";
  s += "    oifname " + tun + " ct state established,related accept\n";
  for (const IpPrefix& p : spec.guarded) {
    const char* l3 = p.addr.family == IpFamily::kV4 ? "ip" : "ip6";
    s += "    oifname " + tun + " " + l3 + " daddr " + p.to_string() + " drop\n";
  }
  s += "  }\n}\n";
  return s;
}

HostStatus apply_nat(NftContext& nft, const NatSpec& spec) {
  auto script = nat_script(spec);
  if (!script) return fail(script.error());
  auto r = nft.run(*script);
  if (!r) {
    HostError e = r.error();
    e.code = HostErrc::kNftables;
    e.detail = "NAT table for profile " + spec.profile + ": " + e.detail;
    return fail(std::move(e));
  }
  return {};
}

HostResult<bool> remove_nat(NftContext& nft, const std::string& profile) {
  if (!is_valid_name_suffix(profile)) {
    return host_fail(HostErrc::kInvalidArgument, "bad profile name '" + profile + "'");
  }
  return nft.delete_table("inet", nat_table_name(profile));
}

}  // namespace qeli::sys
