#include "server/profile_runtime.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>

#include "server/ipv6_plan.h"
#include "server/listen_addresses.h"
#include "server/profile_hooks.h"
#include "server/session_policy.h"
#include "server/tcp_listener.h"
#include "server/tun_router.h"
#include "sys/link_netlink.h"
#include "sys/nft_nat.h"
#include "sys/sysctl.h"
#include "transport/tcp.h"

namespace qeli::server {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ProfileRuntime::ProfileRuntime(config::ProfileConfig profile, const config::AuthConfig& auth,
                               crypto::X25519KeyPair identity, UserDirectory& users,
                               AuthGuard& guard)
    : profile_(std::move(profile)),
      auth_(auth),
      identity_(std::move(identity)),
      users_(users),
      guard_(guard),
      events_(profile_.name, guard, users) {}

ProfileRuntime::~ProfileRuntime() { stop(); }

int ProfileRuntime::preauth_limit() {
  return std::max(256, 8 * static_cast<int>(std::thread::hardware_concurrency()));
}

Status<std::string> ProfileRuntime::start() {
  const auto& p = profile_;
  const bool udp = p.transport == config::Transport::kUdp;
  // The mode table says what this build carries (a pair it does not know was refused
  // at load; one whose layers are not built yet is refused here).
  if (const auto why =
          wire::refusal(config::carrier_of(p.transport), config::to_string(p.obf.mode));
      !why.empty()) {
    return fail("profile " + p.name + ": obf.mode " + why);
  }
  // 0. The listeners' addresses are free — before the TUN and NAT exist: a second server
  // on this profile (a copy with another tun.name) must not replace the running one's NAT
  // table and take it away when it fails or stops, nor share a UDP port with it.
  auto addrs = listen_addresses(p);
  if (!addrs) return fail("profile " + p.name + ": " + addrs.error());
  for (const auto& a : *addrs) {
    if (auto st = transport::probe_bind(a, udp ? SOCK_DGRAM : SOCK_STREAM); !st.ok()) {
      return fail("profile " + p.name + ": cannot listen on " + st.error() +
                  " (another qeli server with this profile?)");
    }
  }
  // 1. TUN: multi-queue, offloads negotiated.
  tunio::TunConfig tc;
  tc.name = p.tun.name;
  tc.queues = p.tun.queues == 0 ? std::max(1U, std::thread::hardware_concurrency()) : p.tun.queues;
  tc.mtu = p.tun.mtu;
  // Super-packets stay whole on read, also with QELI_DISABLE_EXTENSIONS (a local matter,
  // not the wire): the send thread of a session without the GSO extension splits them
  // (RecordWriter), so a TUN read and an inbox slot carry up to 64 KiB.
  tc.read_mode = tunio::ReadMode::keep_whole;
  tc.log = [name = p.name](std::string_view line) { spdlog::info("[{}] {}", name, line); };
  auto tun = tunio::LinuxTun::open(tc);
  if (!tun.ok()) {
    return fail("profile " + p.name + ": cannot open TUN " + p.tun.name + ": " +
                std::string(tunio::to_string(tun.error().code)) + " " + tun.error().detail);
  }
  tun_ = std::make_unique<tunio::LinuxTun>(std::move(*tun));
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_write_mu_.push_back(std::make_unique<std::mutex>());
  }
  auto nl = sys::LinkNetlink::open();
  if (!nl.ok()) return fail("netlink: " + nl.error().detail);
  const std::optional<Ipv6Plan> plan6 = Ipv6Plan::of(p);
  if (plan6) {
    // IPv6 inside the tunnel, set before the link comes up: the plan's address only — no
    // link-local address, router solicitations or autoconfiguration into the TUN.
    const std::string conf = "net/ipv6/conf/" + tun_->name() + "/";
    for (const auto& [key, value] :
         {std::pair{"addr_gen_mode", "1"}, std::pair{"accept_ra", "0"},
          std::pair{"router_solicitations", "0"}, std::pair{"disable_ipv6", "0"}}) {
      if (auto st = sys::write_sysctl(conf + key, value);
          !st.ok() && std::string_view(key) == "disable_ipv6") {
        return fail("profile " + p.name + ": pool.ipv6.cidr needs IPv6 on " + tun_->name() + ": " +
                    st.error().detail);
      }
    }
  }
  const std::string cidr = p.tun.address.to_string() + "/" + std::to_string(p.pool.cidr.prefix);
  for (auto st : {nl->set_mtu(tun_->name(), p.tun.mtu),
                  nl->set_tx_queue_len(tun_->name(), p.tun.tx_queue_len),
                  nl->add_address(tun_->name(), cidr), nl->set_link_up(tun_->name())}) {
    if (!st.ok())
      return fail("profile " + p.name + ": TUN " + tun_->name() + ": " + st.error().detail);
  }

