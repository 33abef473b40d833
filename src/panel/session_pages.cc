#include "panel/session_pages.h"

#include <cstdint>
#include <cstdio>
#include <string_view>

#include "base/human_units.h"
#include "panel/form.h"
#include "panel/html.h"

namespace qeli::panel {
namespace {

// Every drop reason of control::SessionInfo with what it means (tunnel/session_counters.h
// says the same for metrics; the panel links only control/, so it names them here).
struct DropReason {
  std::string_view name;
  std::uint64_t control::SessionInfo::*field;
  std::string_view meaning;
};
constexpr DropReason kDropReasons[] = {
    {"drop_not_ipv4", &control::SessionInfo::drop_not_ipv4, "Neither IPv4 nor IPv6 (garbage)"},
    {"drop_ipv6", &control::SessionInfo::drop_ipv6,
     "IPv6 from or to a client that did not negotiate it"},
    {"drop_bad_source", &control::SessionInfo::drop_bad_source,
     "Source is not the client's tunnel address or subnet"},
    {"drop_policy", &control::SessionInfo::drop_policy,
     "Refused by policy: client_to_client, allowed_networks or link-scope multicast"},
    {"drop_queue_full", &control::SessionInfo::drop_queue_full, "The session's queue was full"},
    {"drop_replay", &control::SessionInfo::drop_replay,
     "Replayed, or older than the replay window"},
    {"drop_tun_write", &control::SessionInfo::drop_tun_write,
     "The kernel refused the packet on the TUN"},
    {"drop_bad_gso", &control::SessionInfo::drop_bad_gso,
     "A GSO chunk out of order or with bad metadata, or a super-packet that could not be split"},
    {"drop_too_big", &control::SessionInfo::drop_too_big,
     "Larger than one record or the client's MTU holds"},
};

std::uint64_t drops_of(const control::SessionInfo& s) {
  std::uint64_t n = 0;
  for (const auto& d : kDropReasons) n += s.*d.field;
  return n;
}

std::string count(std::uint64_t n) { return std::to_string(n); }

std::string mbps_text(double mbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", mbps);
  return buf;
}

// A rate each way, or nullopt when there is none yet (r null).
std::optional<double> rx_of(const SessionRate* r) {
  return r != nullptr ? std::optional<double>(r->rx_bytes_per_sec) : std::nullopt;
}
std::optional<double> tx_of(const SessionRate* r) {
  return r != nullptr ? std::optional<double>(r->tx_bytes_per_sec) : std::nullopt;
}

}  // namespace

std::string human_rate(Lang l, const std::optional<double>& bytes_per_sec) {
  if (!bytes_per_sec) return "–";
  return tr_text(l, "{size}/s", {{"size", human_bytes(*bytes_per_sec)}});
}

std::string session_path(const control::SessionInfo& s) {
  return "/sessions/view?profile=" + percent_encode(s.profile) + "&id=" + std::to_string(s.id);
}

std::string session_table(const PageContext& c, const control::SessionList& sessions,
                          const std::vector<std::optional<SessionRate>>& rates) {
  const Lang l = c.lang;
  if (sessions.clients.empty()) return "<p class=\"muted\">" + tr(l, "No live sessions.") + "</p>";
  std::string s = "<table>" + th_row(l, {"User", "Device", "Profile", "Tunnel address", "Peer",
                                         "Connected", "#Received", "#Sent", "#Receiving",
                                         "#Sending", "#Drops", "Client", ""});
  for (std::size_t i = 0; i < sessions.clients.size(); ++i) {
    const auto& x = sessions.clients[i];
    const SessionRate* rate = i < rates.size() && rates[i] ? &*rates[i] : nullptr;
    std::string addr = x.tunnel_ip;
    if (!x.tunnel_ip6.empty()) addr += " " + x.tunnel_ip6;
    s += "<tr><td><a href=\"" + escape(c.base + session_path(x)) + "\">" + escape(x.username) +
         "</a></td>" + td(x.device) + td(x.profile) + td(addr) + td(x.peer) +
         td(human_duration(x.connected_secs)) +
         td_num(human_bytes(static_cast<double>(x.rx_bytes))) +
         td_num(human_bytes(static_cast<double>(x.tx_bytes))) +
         td_num(escape(human_rate(l, rx_of(rate)))) + td_num(escape(human_rate(l, tx_of(rate)))) +
         td_num(count(drops_of(x))) +
         td(x.client_platform.empty() ? x.client_version
                                      : x.client_version + " (" + x.client_platform + ")") +
         "<td>" +
         post_button(c.base, "/sessions/kick", c.csrf, tr(l, "Kick"),
                     {{"user", x.username}, {"id", std::to_string(x.id)}}, true) +
         "</td></tr>";
  }
  return s + "</table>";
}

std::string sessions_content(const PageContext& c, const control::SessionList& sessions,
                             const std::vector<std::optional<SessionRate>>& rates) {
  return message_paragraph(c.message) + session_table(c, sessions, rates);
}

std::string session_content(const PageContext& c, const control::SessionInfo& x,
                            const std::optional<SessionRate>& session_rate) {
  const Lang l = c.lang;
  const auto prop = [l](std::string_view label, std::string_view value) {
    return "<dt>" + escape(tr(l, label)) + "</dt><dd>" + escape(value) + "</dd>";
  };
  const SessionRate* rate = session_rate ? &*session_rate : nullptr;
  std::string addr = x.tunnel_ip;
  if (!x.tunnel_ip6.empty()) addr += " " + x.tunnel_ip6;
  std::string s = message_paragraph(c.message);
  s += "<dl class=\"props\">" + prop("User", x.username) + prop("Device", x.device) +
       prop("Profile", x.profile) + prop("Tunnel address", addr) + prop("Peer", x.peer) +
       prop("Connected", human_duration(x.connected_secs)) +
       prop("Client", x.client_platform.empty()
                          ? x.client_version
                          : x.client_version + " (" + x.client_platform + ")") +
       prop("Encryption", x.aead) + prop("TCP streams", count(x.streams)) +
       prop("Address changes (roaming)", count(x.roams)) +
       prop("Bandwidth limit",
            x.bandwidth_limit_mbps > 0
                ? tr_text(l, "{rate} Mbit/s", {{"rate", mbps_text(x.bandwidth_limit_mbps)}})
                : tr(l, "unlimited")) +
       "</dl><p>" +
       post_button(c.base, "/sessions/kick", c.csrf, tr(l, "Kick"),
                   {{"user", x.username}, {"id", std::to_string(x.id)}}, true) +
       " <a href=\"" + escape(c.base) + "/sessions\">" + tr(l, "Back to the sessions") + "</a></p>";

  s += "<h2>" + tr(l, "Traffic") + "</h2><table>" +
       th_row(l, {"Direction", "#Packets", "#Bytes", "#Now"});
  s += "<tr>" + td(tr(l, "Received from the client")) + td_num(count(x.rx_packets)) +
       td_num(human_bytes(static_cast<double>(x.rx_bytes))) +
       td_num(escape(human_rate(l, rx_of(rate)))) + "</tr>";
  s += "<tr>" + td(tr(l, "Sent to the client")) + td_num(count(x.tx_packets)) +
       td_num(human_bytes(static_cast<double>(x.tx_bytes))) +
       td_num(escape(human_rate(l, tx_of(rate)))) + "</tr></table>";

  s += "<h2>" + tr(l, "Dropped packets") + "</h2><table>" +
       th_row(l, {"Reason", "Counter", "#Packets"});
  for (const auto& d : kDropReasons) {
    s += "<tr>" + td(tr(l, d.meaning)) + "<td><code>" + escape(d.name) + "</code></td>" +
         td_num(count(x.*d.field)) + "</tr>";
  }
  s +=
      "<tr><th>" + tr(l, "Total") + "</th><td></td>" + td_num(count(drops_of(x))) + "</tr></table>";

  // Every counter as the server names it, including any a newer server adds.
  s += "<h2>" + tr(l, "Every counter") + "</h2>";
  if (x.counters.empty()) {
    return s + "<p class=\"muted\">" + tr(l, "The server reports no counter list.") + "</p>";
  }
  s += "<table>" + th_row(l, {"Counter", "#Value"});
  for (const auto& v : x.counters) {
    s += "<tr><td><code>" + escape(v.name) + "</code></td>" + td_num(count(v.value)) + "</tr>";
  }
  return s + "</table>";
}

}  // namespace qeli::panel
