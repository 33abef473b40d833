#include "client/linux_tunnel.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <vector>

#include "client/client_hooks.h"
#include "client/dns_choice.h"
#include "client/route_plan.h"
#include "sys/link_netlink.h"
#include "sys/sysctl.h"
#include "transport/endpoint.h"
#include "tunio/linux_tun.h"

namespace qeli::client {
namespace {

// What one session changed on the host (routes, DNS), each change journaled before it is
// made (sys::HostChanges) so that a crash is undone on the next start or by --cleanup;
// reverted in reverse order when the session ends.
class SessionChanges {
 public:
  explicit SessionChanges(sys::HostChanges& host) : host_(host) {}
  ~SessionChanges() { clear(); }
  SessionChanges(const SessionChanges&) = delete;
  SessionChanges& operator=(const SessionChanges&) = delete;
  bool add_route(const sys::Route& r) {
    auto id = host_.add_route(r);
    if (!id.ok()) {
      if (id.error().code == sys::HostErrc::kExists) return true;  // not ours: keep it
      spdlog::warn("route {}: {}", r.to_string(), id.error().detail);
      return false;
    }
    ids_.push_back(*id);
    return true;
  }
  bool take_over_dns(sys::ResolvConf& rc, const sys::DnsSettings& dns, const std::string& tun) {
    auto id = host_.take_over_dns(rc, dns, tun);
    if (!id.ok()) {
      spdlog::warn("DNS: {}", id.error().detail);
      return false;
    }
    ids_.push_back(*id);
    return true;
  }
  void clear() {
    for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) (void)host_.revert(*it);
    ids_.clear();
  }

 private:
  sys::HostChanges& host_;
  std::vector<std::uint64_t> ids_;
};

// Per-link DNS set through systemd-resolved for one session: reverted when the session
// ends, before its TUN goes (resolved would also forget it with the link).
class LinkDnsGuard {
 public:
  LinkDnsGuard(sys::LinkDns& dns, std::string dev) : dns_(dns), dev_(std::move(dev)) {}
  ~LinkDnsGuard() {
    if (auto st = dns_.revert(dev_); !st.ok()) spdlog::warn("DNS revert: {}", st.error().detail);
  }
  LinkDnsGuard(const LinkDnsGuard&) = delete;
  LinkDnsGuard& operator=(const LinkDnsGuard&) = delete;

 private:
  sys::LinkDns& dns_;
  std::string dev_;
};

sys::Route dev_route(const std::string& cidr, const std::string& dev, std::uint32_t metric = 0) {
  sys::Route r;
  r.dst = sys::IpPrefix::parse(cidr).value();
  r.dev = dev;
  r.metric = metric;
  return r;
}

// Members in the order they are made; destroyed in reverse: DNS, routes, the TUN.
class LinuxTunnel final : public Tunnel {
 public:
  LinuxTunnel(LinuxHost& host, tunio::LinuxTun tun)
      : host_(host), tun_(std::move(tun)), queue_(tun_, 0), changes_(host.host) {}
  // A data phase that threw never ended(): its socket goes right after us, so `qeli
  // status` must stop reading it now.
  ~LinuxTunnel() override {
    if (udp_attached_) host_.status.udp_started(nullptr);
  }
  LinuxTunnel(const LinuxTunnel&) = delete;
  LinuxTunnel& operator=(const LinuxTunnel&) = delete;

  tunio::TunDevice& device() override { return queue_; }
  void started(const tunnel::SessionCounters& counters) override {
    host_.status.connected(info_, &counters);
    host_.notifier.status("connected to " + host_.endpoint_name + " as " + host_.cfg.user + ": " +
                          info_.client_cidr + " on " + info_.dev);
    (void)run_client_hook("post_up", host_.cfg.post_up, hook_env_);
  }
  // `qeli status` shows the socket's receive buffer, drops and grows (docs/OPERATIONS.md
  // "Client status"), read from its atomics when asked: nothing on the data path.
  void started_udp(const transport::UdpRxStats& socket) override {
    host_.status.udp_started(&socket);
    udp_attached_ = true;
  }
  void ended(const std::string& why) override {
    (void)run_client_hook("post_down", host_.cfg.post_down, hook_env_);
    host_.status.disconnected(why);
    udp_attached_ = false;
  }

  // Addresses, routes and DNS on the TUN; an error text when it cannot carry the tunnel.
  std::string set_up(const TunnelConfig& tc);
  bool carries_ipv6() const override { return ipv6_; }

