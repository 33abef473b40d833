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

#include "base/endian.h"
#include "config/short_id.h"
#include "engine/flight_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "server/accept_backoff.h"
#include "server/auth_context.h"
#include "server/auth_ok_builder.h"
#include "server/ipv6_plan.h"
#include "server/listen_addresses.h"
#include "server/profile_hooks.h"
#include "server/session_control.h"
#include "server/session_end.h"
#include "server/session_policy.h"
#include "server/tcp_carrier.h"
#include "sys/link_netlink.h"
#include "sys/log_fields.h"
#include "sys/nft_nat.h"
#include "sys/sysctl.h"
#include "transport/tcp.h"
#include "transport/tcp_stream.h"
#include "transport/tls_setup.h"
#include "tunio/mtu_clamp.h"
#include "tunio/offload_split.h"
#include "tunio/tun_device.h"
#include "wire/gso_chunk.h"
#include "wire/limits.h"

namespace qeli::server {
namespace {

// How long a session we ended keeps reading after its farewell (transport/tcp.h
// half_close_and_drain): a client with the close extension closes at once on reading it.
constexpr std::chrono::milliseconds kFarewellLinger{2000};
// ICMP errors a TUN reader writes (fragmentation needed, Packet Too Big): Linux's own
// default budget (net.ipv4.icmp_msgs_per_sec 1000, burst 50).
constexpr std::uint32_t kIcmpPerSecond = 1000;
constexpr std::uint32_t kIcmpBurst = 50;

using Clock = std::chrono::steady_clock;

// Pre-auth connections allowed at once per profile (0.7.16: max(256, 8 × cores)).
int preauth_limit() {
  return std::max(256, 8 * static_cast<int>(std::thread::hardware_concurrency()));
}

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
  }