  if (plan6) {
    // The server's address of the plan (no DAD: the TUN is ours).
    const std::string cidr6 =
        plan6->server_address().to_string() + "/" + std::to_string(plan6->cidr().prefix);
    if (auto st = nl->add_address(tun_->name(), cidr6, /*skip_dad=*/true); !st.ok()) {
      return fail("profile " + p.name + ": TUN " + tun_->name() + ": " + st.error().detail);
    }
    // Past the server: masqueraded with the IPv4 NAT (nat66) or routed as it is (route).
    if (p.routing.nat_enabled || p.routing.ipv6_mode == config::Ipv6Routing::kRoute) {
      auto fw = sys::enable_forwarding(sys::IpFamily::kV6);
      if (!fw.ok()) return fail("profile " + p.name + ": IPv6 forwarding: " + fw.error().detail);
      if (*fw == "0") forwarding_enabled_.push_back(sys::IpFamily::kV6);
      if (*fw != "1") {
        // A host that learns its own IPv6 route by SLAAC would lose it when it expires.
        if (auto ifs = sys::ipv6_ra_lost_by_forwarding(tun_->name()); !ifs.empty()) {
          std::string names;
          for (const auto& i : ifs) names += (names.empty() ? "" : ", ") + i;
          spdlog::warn(
              "[{}] IPv6 forwarding is now on: {} (accept_ra = 1) ignore router "
              "advertisements from now on; set net.ipv6.conf.<if>.accept_ra = 2 where "
              "this host learns its IPv6 route by SLAAC",
              p.name, names);
        }
      }
    }
    // An on-link pool (a VPS's /64): the upstream router solicits each client's address.
    if (p.routing.ipv6_mode == config::Ipv6Routing::kRoute && p.routing.ipv6_ndp_proxy != "off") {
      auto ndp = NdpProxyRuntime::start(p, *plan6, tun_->name());
      if (!ndp.ok()) return fail("profile " + p.name + ": " + ndp.error());
      ndp_proxy_ = std::move(*ndp);
    }
  }