 private:
  LinuxHost& host_;
  tunio::LinuxTun tun_;
  tunio::TunQueue queue_;
  SessionChanges changes_;
  std::optional<LinkDnsGuard> link_dns_;
  bool ipv6_ = false;  ///< the pushed IPv6 address is on the TUN
  TunnelInfo info_;
  sys::HookEnv hook_env_;
  bool udp_attached_ = false;  ///< `qeli status` reads this session's UDP socket
};

std::string LinuxTunnel::set_up(const TunnelConfig& tc) {
  const config::ClientConfig& cfg = host_.cfg;
  const handshake::AuthOk& ok = tc.pushed;
  const std::size_t mtu = tc.mtu;
  auto nl = sys::LinkNetlink::open();
  if (!nl.ok()) return "netlink: " + nl.error().detail;
  const std::string dev = tun_.name();
  const std::string cidr = ok.client_ip + "/" + std::to_string(ok.prefix);
  // Negotiated (Connector::run_tunnel), and possible here: else IPv4 only, with a warning.
  ipv6_ = ok.x_ip6.has_value();
  if (ipv6_ && mtu < 1280) {
    spdlog::warn(
        "the server offers IPv6 inside the tunnel, but the tunnel MTU {} is below "
        "IPv6's 1280: IPv4 only",
        mtu);
    ipv6_ = false;
  }
  if (ipv6_) {
    // IPv6 inside: the pushed address only — no link-local address, router solicitation
    // or autoconfiguration on the TUN (the server would drop what does not come from
    // the pushed address).
    const std::string conf = "net/ipv6/conf/" + dev + "/";
    for (const auto& [key, value] :
         {std::pair{"addr_gen_mode", "1"}, std::pair{"accept_ra", "0"},
          std::pair{"router_solicitations", "0"}, std::pair{"disable_ipv6", "0"}}) {
      if (auto st = sys::write_sysctl(conf + key, value); !st.ok()) {
        if (std::string_view(key) == "disable_ipv6") {
          spdlog::warn(
              "the server offers IPv6 inside the tunnel, but IPv6 cannot be enabled "
              "on {} ({}): IPv4 only",
              dev, st.error().detail);
          ipv6_ = false;
        } else {
          spdlog::debug("{}{} stays: {}", conf, key, st.error().detail);
        }
      }
    }
  }
  if (!ipv6_) {
    // The tunnel carries IPv4 only: with IPv6 off on the TUN the kernel sends no router
    // solicitations or other IPv6 into it (the server would only drop them). The setting
    // goes with the device; a kernel without IPv6 has no such key, which is fine.
    if (auto st = sys::write_sysctl("net/ipv6/conf/" + dev + "/disable_ipv6", "1"); !st.ok()) {
      spdlog::debug("IPv6 on {} stays: {}", dev, st.error().detail);
    }
  }
  // 1000 packets of TUN queue, as the server's default `tun.tx_queue_len`.
  for (auto st :
       {nl->set_mtu(dev, static_cast<std::uint32_t>(mtu)), nl->set_tx_queue_len(dev, 1000),
        nl->add_address(dev, cidr), nl->set_link_up(dev)}) {
    if (!st.ok()) return "TUN " + dev + ": " + st.error().detail;
  }
  if (ipv6_) {
    if (auto st = nl->add_address(dev, *ok.x_ip6, /*skip_dad=*/true); !st.ok()) {
      spdlog::warn("the server offers IPv6 inside the tunnel, but {} takes no {} ({}): IPv4 only",
                   dev, *ok.x_ip6, st.error().detail);
      ipv6_ = false;
      (void)sys::write_sysctl("net/ipv6/conf/" + dev + "/disable_ipv6", "1");
    }
  }
  // DNS: see client/dns_choice.h for the rules.
  sys::ResolvedProbePaths probe;
  if (!host_.resolv_conf_path.empty()) probe.resolv_conf = host_.resolv_conf_path;
  // The IPv6 resolver only when IPv6 is on the TUN (the host may have fallen back).
  const std::string dns6 = ipv6_ ? ok.x_dns6.value_or("") : std::string();
  const DnsChoice dns = choose_dns(cfg, ok.dns, dns6, sys::probe_resolved(probe));
  std::vector<std::string> resolvers;
  if (dns.path != DnsPath::kLeaveAlone) {
    for (const auto& a : dns.dns.servers) resolvers.push_back(a.to_string());
  }
  // The pushed IPv6 routes (x_routes6) beside the IPv4 ones: plan_routes keeps them only
  // while the TUN carries IPv6.
  std::vector<handshake::PushedRoute> pushed = ok.routes;
  pushed.insert(pushed.end(), ok.x_routes6.begin(), ok.x_routes6.end());
  const RoutePlan plan = plan_routes(cfg, pushed, resolvers, ipv6_);
  for (const auto& c : plan.not_carried) {
    spdlog::warn(
        "include {}: this session carries no IPv6 (see `ipv6` and the server's "
        "pool.ipv6.cidr); the network is not routed through the tunnel",
        c);
  }
  for (const auto& r : plan.refused) {
    spdlog::warn("pushed route {} refused: {}", r.cidr, r.why);
  }
  const bool full = plan.full_tunnel;
  if (plan.pin_server || !plan.via_underlay.empty()) {
    // Pin the server (and excluded networks) through the path it uses now, before any
    // route through the tunnel could cover it.
    const auto server = sys::IpAddress::parse(tc.server.ip_string());
    auto via = host_.routes.lookup(server.value());
    if (!via.ok()) return "no route to the server: " + via.error().detail;
    if (plan.pin_server && !changes_.add_route(sys::pin_route(*via))) {
      return "cannot pin the server route";
    }
    for (const auto& c : plan.via_underlay) {
      const auto dst = sys::IpPrefix::parse(c).value();
      // An excluded network of the server's family leaves through the server's path; one
      // of the other family (an IPv4 network beside an IPv6 server) through its own.
      auto other = dst.addr.family == server->family ? via : host_.routes.lookup(dst.addr);
      if (!other.ok()) {
        spdlog::warn("exclude {}: no route outside the tunnel ({})", c, other.error().detail);
        continue;
      }
      sys::Route r = sys::pin_route(*other);
      r.dst = dst;
      changes_.add_route(r);
    }
  }
  for (const auto& r : plan.via_tun) {
    const bool half = r.source == RouteSource::kFullTunnel;
    if (!changes_.add_route(dev_route(r.cidr, dev, r.metric)) && half) {
      return "cannot install the full-tunnel routes";
    }
  }
  // A tunnel without IPv6: in a full tunnel IPv6 would leave outside it, so it is made
  // unreachable unless the user accepts the leak.
  if (plan.blackhole_ipv6) {
    for (const char* c : {"::/1", "8000::/1"}) {
      sys::Route r;
      r.dst = sys::IpPrefix::parse(c).value();
      r.type = sys::RouteType::kUnreachable;
      changes_.add_route(r);
    }
  }
  if (dns.path == DnsPath::kResolvedLink) {
    if (auto st = host_.resolved.apply(dev, dns.dns, full); st.ok()) {
      link_dns_.emplace(host_.resolved, dev);
    } else {
      // Never leave the tunnel without the DNS the user asked for.
      spdlog::warn("systemd-resolved: {}; taking over resolv.conf instead", st.error().detail);
      changes_.take_over_dns(host_.resolv, dns.dns, dev);
    }
  } else if (dns.path == DnsPath::kResolvConf) {
    changes_.take_over_dns(host_.resolv, dns.dns, dev);
  }
  spdlog::info("DNS: {}", dns.why);
  spdlog::info("connected to {} as {}: {}{} on {} (mtu {}, {} pushed routes{}{}{})",
               host_.endpoint_name, cfg.user, cidr, ipv6_ ? " and " + *ok.x_ip6 : std::string(),
               dev, mtu, pushed.size(), full ? ", full tunnel" : "",
               tc.gso ? ", GSO super-packets" : "", tc.aes_gcm ? ", AES-256-GCM records" : "");

  info_.server_address = tc.server.to_string();
  info_.dev = dev;
  info_.client_cidr = cidr;
  info_.client_cidr6 = ipv6_ ? *ok.x_ip6 : std::string();
  info_.server_tunnel_ip = ok.server_ip;
  info_.mtu = mtu;
  info_.full_tunnel = full;
  info_.extensions = tc.gso ? "gso" : "";
  if (tc.aes_gcm) info_.extensions += info_.extensions.empty() ? "aes-gcm" : ", aes-gcm";
  hook_env_ = {{"QELI_DEV", dev},
               {"QELI_SERVER", host_.endpoint_name},
               {"QELI_USER", cfg.user},
               {"QELI_TUNNEL_IP", ok.client_ip},
               {"QELI_PREFIX", std::to_string(ok.prefix)},
               {"QELI_TUNNEL_IP6", ipv6_ ? ok.x_ip6->substr(0, ok.x_ip6->find('/')) : ""},
               {"QELI_PREFIX6", ipv6_ ? ok.x_ip6->substr(ok.x_ip6->find('/') + 1) : ""},
               {"QELI_SERVER_TUNNEL_IP", ok.server_ip},
               {"QELI_MTU", std::to_string(mtu)},
               {"QELI_FULL_TUNNEL", cfg.gateway ? "1" : "0"}};
  return {};
}

}  // namespace

Result<std::unique_ptr<Tunnel>, std::string> open_linux_tunnel(LinuxHost& host,
                                                               const TunnelConfig& tc) {
  tunio::TunConfig c;
  c.name = host.cfg.dev;
  c.queues = 1;
  c.mtu = tc.mtu;
  c.read_mode = tc.read_mode;
  c.log = [](std::string_view line) { spdlog::info("{}", line); };
  auto tun = tunio::LinuxTun::open(c);
  if (!tun.ok()) return fail("cannot open TUN " + host.cfg.dev + ": " + tun.error().detail);
  auto t = std::make_unique<LinuxTunnel>(host, std::move(*tun));
  // On an error, `t` goes: what was set up so far is undone.
  if (auto why = t->set_up(tc); !why.empty()) return fail(std::move(why));
  return std::unique_ptr<Tunnel>(std::move(t));
}

}  // namespace qeli::client