  // NAT to the internet: one nftables table of our own, replacing a stale one atomically;
  // a failure fails the profile (the operator asked for NAT). A routed IPv6 pool takes its
  // stateful guard from the same table, also without NAT.
  const bool guard6 =
      plan6 && p.routing.ipv6_mode == config::Ipv6Routing::kRoute && !p.routing.ipv6_inbound_open;
  if (p.routing.nat_enabled || guard6) {
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
  admission_ = std::make_unique<Admission>(
      Admission::Setup{&profile_, auth_.require_client_key_proof, &guard_, &users_, sessions_.get(),
                       accounts_, &events_, &counters_});

  // 3. Listeners: bind.address:bind.port, then every `listen` endpoint.
  new_sessions_ = std::make_unique<NewSessionLimiter>(NewSessionLimits{
      p.perf.new_session_rate_max, p.perf.new_session_rate_window, kNewSessionMaxTracked});
  if (udp) return start_udp(*addrs);
  for (const auto& a : *addrs) {
    auto l = transport::tcp_listen(a);
    if (!l.ok()) return fail("profile " + p.name + ": " + l.error());
    listeners_.push_back(std::move(*l));
  }
  bound_port_ = transport::SockAddr::local_of(listeners_.front().get()).port();

  if (p.obf.reality.enabled) {
    if (auto st = start_reality(); !st.ok()) return fail("profile " + p.name + ": " + st.error());
  }

  started_ = true;
  for (std::size_t q = 0; q < tun_->queue_count(); ++q) {
    tun_threads_.emplace_back([this, q] { tun_reader(q); });
  }
  accept_thread_ = std::thread([this] { accept_loop(); });
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
  listeners_.clear();
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

void ProfileRuntime::spawn(std::function<void()> f) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(conn_mu_);
  conns_.push_back({std::thread([f = std::move(f), done] {
                      f();
                      done->store(true);
                    }),
                    done});
}

void ProfileRuntime::accept_loop() {
  AcceptBackoff backoff;
  Duration wait = Duration::zero();  // > 0: accept() ran out of resources, wait first
  std::vector<pollfd> p(1 + listeners_.size());
  p[0] = {stop_.fd(), POLLIN, 0};
  for (std::size_t i = 0; i < listeners_.size(); ++i) p[1 + i] = {listeners_[i].get(), POLLIN, 0};
  while (!stop_.stopped()) {
    // While backing off, only the stop signal is watched (the listeners stay readable).
    const int timeout = wait > Duration::zero() ? engine::ms_until(Clock::now() + wait) : 1000;
    const nfds_t n = wait > Duration::zero() ? 1 : static_cast<nfds_t>(p.size());
    for (auto& f : p) f.revents = 0;
    if (::poll(p.data(), n, timeout) < 0 && errno != EINTR) break;
    reap_finished_connections();
    if (p[0].revents != 0) break;
    const bool backed_off = wait > Duration::zero();
    wait = Duration::zero();
    for (std::size_t i = 0; i < listeners_.size() && wait == Duration::zero(); ++i) {
      if (backed_off || p[1 + i].revents != 0) wait = accept_ready(listeners_[i], backoff);
    }
  }
}

Duration ProfileRuntime::accept_ready(const transport::UniqueFd& listener, AcceptBackoff& backoff) {
  // At most a batch per listener per round: a connect flood on one listener must not
  // starve the others (the next poll returns at once while connections wait).
  constexpr int kAcceptBatch = 64;
  for (int n = 0; n < kAcceptBatch; ++n) {
    sockaddr_storage from{};
    socklen_t from_len = sizeof(from);
    const int fd =
        ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&from), &from_len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (!AcceptBackoff::is_resource_error(errno)) return Duration::zero();
      counters_.accept_no_resources++;
      auto d = backoff.on_failure(errno, Clock::now());
      if (d.log) spdlog::warn("[{}] {}", profile_.name, *d.log);
      return d.wait;
    }
    backoff.on_success();
    transport::UniqueFd conn(fd);
    const auto peer =
        transport::SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&from), from_len);
    counters_.accepted++;
    if (gate_) {  // REALITY: the gate reads the hello first (no thread per stranger)
      (void)gate_->add(std::move(conn));
      continue;
    }
    if (preauth_.load() >= preauth_limit()) {
      counters_.over_capacity++;
      continue;  // closed at once: unauthenticated peers must cost little
    }
    // The per-source new-session limit (perf.connection.new_session_rate_*), as on UDP: a
    // stranger gets neither a thread nor a key agreement beyond it.
    if (!new_sessions_->admit(source_key(peer), Clock::now())) {
      counters_.new_session_rate_limited++;
      continue;
    }
    auto c = std::make_shared<transport::UniqueFd>(std::move(conn));
    spawn([this, c] { handle_connection(std::move(*c)); });
  }
  return Duration::zero();
}