  // NAT to the internet: one nftables table of our own, replacing a stale one atomically;
  // a failure fails the profile (the operator asked for NAT). A routed IPv6 pool takes its
  // stateful guard from the same table, also without NAT.
  const bool guard6 =
      plan6 && p.routing.ipv6_mode == config::Ipv6Routing::kRoute && !p.routing.ipv6_inbound_open;
  // Clients are pushed port 53 (auth_ok_builder.cc): a proxy on another dns.port is
  // reached through the same table's DNS bridge, as 0.7.16's iptables REDIRECT did.
  const bool dns_bridge = p.dns.enabled && p.dns.port != 53;
  if (p.routing.nat_enabled || guard6 || dns_bridge) {
    auto nft = sys::NftContext::open();
    if (!nft.ok()) return fail("profile " + p.name + ": nftables: " + nft.error().detail);
    sys::NatSpec spec;
    spec.profile = p.name;
    spec.tun = tun_->name();
    spec.wan = p.routing.nat_interface;
    if (p.routing.nat_enabled) {
      spec.pools.push_back(sys::IpPrefix::parse(p.pool.cidr.to_string()).value());
      if (plan6 && p.routing.ipv6_mode == config::Ipv6Routing::kNat66) {
        spec.pools.push_back(sys::IpPrefix::parse(plan6->cidr().to_string()).value());
      }
    }
    if (guard6) spec.guarded.push_back(sys::IpPrefix::parse(plan6->cidr().to_string()).value());
    if (dns_bridge) {
      spec.dns_port = p.dns.port;
      spec.dns_bridge.push_back(sys::IpAddress::parse(p.dns_proxy_address().to_string()).value());
      if (p.dns.listen_ipv6) {
        spec.dns_bridge.push_back(sys::IpAddress::parse(p.dns.listen_ipv6->to_string()).value());
      }
    }
    if (auto st = sys::apply_nat(*nft, spec); !st.ok()) {
      return fail("profile " + p.name + ": NAT: " + st.error().detail);
    }
    nat_applied_ = true;
    if (p.routing.nat_enabled) {
      auto fw = sys::enable_forwarding(sys::IpFamily::kV4);
      if (!fw.ok()) return fail("profile " + p.name + ": ip_forward: " + fw.error().detail);
      if (*fw == "0") forwarding_enabled_.push_back(sys::IpFamily::kV4);
      std::string pools;
      for (const auto& pool : spec.pools)
        pools += (pools.empty() ? "" : " and ") + pool.to_string();
      spdlog::info("[{}] NAT: masquerading {} out of {}", p.name, pools,
                   spec.wan.empty() ? "any interface" : spec.wan);
    }
    if (dns_bridge) {
      spdlog::info("[{}] DNS: port 53 of {} taken to the proxy's dns.port {}", p.name,
                   p.dns_proxy_address().to_string(), p.dns.port);
    }
    if (guard6) {
      spdlog::info(
          "[{}] IPv6: {} routed; connections from outside to it are refused "
          "(routing.ipv6.inbound = stateful)",
          p.name, plan6->cidr().to_string());
    }
  }
  if (plan6 && p.routing.ipv6_mode == config::Ipv6Routing::kRoute && p.routing.ipv6_inbound_open) {
    spdlog::info(
        "[{}] IPv6: {} routed and open to connections from outside "
        "(routing.ipv6.inbound = open)",
        p.name, plan6->cidr().to_string());
  }

  // The DNS proxy listens on the tunnel address, so it comes after the TUN.
  if (p.dns.enabled) {
    auto dns = DnsService::start(dns_service_options(p));
    if (!dns.ok()) return fail("profile " + p.name + ": " + dns.error());
    dns_ = std::move(*dns);
  }

  // 2. Sessions and the address pool.
  std::vector<std::pair<std::uint32_t, std::uint8_t>> excluded;
  for (const auto& e : p.pool.exclude) excluded.emplace_back(e.network.value, e.prefix);
  IpPool pool(p.pool.cidr.network.value, p.pool.cidr.prefix, p.tun.address.value, excluded);
  // Inbox batches are sealed in place by the session's sender: they carry the room of
  // the profile's carrier.
  const tunnel::CarrierRoom room = carrier_room(p);
  tunnel::SessionParams params;
  params.apply(pushed_params(p.obf));  // the padding with the normalization's round sizes
  const tunnel::PaddingPolicy& pad = params.send.padding;
  engine::SessionInbox::Geometry g{128, wire::kMaxSuperPacket, room.headroom(), room.tailroom(pad)};
  sessions_ = std::make_unique<SessionTable>(std::move(pool), p.perf.max_clients, g);
  // Users' `client_subnet`s route into this TUN while their sessions hold them.
  auto subnet_routes = TunSubnetRoutes::open(p.name, tun_->name());
  if (!subnet_routes.ok()) return fail("profile " + p.name + ": " + subnet_routes.error());
  subnet_routes_ = std::move(*subnet_routes);
  sessions_->set_subnets(subnet_claims_, subnet_routes_.get());
  sessions_->set_address_observer(ndp_proxy_.get());
  admission_ = std::make_unique<Admission>(
      Admission::Setup{&profile_, auth_.require_client_key_proof, &guard_, &users_, sessions_.get(),
                       accounts_, &events_, &counters_});

