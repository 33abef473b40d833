#include "cli/session_table.h"

#include <cstdio>

#include "cli/text_table.h"

namespace qeli::cli {
namespace {

std::uint64_t drops_of(const control::SessionInfo& c) {
  return c.drop_bad_source + c.drop_policy + c.drop_ipv6 + c.drop_not_ipv4 + c.drop_queue_full +
         c.drop_replay + c.drop_tun_write + c.drop_bad_gso + c.drop_too_big;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// 0.7.16's BW LIMIT cell: "unlimited" or "<N> Mbps".
std::string bandwidth_cell(double mbps) {
  if (!(mbps > 0)) return "unlimited";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g Mbps", mbps);
  return buf;
}

}  // namespace

std::string legacy_uptime(std::int64_t secs) {
  if (secs < 0) secs = 0;
  if (secs < 60) return std::to_string(secs) + "s";
  if (secs < 3600) return std::to_string(secs / 60) + "m" + std::to_string(secs % 60) + "s";
  return std::to_string(secs / 3600) + "h" + std::to_string(secs % 3600 / 60) + "m";
}

std::string legacy_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KB", b / 1024.0);
  } else if (bytes < 1024ULL * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1024.0 / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GB", b / 1024.0 / 1024.0 / 1024.0);
  }
  return buf;
}

std::string legacy_wait(std::int64_t secs) {
  if (secs < 0) secs = 0;
  if (secs < 60) return std::to_string(secs) + "s";
  return std::to_string(secs / 60) + "m " + std::to_string(secs % 60) + "s";
}

void print_sessions(const std::vector<control::SessionInfo>& sessions, std::ostream& out) {
  if (sessions.empty()) {
    out << "No clients connected.\n";
    return;
  }
  // 0.7.16's columns in its order (USERNAME … BW LIMIT, CLIENT), ours between CLIENT and
  // DROPS, which stays last as in 0.7.16.
  TextTable t({"USERNAME", "IP", "SOURCE", "UPTIME", "SENT", "RECV", "BW LIMIT", "CLIENT",
               "PROFILE", "IPV6", "STREAMS", "ROAMS", "DROPS"});
  t.rule_under_header();
  for (const auto& c : sessions) {
    // 0.7.16 writes "version/platform", "-" for a client that sent no report.
    std::string client = or_dash(c.client_version);
    if (!c.client_version.empty() && !c.client_platform.empty()) client += "/" + c.client_platform;
    t.row(c.username, or_dash(c.tunnel_ip), or_dash(c.peer), legacy_uptime(c.connected_secs),
          legacy_bytes(c.tx_bytes), legacy_bytes(c.rx_bytes),
          bandwidth_cell(c.bandwidth_limit_mbps), client, c.profile, or_dash(c.tunnel_ip6),
          c.streams == 0 ? std::string("udp") : std::to_string(c.streams), c.roams, drops_of(c));
  }
  t.print(out);
}

void print_lockouts(const std::vector<control::BlockedAddress>& blocked, std::ostream& out) {
  if (blocked.empty()) {
    out << "No blocked IPs.\n";
    return;
  }
  TextTable t({"IP ADDRESS", "FAILURES", "UNBLOCK IN", "USER"});
  t.rule_under_header();
  for (const auto& b : blocked) {
    t.row(b.ip, b.failures, legacy_wait(b.seconds_left),
          b.user.empty() ? std::string("(every user)") : b.user);
  }
  t.print(out);
}

}  // namespace qeli::cli