Status<std::string> ProfileRuntime::start_reality() {
  const auto& rp = profile_.obf.reality;
  if (auto st = refuse_self_target(); !st.ok()) return st;
  replay_ = std::make_unique<RealityReplayCache>();
  if (!replay_path_.empty()) {
    if (auto st = replay_->attach(replay_path_, unix_now()); !st.ok()) {
      spdlog::warn("[{}] REALITY replay cache kept in memory only: {}", profile_.name, st.error());
    } else {
      spdlog::info("[{}] REALITY replay cache {} ({} live tokens)", profile_.name, replay_path_,
                   replay_->size());
    }
  }
  transport::BridgeLimits bl;
  bl.max_bridges = rp.max_bridges != 0
                       ? rp.max_bridges
                       : std::max<std::size_t>(128, 4 * std::thread::hardware_concurrency());
  bl.connect_timeout = rp.bridge_connect_timeout;
  bl.idle = rp.bridge_idle_timeout;
  bl.lifetime = rp.bridge_lifetime;
  bridge_ = std::make_unique<transport::Bridge>(
      transport::HostPort{rp.target, rp.target_port}, bl, [this](transport::BridgeEnd e) {
        switch (e) {
          case transport::BridgeEnd::kEof: carrier_.add(CarrierCounter::kBridgeClosedEof); break;
          case transport::BridgeEnd::kIdle: carrier_.add(CarrierCounter::kBridgeClosedIdle); break;
          case transport::BridgeEnd::kLifetime:
            carrier_.add(CarrierCounter::kBridgeClosedLifetime);
            break;
          case transport::BridgeEnd::kConnectFailed:
            carrier_.add(CarrierCounter::kBridgeConnectFailed);
            warn_bridge_target_unreachable();
            break;
          case transport::BridgeEnd::kError:
          case transport::BridgeEnd::kStopped:
            carrier_.add(CarrierCounter::kBridgeClosedError);
            break;
        }
      });
  if (auto st = bridge_->start(); !st.ok()) return st;

  if (rp.real_tls) {
    // reality-tls: measure how the target answers before the first client arrives.
    TlsTarget::Options to;
    to.profile = profile_.name;
    to.host = rp.target;
    to.port = rp.target_port;
    to.sni = profile_.obf.tls_server_name;
    to.probe = rp.handrolled;
    tls_target_ = std::make_unique<TlsTarget>(std::move(to));
    tls_target_->start();
  }

  RealityPolicy policy;
  policy.identity = &identity_;
  for (const auto& s : rp.short_ids) {
    if (auto id = config::parse_short_id(s)) policy.shared_ids.push_back(*id);
  }
  policy.users = &users_;
  policy.replay = replay_.get();
  RealityGate::Options go;
  go.budget = std::max<Duration>(rp.peek_timeout, std::chrono::milliseconds(300));
  go.max_pending = static_cast<std::size_t>(preauth_limit());
  gate_ = std::make_unique<RealityGate>(
      go, std::move(policy), carrier_,
      [this](transport::UniqueFd fd, Bytes hello, std::optional<std::string> owner) {
        if (preauth_.load() >= preauth_limit()) {
          counters_.over_capacity++;
          return;  // closed: unauthenticated peers must cost little
        }
        // The per-source new-session limit, as on the non-REALITY path: only a valid
        // token reaches it (strangers were bridged), so it bounds key agreements and
        // Argon2id, never what a prober of the port sees.
        if (!new_sessions_->admit(source_key(transport::SockAddr::peer_of(fd.get())),
                                  Clock::now())) {
          counters_.new_session_rate_limited++;
          return;
        }
        auto c = std::make_shared<transport::UniqueFd>(std::move(fd));
        auto h = std::make_shared<Bytes>(std::move(hello));
        spawn([this, c, h, owner] { handle_connection(std::move(*c), std::move(*h), owner); });
      },
      [this](transport::UniqueFd fd, Bytes seen, CarrierCounter) {
        if (bridge_->add(std::move(fd), std::move(seen))) {
          carrier_.add(CarrierCounter::kBridgeStarted);
        } else {
          carrier_.add(CarrierCounter::kBridgeRefusedFull);
        }
      });
  if (auto st = gate_->start(); !st.ok()) return st;
  spdlog::info("[{}] REALITY: strangers bridged to {}:{} (at most {} at once)", profile_.name,
               rp.target, rp.target_port, bl.max_bridges);
  if (!bridge_->target_endpoint()) {
    // Not fatal: at boot DNS may come up after us; the bridge retries every 10 s.
    spdlog::warn(
        "[{}] REALITY target {} does not resolve (yet): strangers are dropped, not "
        "bridged, until it does (retried every 10 s; counter bridge_connect_failed). "
        "Check obf.tls.reality_proxy.target",
        profile_.name, rp.target);
  }
  return {};
}

Status<std::string> ProfileRuntime::refuse_self_target() const {
  // A target that is this very listener would bridge every stranger (and the reality-tls
  // probe) back into ourselves until the pool and the file descriptors run out.
  const auto& rp = profile_.obf.reality;
  auto addrs = transport::resolve(transport::HostPort{rp.target, rp.target_port});
  if (!addrs) return {};  // not resolvable yet: start_reality warns about it
  for (const auto& l : listeners_) {
    const auto local = transport::SockAddr::local_of(l.get());
    for (const auto& a : *addrs) {
      if (a.family() != local.family() || a.port() != local.port()) continue;
      if ((local.is_unspecified() || local == a) && transport::is_local_address(a)) {
        return fail("obf.tls.reality_proxy.target " + rp.target + ":" +
                    std::to_string(rp.target_port) + " (" + a.to_string() +
                    ") is this profile's own listener: strangers would be bridged back into "
                    "it in a loop. Point it at the site the port should look like");
      }
    }
  }
  return {};
}