  // 3. Listeners: bind.address:bind.port, then every `listen` endpoint.
  new_sessions_ = std::make_unique<NewSessionLimiter>(NewSessionLimits{
      p.perf.new_session_rate_max, p.perf.new_session_rate_window, kNewSessionMaxTracked});
  if (udp) return start_udp(*addrs);
  std::vector<transport::UniqueFd> listeners;
  for (const auto& a : *addrs) {
    auto l = transport::tcp_listen(a);
    if (!l.ok()) return fail("profile " + p.name + ": " + l.error());
    listeners.push_back(std::move(*l));
  }
  listener_ = std::make_unique<TcpListener>(p.name, std::move(listeners), counters_);
  bound_port_ = listener_->local_addresses().front().port();

  if (p.obf.reality.enabled) {
    if (auto st = start_reality(); !st.ok()) return fail("profile " + p.name + ": " + st.error());
  }

  started_ = true;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_threads_.emplace_back([this, q] { tun_reader(q); });
  }
  accept_thread_ = std::thread([this] {
    listener_->run(
        stop_,
        [this](transport::UniqueFd conn, const transport::SockAddr& peer) {
          on_accept(std::move(conn), peer);
        },
        [this] { reap_finished_connections(); });
  });
  spdlog::info("[{}] listening on tcp {} ({} mode), TUN {} {} mtu {} ({} queues)", p.name,
               describe_listeners(*addrs, bound_port_), config::to_string(p.link_mode()),
               tun_->name(), cidr, p.tun.mtu, tun_->queue_count());
  return {};
}

void ProfileRuntime::stop() {
  if (started_) {
    started_ = false;
    // Sessions first, with their reason (clients that can hear it are told), before the
    // UDP workers see the profile's stop and end their sessions without one.
    sessions_->stop_all();
    stop_.stop();
    if (accept_thread_.joinable()) accept_thread_.join();
    if (gate_) gate_->stop();  // no new handshake threads after this
    if (bridge_) bridge_->stop();
    if (tls_target_) tls_target_->stop();
    stop_udp();
    {
      std::lock_guard lock(conn_mu_);
      for (auto& c : conns_) {
        if (c.thread.joinable()) c.thread.join();
      }
      conns_.clear();
    }
    udp_workers_.clear();  // after the auth threads, which post to their worker
    for (auto& t : tun_threads_) t.join();
    tun_threads_.clear();
    spdlog::info("[{}] stopped", profile_.name);
  }
  if (post_up_ran_) {
    post_up_ran_ = false;
    (void)run_profile_hook("post_down", profile_.routing.post_down, profile_,
                           profile_hook_env(profile_, profile_.tun.name, bound_port_));
  }
  // Also after a start() that failed half-way: undo what it created.
  if (ndp_proxy_) ndp_proxy_->stop();  // every session has ended: no entry is added again
  listener_.reset();
  dns_.reset();
  tun_.reset();  // closing every queue fd removes a non-persistent TUN
  if (nat_applied_) {
    if (auto nft = sys::NftContext::open(); nft.ok()) (void)sys::remove_nat(*nft, profile_.name);
    nat_applied_ = false;
  }
  for (const sys::IpFamily f : std::exchange(forwarding_enabled_, {})) {
    // Only if it still holds our "1": an administrator's later change stays.
    if (auto now = sys::read_sysctl(sys::forwarding_key(f)); now.ok() && *now == "1") {
      (void)sys::write_sysctl(sys::forwarding_key(f), "0");
    }
  }
}