void ProfileRuntime::warn_bridge_target_unreachable() {
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
          .count();
  std::int64_t last = bridge_warned_ms_.load();
  if (last >= 0 && now_ms - last < 60'000) return;
  if (!bridge_warned_ms_.compare_exchange_strong(last, now_ms)) return;  // another thread did
  const auto& rp = profile_.obf.reality;
  spdlog::warn(
      "[{}] REALITY: a stranger could not be bridged: {}:{} is unreachable{} ({} "
      "connect failures so far; at most one such line a minute)",
      profile_.name, rp.target, rp.target_port,
      bridge_->target_endpoint() ? "" : " (its name does not resolve)",
      carrier_.get(CarrierCounter::kBridgeConnectFailed));
}

void ProfileRuntime::handle_connection(transport::UniqueFd fd, Bytes prefix,
                                       std::optional<std::string> short_id_owner) {
  preauth_++;
  bool preauth = true;
  auto leave_preauth = [&] {
    if (preauth) preauth_--;
    preauth = false;
  };
  const auto& p = profile_;
  AuthContext ctx;
  ctx.peer = transport::SockAddr::peer_of(fd.get());
  transport::StreamOptions so;
  so.nodelay = p.perf.tcp_nodelay;
  so.keepalive_secs = static_cast<int>(p.perf.tcp_keepalive.count());
  so.send_buffer = static_cast<int>(p.perf.tcp_send_buffer_size);
  so.recv_buffer = static_cast<int>(p.perf.tcp_recv_buffer_size);
  transport::apply_stream_options(fd.get(), so);
  if (guard_.locked_out(source_key(ctx.peer), Clock::now())) {
    const auto total = ++counters_.locked_out;
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
            .count();
    auto last = last_lockout_log_ms_.load(std::memory_order_relaxed);
    if (now_ms - last >= 10'000 &&
        last_lockout_log_ms_.compare_exchange_strong(last, now_ms, std::memory_order_relaxed)) {
      spdlog::warn(
          "[{}] {} closed: source address locked out ({} lockout closes so far; "
          "logged at most every 10 s)",
          p.name, ctx.peer.to_string(), total);
    }
    leave_preauth();
    return;
  }

  crypto::Rng& rng = crypto::system_rng();
  std::unique_ptr<transport::Stream> stream = std::make_unique<transport::TcpStream>(std::move(fd));
  // The carrier's own set-up (obfs: WebSocket upgrade, junk, nonces) on the raw socket;
  // then the handshake runs over the layers it built.
  if (auto setup = make_obfs_setup(p, rng, unix_now())) {
    setup->start(Clock::now());
    if (engine::drive_stream_setup(*setup, *stream, stop_, prefix) !=
        transport::SetupState::kDone) {
      carrier_.add(counter_of(setup->failure_kind()));
      spdlog::debug("[{}] {} obfs set-up failed: {}", p.name, ctx.peer.to_string(),
                    setup->failure());
      leave_preauth();
      return;
    }
    prefix.clear();
    stream = setup->into_stream(std::move(stream));
  }
  std::optional<handshake::TlsExporter> tls_exporter;
  if (tls_target_) {
    // reality-tls: our TLS 1.3 terminator answers the hello the gate peeked at the way
    // the target answers Chromium; the fake-TLS flight then runs inside its records.
    tls::TerminatorConfig tc;
    tc.shape = tls_target_->current();
    tc.timeout = p.perf.handshake_timeout;
    transport::TlsServerSetup setup(std::move(tc), rng);
    setup.start(Clock::now());
    if (engine::drive_stream_setup(setup, *stream, stop_, prefix) != transport::SetupState::kDone) {
      carrier_.add(CarrierCounter::kRealityTlsFailed);
      spdlog::debug("[{}] {} TLS handshake failed: {}", p.name, ctx.peer.to_string(),
                    setup.failure());
      leave_preauth();
      return;
    }
    prefix.clear();
    handshake::TlsExporter e{};
    if (setup.export_keying_material(handshake::kTlsBindingExporterLabel, {}, e)) {
      tls_exporter = e;
    }
    stream = setup.into_stream(std::move(stream));
  }

  handshake::ServerConfig hc;
  hc.mode = config::mode_spec(p.transport, p.obf.mode)->flight;
  hc.identity = &identity_;
  hc.bind_static = auth_.bind_static_to_session;
  hc.require_client_key_proof = auth_.require_client_key_proof;
  hc.fragmentation.enabled = p.obf.fragmentation.enabled;
  hc.fragmentation.min_chunk = p.obf.fragmentation.min_chunk_size;
  hc.fragmentation.max_chunk = p.obf.fragmentation.max_chunk_size;
  hc.fragmentation.max_fragments = p.obf.fragmentation.max_fragments_per_packet;
  if (p.obf.anti_fingerprinting && p.obf.add_jitter_to_handshake) {
    hc.max_jitter = std::chrono::milliseconds(11);
  }
  hc.timeout = p.perf.handshake_timeout;
  hc.extensions = handshake::our_extensions(handshake::Carrier::kStream);
  if (!p.pool.ipv6) hc.extensions &= ~handshake::caps::kIpv6Inside;
  if (!p.roaming || p.roaming_max_orphaned == 0) hc.extensions &= ~handshake::caps::kResume;
  if (tls_exporter && hc.extensions != 0) {
    // Offer the TLS binding; a client that proves the same exporter drops the inner AEAD.
    hc.extensions |= handshake::caps::kTlsBinding;
    hc.tls_exporter = tls_exporter;
  }
  handshake::ServerHandshake hs(hc, rng);
  hs.start(Clock::now());
  JoinedStream joined;  // set when the client JOINs a live session (stream bonding)
  bool join_refused = false;

  const auto failure = engine::drive_server_handshake(
      hs, *stream, stop_,
      [&](handshake::ServerEvent& ev, handshake::ServerHandshake& h) {
        if (auto* auth = std::get_if<handshake::AuthRequest>(&ev)) {
          ctx.req = std::move(*auth);
          // A per-user REALITY short id admits its own user only (a leaked link of one
          // user cannot be used with another's credentials).
          if (short_id_owner && *short_id_owner != ctx.req.user) {
            events_.failure(source_key(ctx.peer), ctx.req.user, Clock::now());
            ctx.reason = "REALITY short id of user '" + *short_id_owner + "' used by another";
            h.reject();
            return;
          }
          if (!admission_->admit(ctx)) {
            h.reject();
            return;
          }
          // Before the token can find the session: what every stream of it checks.
          ctx.session->inbound_filter = inbound_filter(ctx.session.get(), p, ctx);
          ctx.session->join_secret = ctx.req.join_secret;
          handshake::JoinToken token{};
          rng.fill(token);
          // Bonded streams and resumes find the session by its token (PROTOCOL §19, §22).
          if (ctx.session->bond.max_streams() > 1 ||
              (hc.extensions & handshake::caps::kResume) != 0) {
            sessions_->publish_join(ctx.session, token);
          }
          h.accept(build_auth_ok(p, ctx.user, ctx.session->tunnel_ip, token,
                                 destination_acl(ctx).allows_some_ipv6()));
        } else if (claim_join_slot(std::get<handshake::JoinRequest>(ev), ctx, joined)) {
          h.accept_join();
        } else {
          join_refused = true;
          h.reject();
        }
      },
      prefix);
  if (failure != handshake::Failure::kNone) {
    if (ctx.session) sessions_->remove(ctx.session);
    if (joined.session) joined.session->bond.detach(joined.slot);
    if (failure == handshake::Failure::kRejected) {
      (join_refused ? counters_.joins_refused : counters_.auth_failed)++;
      spdlog::warn("[{}] {} rejected: {} (user '{}')", p.name, ctx.peer.to_string(), ctx.reason,
                   ctx.req.user.substr(0, 64));
    } else if (const std::string layer = stream->failure(); !layer.empty()) {
      // A carrier layer broke under the flight (a malformed WebSocket frame, …).
      carrier_.add(CarrierCounter::kObfsStreamError);
      spdlog::debug("[{}] {} handshake failed: {}", p.name, ctx.peer.to_string(), layer);
    } else {
      counters_.handshake_failed++;
      spdlog::debug("[{}] {} handshake failed: {}", p.name, ctx.peer.to_string(),
                    handshake::to_string(failure));
    }
    leave_preauth();
    return;
  }
  leave_preauth();
  if (joined.session) {
    joined.peer = ctx.peer;
    serve_joined_stream(std::move(stream), hs.take_session(), joined);
    return;
  }
  counters_.sessions_started++;
  auto session = ctx.session;
  // journalctl QELI_USER=alice: every line of this session's thread (sys/log_fields.h).
  const sys::LogFields fields{{"QELI_PROFILE", p.name},
                              {"QELI_USER", session->user},
                              {"QELI_TUNNEL_IP", transport::ipv4_to_string(session->tunnel_ip)},
                              {"QELI_PEER", ctx.peer.to_string()}};
  spdlog::info("[{}] {} connected as '{}' → {}", p.name, ctx.peer.to_string(), session->user,
               transport::ipv4_to_string(session->tunnel_ip));
  events_.connected(*session);

  auto hs_session = hs.take_session();
  Session* sp = session.get();
  tunnel::SessionParams sc = stream_params(p, *sp, sp->peer_state, hc.extensions);
  if ((hc.extensions & handshake::caps::kTlsBinding) != 0) {
    sc.receive.tls_binding_proof =
        handshake::tls_binding_proof(*tls_exporter, handshake::BindingSide::kClient);
  }
  engine::StreamFramer framer(*stream, hs_session.recv.framing(), hs_session.leftover);
  tunnel::Session ts(std::move(sc), std::move(hs_session.send), std::move(hs_session.recv),
                     framer.room(), rng, session->counters, &sp->peer_state, Clock::now());
  const std::size_t q = session->id % tun_->queue_count();
  tunio::TunQueue dev(*tun_, q);
  const SteadyClock clock;
  sp->bond.set_socket(0, stream->fd());  // a resume that supersedes it shuts it down
  auto end = engine::run_session(ts, framer, session->inbox,
                                 engine::TunWriter{&dev, tun_write_mu_[q].get()}, session->stop,
                                 clock, 64, sp->account.get());
  // Our client may resume the session on a new connection (PROTOCOL §22).
  const bool hold = may_resume(*sp, end);
  const std::size_t left = sp->bond.detach(0, hold);
  const bool carried = left > 0 && (hold || !sp->stop.stopped());
  if (carried) {
    // Bonded: the session lives while any of its streams does (0.7.16 §3.8).
    spdlog::info("[{}] '{}' ({}): its first stream ended ({}); {} bonded stream(s) carry it",
                 p.name, sp->user, transport::ipv4_to_string(sp->tunnel_ip), tunnel::to_string(end),
                 left);
  }
  if (hold) {
    ::shutdown(stream->fd(), SHUT_RDWR);
    end = hold_for_resume(*sp, end);
  } else if (carried) {
    // Closed now, not with the session: the client must see this stream go (its flows
    // on it would otherwise vanish into a socket nobody reads until its liveness ends).
    ::shutdown(stream->fd(), SHUT_RDWR);
    sp->bond.wait_until_empty(sp->stop);
    // Why it ends is what ended the last stream or the stop (a kick, the quota…), not
    // how the first one went minutes ago.
    end = sp->stop.stopped() ? tunnel::SessionEnd::kStopped : tunnel::SessionEnd::kClosedByPeer;
  }
  sessions_->remove(session);
  // We ended it and may have said why (a kick, the quota, a stop): let that farewell
  // arrive instead of resetting it away with the client's unread upload.
  if (end == tunnel::SessionEnd::kStopped || end == tunnel::SessionEnd::kQuotaExhausted ||
      end == tunnel::SessionEnd::kIdle || end == tunnel::SessionEnd::kCounterExhausted) {
    transport::half_close_and_drain(stream->fd(), kFarewellLinger);
  }
  std::string why = describe_end(*session, end);
  if (const std::string layer = stream->failure();
      !layer.empty() && end == tunnel::SessionEnd::kSocketError) {
    carrier_.add(CarrierCounter::kObfsStreamError);
    why += " (" + layer + ")";
  }
  spdlog::info("[{}] '{}' ({}) disconnected: {} (rx {} pkts, tx {} pkts, drops: {})", p.name,
               session->user, transport::ipv4_to_string(session->tunnel_ip), why,
               session->counters.get(tunnel::SessionCounter::kRxPackets),
               session->counters.get(tunnel::SessionCounter::kTxPackets),
               tunnel::describe_drops(session->counters));
  events_.ended(*session, why);
}

void ProfileRuntime::tun_reader(std::size_t queue) {
  tunio::PacketBatch batch(64, wire::kMaxSuperPacket);
  // ICMP "fragmentation needed" and ICMPv6 Packet Too Big answers to downlink packets
  // above a client's MTU.
  tunio::PacketBatch icmp(64, tunio::kIcmpv6PacketTooBigMaxSize);
  const std::optional<Ipv6Plan> plan6 = Ipv6Plan::of(profile_);
  // RFC 4443 §2.4 f / RFC 1812 §4.3.2.8: ICMP errors are rate-limited (per reader).
  TokenBucket icmp_rate = TokenBucket::per_second(kIcmpBurst, kIcmpPerSecond);
  // Scratch for the IPv4 fragments of a non-DF packet above a client's MTU (< tun.mtu):
  // at least 512 payload bytes each (MTU floor 576 − a 60-byte header), so this many.
  tunio::PacketBatch frags(profile_.tun.mtu / 512 + 2, profile_.tun.mtu);
  std::vector<engine::SessionInbox*> woken;
  woken.reserve(64);
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
    woken.clear();
    const Instant now = Clock::now();
    sessions_->with_routes([&](const auto& routes) {
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto pkt = batch.packet(i);
        // The session key: the IPv4 destination, or the IPv4 address whose host offset an
        // IPv6 destination of the profile's plan carries (server/ipv6_plan.h).
        std::uint32_t key = 0;
        const bool v6 = pkt.size() >= 40 && (pkt[0] >> 4) == 6;
        if (pkt.size() >= 20 && (pkt[0] >> 4) == 4) {
          key = load_be32(pkt.data() + 16);
        } else if (v6 && plan6) {
          const auto k = plan6->ipv4_of(pkt.data() + 24);
          if (!k) {
            counters_.tun_no_route++;
            continue;
          }
          key = *k;
        } else {
          continue;  // IPv6 without pool.ipv6.cidr, or garbage: 0.7.16 carries IPv4 only
        }
        auto it = routes.find(key);
        if (it == routes.end()) {
          counters_.tun_no_route++;
          continue;
        }
        // Whole, also for a session without the GSO extension: its send thread splits
        // (RecordWriter), so the inbox holds super-packets, not their 1400-byte pieces.
        Session* s = it->second.get();
        if (v6 && !s->peer_state.ipv6.load(std::memory_order_relaxed)) {
          s->counters.add(tunnel::SessionCounter::kDropIpv6);  // a 0.7.16 client
          continue;
        }
        // The client's MTU is below ours (0.7.16 §3.5): only then is the packet judged.
        if (const auto lim = s->downlink_mtu.load(std::memory_order_relaxed); lim != 0) {
          if (!fits_peer_mtu(*s, pkt, batch.meta(i), lim, icmp, frags, &icmp_rate, now)) continue;
        }
        // Bonded: the stream this flow is pinned to (engine/stream_bond.h).
        engine::SessionInbox& in = s->bond.pick(pkt);
        in.push(pkt, batch.meta(i));
        if (std::find(woken.begin(), woken.end(), &in) == woken.end()) woken.push_back(&in);
      }
      for (engine::SessionInbox* in : woken) in->notify();
    });
    if (!icmp.empty()) {
      // Best effort, like a router's ICMP: a full queue loses them (the origin retries).
      std::lock_guard lock(*tun_write_mu_[queue]);
      (void)tun_->write_batch(queue, icmp);
      icmp.clear();
    }
  }
}

}  // namespace qeli::server