bool ProfileRuntime::run_post_up() {
  const auto& p = profile_;
  post_up_ran_ = true;  // post_down runs at stop() even after a failed post_up (cleanup)
  if (p.routing.post_up.empty()) return true;
  return run_profile_hook("post_up", p.routing.post_up, p,
                          profile_hook_env(p, tun_ ? tun_->name() : p.tun.name, bound_port_));
}

void ProfileRuntime::reap_finished_connections() {
  std::lock_guard lock(conn_mu_);
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = conns_.erase(it);
    } else {
      ++it;
    }
  }
}

bool ProfileRuntime::spawn(std::function<void()> f) {
  // Here as well as on the accept loop's rounds: a UDP profile has no accept loop, and
  // its AUTH threads would otherwise wait for stop() to be joined.
  reap_finished_connections();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(conn_mu_);
  try {
    conns_.push_back({std::thread([f = std::move(f), done] {
                        f();
                        done->store(true);
                      }),
                      done});
  } catch (const std::system_error& e) {
    // Out of threads or memory (RLIMIT_NPROC, a cgroup's pids.max): the caller sheds the
    // connection or request like one over capacity; the process lives on.
    // One line per 10 s at most: a flood would otherwise write one per connection.
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
            .count();
    auto last = spawn_warned_ms_.load();
    if ((last < 0 || now_ms - last >= 10000) &&
        spawn_warned_ms_.compare_exchange_strong(last, now_ms)) {
      spdlog::warn("[{}] cannot start a thread ({}): connections and logins are shed",
                   profile_.name, e.what());
    }
    return false;
  }
  return true;
}

// A new TCP connection (TcpListener's thread: decide at once).
void ProfileRuntime::on_accept(transport::UniqueFd conn, const transport::SockAddr& peer) {
  if (gate_) {  // REALITY: the gate reads the hello first (no thread per stranger)
    (void)gate_->add(std::move(conn), peer);
    return;
  }
  if (preauth_.load() >= preauth_limit()) {
    counters_.over_capacity++;
    return;  // closed at once: unauthenticated peers must cost little
  }
  // The per-source new-session limit (perf.connection.new_session_rate_*), as on UDP: a
  // stranger gets neither a thread nor a key agreement beyond it.
  if (!new_sessions_->admit(source_key(peer), Clock::now())) {
    counters_.new_session_rate_limited++;
    return;
  }
  auto c = std::make_shared<transport::UniqueFd>(std::move(conn));
  if (!spawn([this, c, peer] { handle_connection(std::move(*c), peer); })) {
    counters_.over_capacity++;
  }
}

// One TUN queue's downlink: read a batch, route it (server/tun_router.h), write back the
// ICMP errors it produced.
void ProfileRuntime::tun_reader(std::size_t queue) {
  tunio::PacketBatch batch(64, wire::kMaxSuperPacket);
  TunRouter router(profile_, *sessions_, counters_);
  while (!stop_.stopped()) {
    pollfd p[2] = {{tun_->fd(queue), POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
    if (::poll(p, 2, 1000) < 0 && errno != EINTR) break;
    if (p[1].revents != 0) break;
    if (p[0].revents == 0) continue;
    batch.clear();
    auto r = tun_->read_batch(queue, batch);
    if (!r.ok()) {
      if (r.error() == tunio::TunError::would_block) continue;
      spdlog::error("[{}] TUN read failed: {}", profile_.name, tunio::to_string(r.error()));
      break;
    }
    router.route(batch, Clock::now());
    if (!router.icmp().empty()) {
      // Best effort, like a router's ICMP: a full queue loses them (the origin retries).
      std::lock_guard lock(*tun_write_mu_[queue]);
      (void)tun_->write_batch(queue, router.icmp());
      router.icmp().clear();
    }
  }
}

}  // namespace qeli::server
