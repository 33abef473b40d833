#include "client/client.h"

#include <poll.h>
#include <signal.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string_view>
#include <thread>

#include "client/bounded_resolve.h"
#include "client/client_hooks.h"
#include "client/connect_plan.h"
#include "client/device_id.h"
#include "client/dns_choice.h"
#include "client/failure_hint.h"
#include "client/farewell.h"
#include "client/host_cleanup.h"
#include "client/known_hosts.h"
#include "client/route_plan.h"
#include "client/state_paths.h"
#include "config/short_id.h"
#include "crypto/ct.h"
#include "engine/datagram_framer.h"
#include "engine/flight_driver.h"
#include "engine/mtu_probe_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "handshake/client_handshake.h"
#include "handshake/udp_client_handshake.h"
#include "sys/host_journal.h"
#include "sys/host_undo.h"
#include "sys/link_netlink.h"
#include "sys/nft_kill_switch.h"
#include "sys/resolv_conf.h"
#include "sys/resolved_bus.h"
#include "sys/route_table.h"
#include "sys/sysctl.h"
#include "transport/endpoint.h"
#include "transport/obfs_setup.h"
#include "transport/reality_tls_hello.h"
#include "transport/tcp.h"
#include "transport/tcp_stream.h"
#include "transport/tls_setup.h"
#include "transport/tls_stream.h"
#include "transport/udp_socket.h"
#include "tunio/linux_tun.h"
#include "tunio/tun_device.h"
#include "tunnel/pushed_params.h"
#include "tunnel/session.h"
#include "wire/control_frame.h"
#include "wire/limits.h"
#include "wire/modes.h"
#include "wire/session_close.h"
#include "wire/tcp_junk.h"
#include "wire/udp_obfs.h"

#include "base/build_info.h"
#include "client/client_status.h"
#include "client/status_service.h"
#include "sys/log_fields.h"
#include "sys/log_output.h"
#include "sys/service_notify.h"

namespace qeli::client {
namespace {

// Wall-clock seconds since the Unix epoch (the REALITY token's timestamp).
std::uint64_t unix_seconds() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

using Clock = std::chrono::steady_clock;

constexpr char kPlatform[] = "linux";
/// Consecutive credential rejections after which the client stops instead of retrying
/// (below the server's default brute_force.max_attempts of 5, so it never locks its own
/// address out).
constexpr int kMaxRejections = 3;

struct Fatal {
  std::string message;
};

// The data-plane knobs a client has before the server pushes its own (config `[qeli]`
// fallbacks): what tunnel::parse_pushed_params starts from.
tunnel::PushedParams fallback_params(const config::ClientFallbacks& fb) {
  tunnel::PushedParams p;
  p.padding.enabled = fb.padding;
  p.padding.min_bytes = fb.padding_min;
  p.padding.max_bytes = fb.padding_max;
  p.heartbeat.enabled = fb.heartbeat;
  p.heartbeat.interval = fb.heartbeat_interval;
  p.heartbeat.data_size_bytes = fb.heartbeat_size;
  p.heartbeat.jitter = fb.heartbeat_jitter;
  p.shaping = {fb.shaping,          fb.shaping_gap_mean, fb.shaping_gap_min,
               fb.shaping_gap_max,  fb.shaping_budget,   fb.shaping_min_size,
               fb.shaping_max_size, fb.shaping_stealth,  fb.shaping_stealth_mbps};
  return p;
}

// What one session changed on the host (routes, DNS), each change journaled before it is
// made (sys::HostChanges) so that a crash is undone on the next start or by --cleanup;
// reverted in reverse order when the session ends.
class SessionChanges {
 public:
  explicit SessionChanges(sys::HostChanges& host) : host_(host) {}
  ~SessionChanges() { clear(); }
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

class Client {
 public:
  explicit Client(const ClientOptions& o)
      : opt_(o),
        cfg_(o.config),
        status_(o.config.server.to_string(), o.config.user,
                std::string(config::to_string(o.config.proto)),
                std::string(config::to_string(o.config.mode))),
        status_service_(status_, notifier_) {}

  int run();
  std::vector<transport::Ipv4Endpoint> resolve_server();

 private:
  // One connection: connect, handshake, tunnel. Returns how long the session ran (zero
  // if it never got that far). Throws Fatal for non-retryable errors.
  Duration connect_once();
  Duration connect_once_tcp();
  /// The reality-tls TLS 1.3 handshake over `tcp`; its TlsStream over it (which then
  /// owns `tcp`), or null when it failed (logged).
  /// With our extensions on, it also offers the TLS binding (caps::kTlsBinding) in `hc`.
  std::unique_ptr<transport::Stream> start_reality_tls(handshake::ClientConfig& hc,
                                                       std::unique_ptr<transport::Stream>& tcp);
  Duration connect_once_udp();
  handshake::ClientConfig handshake_config(std::uint32_t extensions) const;
  // After the handshake, on both carriers: throws Fatal for a key mismatch or a missing
  // pin, logs and returns false for any other failure (noting a credential rejection:
  // a close after AUTH, or on UDP no answer to a sent AUTH).
  bool handshake_succeeded(handshake::Failure failure, bool udp_auth_sent = false);
  // A control frame from the server during the data phase: notes a session-close reason.
  void on_server_control(const wire::ControlFrame& f);
  void remember_server_key(const handshake::ClientSession& session);
  // Brings the TUN, routes and DNS up for `ok`, runs `data` (the carrier's data phase)
  // until the session ends, and undoes them. Returns how long the data phase ran.
  using DataPhase = std::function<tunnel::SessionEnd(tunio::TunDevice&, std::size_t mtu,
                                                     tunnel::SessionCounters&)>;
  // What both carriers' sessions share: the pushed (or fallback) padding and heartbeat,
  // the MTU, the MTU report and client info sent first, our close extension.
  tunnel::SessionParams session_params(const handshake::AuthOk& ok, std::size_t mtu,
                                       bool close_notify);
  // Whether `negotiated_caps` has caps::kAesGcm (noted for the status and the log).
  bool aes_negotiated(std::uint32_t negotiated_caps);
  Duration run_tunnel(const handshake::AuthOk& ok, std::size_t mtu, tunio::ReadMode read_mode,
                      bool gso, const DataPhase& data);
  // The tunnel MTU without probing: `mtu` from the config or link, else the pushed one,
  // else 1400 (0.7.16 §8).
  std::size_t configured_mtu(const handshake::AuthOk& ok) const {
    return cfg_.mtu > 0 ? cfg_.mtu : ok.mtu.value_or(1400);
  }

  const ClientOptions& opt_;
  const config::ClientConfig& cfg_;
  std::string password_;  ///< from pass, password_file or password_command (run())
  engine::StopSignal stop_;
  // `qeli status` and systemd (client/status_service.h).
  sys::ServiceNotifier notifier_;
  ClientStatus status_;
  StatusService status_service_;
  // What the current connect_once() learned (reset at its start).
  struct Attempt {
    bool rejected = false;                    ///< the server refused the credentials
    bool authenticated = false;               ///< AUTH OK arrived
    std::optional<wire::CloseReason> closed;  ///< the server's session-close frame
    bool aes_gcm = false;                     ///< data records go AES-256-GCM
  };
  Attempt attempt_;
  std::vector<transport::Ipv4Endpoint> servers_;
  transport::Ipv4Endpoint server_;  ///< the address of servers_ the session uses
  std::string endpoint_name_;
  std::optional<handshake::X25519Public> pinned_;
  bool pin_from_store_ = false;
  std::unique_ptr<KnownHosts> known_hosts_;
  DeviceId device_id_{};
  // Host integration: every change is journaled (sys::HostChanges).
  std::unique_ptr<sys::HostJournal> journal_;
  std::unique_ptr<sys::RouteTable> routes_;
  std::unique_ptr<sys::NftContext> nft_;
  std::unique_ptr<sys::HostChanges> host_;
  std::unique_ptr<sys::ResolvConf> resolv_;
  sys::ResolvedBusLinkDns resolved_;

  void open_host_state();
  void engage_kill_switch();
  // Before a reconnect: the server's name is resolved again (it may have moved), and the
  // kill switch follows the new addresses. A resolver that cannot answer now keeps the
  // addresses we have.
  void refresh_server_addresses();
};

void Client::refresh_server_addresses() {
  if (std::uint32_t literal = 0; transport::parse_ipv4(cfg_.server.host, literal)) return;
  std::string why;
  auto resolved =
      resolve_within({cfg_.server.host, cfg_.server.port}, std::chrono::milliseconds(2000), &why);
  if (!resolved) {
    spdlog::info("cannot resolve {} again ({}); keeping its previous addresses",
                 cfg_.server.to_string(), why);
    return;
  }
  auto sorted = [](std::vector<transport::Ipv4Endpoint> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.port < b.port;
    });
    return v;
  };
  if (sorted(*resolved) == sorted(servers_)) return;
  std::string list;
  for (const auto& ep : *resolved) list += (list.empty() ? "" : ", ") + ep.to_string();
  spdlog::info("{} now resolves to {}", cfg_.server.host, list);
  servers_ = std::move(*resolved);
  if (cfg_.kill_switch && nft_) {
    std::vector<sys::IpAddress> ips;
    for (const auto& ep : servers_) {
      ips.push_back(sys::IpAddress::parse(transport::ipv4_to_string(ep.addr)).value());
    }
    if (auto st = sys::refresh_servers(*nft_, cfg_.dev, ips); !st.ok()) {
      spdlog::warn("kill switch: cannot allow the new server addresses: {}", st.error().detail);
    }
  }
}

void Client::open_host_state() {
  const StatePaths state = current_state_paths("", cfg_.dev);
  auto j = sys::HostJournal::open(opt_.journal_path.empty() ? state.journal : opt_.journal_path);
  if (!j.ok() && j.error().code == sys::HostErrc::kExists) {
    // Two clients with one `dev` in one network namespace would fight over the TUN,
    // the routes and DNS: the journal lock keeps the second one out.
    throw Fatal{"another qeli client is already running with dev = " + cfg_.dev +
                " in this network namespace (" + j.error().detail +
                "): stop it first, or give this client another `dev` (its state is kept per "
                "dev and namespace)"};
  }
  if (!j.ok()) throw Fatal{"host journal: " + j.error().detail};
  journal_ = std::make_unique<sys::HostJournal>(std::move(*j));
  // So that `qeli client --cleanup` finds this journal after a crash, wherever it is.
  register_journal(cfg_.dev, journal_->path());
  auto rt = sys::RouteTable::open();
  if (!rt.ok()) throw Fatal{"netlink routes: " + rt.error().detail};
  routes_ = std::make_unique<sys::RouteTable>(std::move(*rt));
  auto nft = sys::NftContext::open();
  if (!nft.ok()) throw Fatal{"nftables: " + nft.error().detail};
  nft_ = std::make_unique<sys::NftContext>(std::move(*nft));
  host_ = std::make_unique<sys::HostChanges>(*journal_, *routes_, *nft_);
  sys::ResolvConfPaths rp;
  if (!opt_.resolv_conf_path.empty()) rp.resolv_conf = opt_.resolv_conf_path;
  rp.backup = opt_.resolv_backup_path.empty() ? state.resolv_backup : opt_.resolv_backup_path;
  resolv_ = std::make_unique<sys::ResolvConf>(rp);
  // A previous run that was killed left changes behind: undo them now. With the kill
  // switch on, its table stays until engage_kill_switch() replaces it atomically.
  auto report =
      cfg_.kill_switch ? host_->revert_all_keeping_kill_switch(cfg_.dev) : host_->revert_all();
  if (report.ok() && report->undone > 0) {
    spdlog::info("undid {} host change(s) left by a previous run", report->undone);
  }
}

void Client::engage_kill_switch() {
  sys::KillSwitchSpec spec;
  spec.tun = cfg_.dev;
  for (const auto& ep : servers_) {
    spec.servers.push_back(sys::IpAddress::parse(transport::ipv4_to_string(ep.addr)).value());
  }
  for (const auto& a : cfg_.dns_servers) {
    if (auto ip = sys::IpAddress::parse(a.to_string()); ip.ok()) spec.resolvers.push_back(*ip);
  }
  auto st = host_->engage_kill_switch(spec);
  if (!st.ok()) throw Fatal{"kill switch: " + st.error().detail};
  spdlog::info(
      "kill switch engaged: only the server's addresses ({}), loopback, DHCP, the "
      "configured resolvers and the tunnel may be reached",
      endpoint_name_);
}

Duration Client::connect_once() {
  attempt_ = Attempt{};
  status_.set_state(ClientState::kConnecting);
  // Reconnect to the address that worked last before trying the others: a dead address
  // listed first would otherwise cost its share of the timeout on every reconnect.
  if (auto it = std::find(servers_.begin(), servers_.end(), server_); it != servers_.end()) {
    std::rotate(servers_.begin(), it, it + 1);
  }
  return cfg_.proto == config::Transport::kUdp ? connect_once_udp() : connect_once_tcp();
}

handshake::ClientConfig Client::handshake_config(std::uint32_t extensions) const {
  handshake::ClientConfig hc;
  hc.mode = config::mode_spec(cfg_.proto, cfg_.mode)->flight;
  hc.bind_static = cfg_.bind_static;
  hc.pinned_server_key = pinned_;
  hc.user = cfg_.user;
  hc.password = password_;
  hc.device_id = device_id_;
  // 0.7.16 SNI rules; an empty `sni` key means "not configured" (use the host).
  hc.sni =
      wire::choose_sni(cfg_.sni.empty() ? std::nullopt : std::optional<std::string_view>(cfg_.sni),
                       cfg_.server.host, crypto::system_rng());
  hc.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
  hc.extensions = extensions;
  // 0.7.16 seals a REALITY token into every fake-TLS hello when both the short id and
  // the server key are configured (so one client config also passes a REALITY gate).
  if (!cfg_.reality_sid.empty() && pinned_) {
    if (const auto id = config::parse_short_id(cfg_.reality_sid)) {
      hc.reality = handshake::ClientConfig::RealityToken{*id, unix_seconds()};
    }
  }
  return hc;
}

bool Client::handshake_succeeded(handshake::Failure failure, bool udp_auth_sent) {
  if (failure == handshake::Failure::kServerKeyMismatch) {
    // The next step: a rotation on purpose needs a re-pin; anything else may be an attack.
    const std::string repin = pin_from_store_ && known_hosts_
                                  ? "remove the line for " + endpoint_name_ + " from " +
                                        known_hosts_->path() + " (the key learned on first use)"
                                  : "import a new link or set `key` to the new key";
    throw Fatal{"SERVER KEY MISMATCH: " + endpoint_name_ +
                " presented a different identity key than the pinned one. If the operator "
                "rotated it (qeli rotate-identity), get a new link (`qeli share-link USER` on "
                "the server) or " +
                repin + "; otherwise do not connect: someone may be impersonating the server"};
  }
  if (failure == handshake::Failure::kPinRequired) {
    throw Fatal{"the server key must be pinned (set `key` or use a qeli:// link with key=)"};
  }
  if (failure == handshake::Failure::kNone) return true;
  if (failure == handshake::Failure::kTlsBindingMismatch) {
    spdlog::error(
        "the TLS session to {} is terminated by something in between (a TLS-inspecting "
        "proxy, or an attack): the server proved another TLS session than ours. Nothing was "
        "sent; retrying, but this path cannot carry reality-tls",
        endpoint_name_);
    return false;
  }
  // 0.7.16 never says why it refuses: client/failure_hint.h reads what the timing says.
  const FailureHint hint =
      explain_handshake_failure(failure, udp_auth_sent, endpoint_name_, cfg_.user);
  attempt_.rejected = hint.rejected;
  spdlog::warn("{}", hint.text);
  if (hint.probably_locked_out) status_.set_state(ClientState::kConnecting, "probably locked out");
  return false;
}

void Client::remember_server_key(const handshake::ClientSession& session) {
  if (!session.server_key_was_pinned) {
    if (known_hosts_) {
      if (auto st = known_hosts_->add(endpoint_name_, session.server_key); !st.ok()) {
        if (!cfg_.allow_unpinned_tofu) throw Fatal{"known_hosts: " + st.error()};
        spdlog::warn("known_hosts: {}", st.error());
      }
    }
    pinned_ = session.server_key;
    spdlog::info("trusting {} on first use: key {}", endpoint_name_, to_hex(session.server_key));
  }
}

Duration Client::connect_once_tcp() {
  transport::UniqueFd sock;
  std::string last_error;
  const SteadyClock clock;
  const auto got = try_in_turn(
      servers_.size(), std::chrono::duration_cast<Duration>(cfg_.timeout), clock,
      [&](std::size_t i, Duration share) {
        // Cancelled by SIGINT/SIGTERM: an unreachable server would otherwise hold the
        // stop for the whole connect timeout.
        auto c = transport::tcp_connect(
            servers_[i], std::chrono::duration_cast<std::chrono::milliseconds>(share), stop_.fd());
        if (c.ok()) {
          sock = std::move(*c);
          return AttemptResult::kConnected;
        }
        last_error = c.error();
        return stop_.stopped() ? AttemptResult::kStop : AttemptResult::kNoAnswer;
      });
  if (stop_.stopped()) return Duration::zero();
  if (!got) {
    spdlog::warn("connect failed: {}", last_error);
    return Duration::zero();
  }
  server_ = servers_[*got];
  transport::StreamOptions so;
  so.nodelay = cfg_.tcp_nodelay;
  so.keepalive_secs = static_cast<int>(cfg_.keepalive.count());
  so.send_buffer = static_cast<int>(cfg_.send_buffer_size);
  so.recv_buffer = static_cast<int>(cfg_.recv_buffer_size.value_or(0));
  transport::apply_stream_options(sock.get(), so);
  std::unique_ptr<transport::Stream> stream =
      std::make_unique<transport::TcpStream>(std::move(sock));

  handshake::ClientConfig hc =
      handshake_config(handshake::our_extensions(handshake::Carrier::kStream));
  crypto::Rng& rng = crypto::system_rng();
  if (cfg_.mode == config::ClientMode::kObfs) {
    // obfs: WebSocket upgrade, junk and the nonce exchange, then the flight inside.
    transport::ObfsParams op;
    op.key = wire::derive_obfs_key(cfg_.obfs_key);
    op.websocket = cfg_.front == config::Fronting::kWebsocket;
    op.junk = wire::JunkPlan::from_config(cfg_.awg, cfg_.jc, cfg_.jmin, cfg_.jmax);
    op.host = hc.sni.kind == wire::Sni::Kind::kHost ? hc.sni.host : std::string();
    op.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
    transport::ObfsSetup setup(transport::ObfsSetup::Side::kClient, std::move(op), rng);
    setup.start(Clock::now());
    if (engine::drive_stream_setup(setup, *stream, stop_) != transport::SetupState::kDone) {
      if (!stop_.stopped()) {
        spdlog::warn("obfs set-up with {} failed: {}. {}", endpoint_name_, setup.failure(),
                     mode_advice());
      }
      return Duration::zero();
    }
    stream = setup.into_stream(std::move(stream));
  }
  transport::TlsStream* tls_stream = nullptr;
  if (cfg_.mode == config::ClientMode::kRealityTls) {
    // reality-tls: a real TLS 1.3 handshake (Chromium's hello, the token in its session
    // id), then the fake-TLS flight and records inside its application data.
    auto tls = start_reality_tls(hc, stream);
    if (!tls) return Duration::zero();
    tls_stream = static_cast<transport::TlsStream*>(tls.get());  // TlsClientSetup builds one
    stream = std::move(tls);
  }
  handshake::ClientHandshake hs(hc, rng);
  hs.start(Clock::now());
  const auto failure = engine::drive_client_handshake(hs, *stream, stop_);
  if (!handshake_succeeded(failure)) return Duration::zero();
  auto session = hs.take_session();
  remember_server_key(session);
  // Our own server (it negotiated our extensions) takes KeyUpdates before the key's
  // record limit; toward 0.7.16 the connection is renewed instead (RFC 8446 §5.5).
  if (tls_stream && session.negotiated_caps != 0) tls_stream->set_peer_is_ours(true);
  if (session.tls_bound) {
    spdlog::info("reality-tls: {} proved our TLS session; records go without the inner AEAD",
                 endpoint_name_);
  }
  // With the GSO extension, the kernel's super-packets cross the tunnel whole.
  const bool gso = (session.negotiated_caps & handshake::caps::kGsoSuperPackets) != 0;
  const bool close_notify = (session.negotiated_caps & handshake::caps::kCloseNotify) != 0;
  const bool aes = aes_negotiated(session.negotiated_caps);
  return run_tunnel(
      *session.auth_ok, configured_mtu(*session.auth_ok),
      gso ? tunio::ReadMode::keep_whole : tunio::ReadMode::split, gso,
      [&](tunio::TunDevice& tun, std::size_t mtu, tunnel::SessionCounters& counters) {
        tunnel::SessionParams sc = session_params(*session.auth_ok, mtu, close_notify);
        sc.receive.gso_receive = gso;
        sc.receive.accept_tls_bound = session.tls_bound;
        engine::StreamFramer framer(*stream, session.recv.framing(), session.leftover);
        tunnel::Session ts(std::move(sc), std::move(session.send), std::move(session.recv),
                           framer.room(), rng, counters, nullptr, Clock::now());
        ts.peer().gso = gso;
        ts.peer().close_notify = close_notify;
        // Both ends proved one TLS session: the inner AEAD goes (docs/PROTOCOL.md §16).
        ts.peer().tls_bound = session.tls_bound;
        ts.peer().aes_gcm = aes;
        engine::TunQueueSource source(tun, counters);
        return engine::run_session(ts, framer, source, engine::TunWriter{&tun, nullptr}, stop_,
                                   clock);
      });
}

std::unique_ptr<transport::Stream> Client::start_reality_tls(
    handshake::ClientConfig& hc, std::unique_ptr<transport::Stream>& tcp) {
  transport::RealityTlsHelloParams hp;
  // Config validation guarantees the pinned key and the short id, and a name form of sni.
  if (hc.sni.kind != wire::Sni::Kind::kHost || hc.sni.host.empty()) {
    throw Fatal{"reality-tls needs a server name: set `sni` to the REALITY target's host name"};
  }
  hp.server_name = hc.sni.host;
  hp.server_key = *pinned_;
  hp.short_id = *config::parse_short_id(cfg_.reality_sid);
  hp.unix_secs = unix_seconds();
  crypto::Rng& rng = crypto::system_rng();
  auto hello = transport::build_reality_tls_hello(hp, rng);
  if (!hello) throw Fatal{"the pinned server key is not a usable X25519 key (check `key`)"};
  tls::ClientHandshakeConfig tc;
  tc.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
  transport::TlsClientSetup setup(std::move(*hello), tc);
  setup.start(Clock::now());
  if (engine::drive_stream_setup(setup, *tcp, stop_) != transport::SetupState::kDone) {
    if (!stop_.stopped()) {
      spdlog::warn("TLS handshake with {} failed: {}. {}", endpoint_name_, setup.failure(),
                   mode_advice());
    }
    return nullptr;
  }
  spdlog::debug("TLS 1.3 with {}: {}, group {:#06x}{}", endpoint_name_,
                tls::to_string(*setup.suite()), setup.group(),
                setup.server_reused_x25519_key() ? " (a 0.7.16 server's hybrid key choice)" : "");
  handshake::TlsExporter exporter{};
  if (hc.extensions != 0 &&
      setup.export_keying_material(handshake::kTlsBindingExporterLabel, {}, exporter)) {
    hc.tls_exporter = exporter;
    hc.extensions |= handshake::caps::kTlsBinding;
  }
  return setup.into_stream(std::move(tcp));
}

// UDP (0.7.16 §3.9): one socket connected to nothing (the server is the only peer we
// accept datagrams from), the sans-I/O UdpClientHandshake driven by poll() with its
// deadline, then the datagram data phase. Super-packets are TCP-only for now: the TUN
// is read split into MTU-sized packets.
Duration Client::connect_once_udp() {
  transport::UdpOptions uo;
  uo.bind = transport::UdpAddr::from(transport::Ipv4Endpoint{0, cfg_.lport});
  uo.recv_buffer = cfg_.recv_buffer_size.value_or(0);
  uo.send_buffer = cfg_.send_buffer_size;
  uo.log = [](std::string_view line) { spdlog::info("{}", line); };
  auto sock = transport::UdpSocket::open(uo);
  if (!sock.ok()) {
    spdlog::warn("UDP socket: {} {}", transport::to_string(sock.error().code), sock.error().detail);
    return Duration::zero();
  }
  crypto::Rng& rng = crypto::system_rng();
  // mode=obfs on UDP: the fake-tls flight inside the per-datagram obfs seal.
  std::optional<crypto::Key32> obfs_key;
  if (wire::has_layer(*config::mode_spec(cfg_.proto, cfg_.mode), wire::Layer::kObfsSeal)) {
    obfs_key = wire::derive_obfs_key(cfg_.obfs_key);
  }
  std::optional<wire::UdpObfs> hs_obfs;
  if (obfs_key) hs_obfs.emplace(*obfs_key);

  handshake::UdpClientConfig uc;
  uc.inner = handshake_config(handshake::our_extensions(handshake::Carrier::kDatagram));
  uc.inner.mode = handshake::Mode::kFakeTls;
  uc.quic = cfg_.quic;
  uc.obfs = hs_obfs ? &*hs_obfs : nullptr;
  uc.junk.count = cfg_.awg ? cfg_.jc : 0;  // `awg` switches the junk on (link `awg=1`)
  uc.junk.min_len = cfg_.jmin;
  uc.junk.max_len = cfg_.jmax;
  // UDP has no connect that could fail: each address gets a whole handshake within its
  // share of the timeout; only silence moves on to the next address.
  std::unique_ptr<handshake::UdpClientHandshake> done;
  transport::UdpAddr peer;
  bool succeeded = false;
  const SteadyClock clock;
  (void)try_in_turn(servers_.size(), uc.inner.timeout, clock, [&](std::size_t i, Duration share) {
    uc.inner.timeout = share;
    peer = transport::UdpAddr::from(servers_[i]);
    auto hs = std::make_unique<handshake::UdpClientHandshake>(uc, rng);
    const auto failure = engine::drive_udp_client_handshake(*hs, *sock, peer, stop_);
    if (stop_.stopped()) return AttemptResult::kStop;
    if (failure == handshake::Failure::kTimeout && !hs->auth_sent() && i + 1 < servers_.size()) {
      spdlog::warn("no answer from {} within {} ms; trying the next address", peer.to_string(),
                   std::chrono::duration_cast<std::chrono::milliseconds>(share).count());
      return AttemptResult::kNoAnswer;
    }
    succeeded = handshake_succeeded(failure, hs->auth_sent());
    if (!succeeded) return AttemptResult::kStop;
    server_ = servers_[i];
    done = std::move(hs);
    return AttemptResult::kConnected;
  });
  if (stop_.stopped() || !succeeded) return Duration::zero();
  handshake::UdpClientHandshake& hs = *done;
  auto udp = hs.take_session();
  remember_server_key(udp.session);
  const bool close_notify = (udp.session.negotiated_caps & handshake::caps::kCloseNotify) != 0;
  const bool aes = aes_negotiated(udp.session.negotiated_caps);
  const handshake::AuthOk& ok = *udp.session.auth_ok;
  std::size_t tunnel_mtu = configured_mtu(ok);
  if (cfg_.mtu == 0 && cfg_.mtu_probe) {
    // 0.7.16 §3.9: probe the path (DF set) before the TUN takes an MTU.
    wire::UdpEnvelope env = udp.envelope;
    env.obfs = hs_obfs ? &*hs_obfs : nullptr;
    handshake::MtuProberConfig pc;
    pc.ceiling = tunnel_mtu;
    const auto r = engine::probe_path_mtu(*sock, peer, env, udp.next_packet_number, pc, stop_, rng);
    if (stop_.stopped()) return Duration::zero();
    spdlog::info(
        "path MTU probe to {}: tunnel MTU {} ({}; {} probes, {} sizes refused by the "
        "kernel, {} ms; ceiling {})",
        endpoint_name_, r.mtu, handshake::to_string(r.outcome), r.probes, r.refused,
        std::chrono::duration_cast<std::chrono::milliseconds>(r.took).count(), tunnel_mtu);
    if (r.outcome == handshake::MtuProbeOutcome::kFallback && !r.stopped) {
      spdlog::warn(
          "path MTU probe to {}: no probe was acknowledged; using MTU {}, which fits a "
          "1280-byte path. The path may drop large datagrams or the server may not answer "
          "probes: if traffic stalls, set `mtu` (or &mtu= in the link) to what the path carries",
          endpoint_name_, r.mtu);
    }
    tunnel_mtu = r.mtu;
  }
  return run_tunnel(
      ok, tunnel_mtu, tunio::ReadMode::split, false,
      [&](tunio::TunDevice& tun, std::size_t mtu, tunnel::SessionCounters& counters) {
        const crypto::Key32* key = obfs_key ? &*obfs_key : nullptr;
        engine::WireDatagramEnvelope send_env(udp.envelope, key, udp.next_packet_number, rng);
        engine::WireDatagramEnvelope recv_env(udp.envelope, key, 0, rng);
        engine::DatagramFramer framer(*sock, peer, send_env, recv_env);
        tunnel::SessionParams sc = session_params(ok, mtu, close_notify);
        sc.send.max_packet = mtu;  // the TUN is read split: MTU-sized slots
        tunnel::Session ts(std::move(sc), std::move(udp.session.send), std::move(udp.session.recv),
                           framer.room(), rng, counters, nullptr, Clock::now());
        ts.peer().close_notify = close_notify;
        ts.peer().aes_gcm = aes;
        engine::TunQueueSource source(tun, counters);
        return engine::run_session(ts, framer, source, engine::TunWriter{&tun, nullptr}, stop_,
                                   clock);
      });
}

bool Client::aes_negotiated(std::uint32_t negotiated_caps) {
  // Both ends have AES-GCM instructions: records go AES-256-GCM (docs/PROTOCOL.md §17).
  attempt_.aes_gcm = (negotiated_caps & handshake::caps::kAesGcm) != 0;
  return attempt_.aes_gcm;
}

tunnel::SessionParams Client::session_params(const handshake::AuthOk& ok, std::size_t mtu,
                                             bool close_notify) {
  tunnel::SessionParams sc;
  sc.apply(tunnel::parse_pushed_params(ok.obfuscation_json, fallback_params(cfg_.fallbacks)));
  sc.send.mtu = mtu;
  sc.send.farewell = client_farewell(close_notify, stop_);
  sc.send.initial_frames.push_back(wire::build_mtu_report(static_cast<std::uint16_t>(mtu)));
  sc.send.initial_frames.push_back(wire::build_client_info(build::version(), kPlatform));
  sc.receive.end_on_close_frame = close_notify;
  if (close_notify) {
    sc.receive.on_control = [this](const wire::ControlFrame& f) { on_server_control(f); };
  }
  return sc;
}

void Client::on_server_control(const wire::ControlFrame& f) {
  if (f.type != wire::kCtrlSessionClose) return;
  // A malformed reason still ends the session (the engine acts on the type): unknown.
  auto why = wire::parse_session_close(f);
  attempt_.closed = why.ok() ? *why : wire::CloseReason{};
}

Duration Client::run_tunnel(const handshake::AuthOk& ok, std::size_t mtu, tunio::ReadMode read_mode,
                            bool gso, const DataPhase& data) {
  attempt_.authenticated = true;
  // The TUN lives exactly as long as the session: closing it removes its address and
  // every route through it, even if we are killed.
  tunio::TunConfig tc;
  tc.name = cfg_.dev;
  tc.queues = 1;
  tc.mtu = mtu;
  tc.read_mode = read_mode;
  tc.log = [](std::string_view line) { spdlog::info("{}", line); };
  auto tun = tunio::LinuxTun::open(tc);
  if (!tun.ok()) throw Fatal{"cannot open TUN " + cfg_.dev + ": " + tun.error().detail};
  auto nl = sys::LinkNetlink::open();
  if (!nl.ok()) throw Fatal{"netlink: " + nl.error().detail};
  const std::string dev = tun->name();
  const std::string cidr = ok.client_ip + "/" + std::to_string(ok.prefix);
  // The tunnel carries IPv4 only: with IPv6 off on the TUN the kernel sends no router
  // solicitations or other IPv6 into it (the server would only drop them). The setting
  // goes with the device; a kernel without IPv6 has no such key, which is fine.
  if (auto st = sys::write_sysctl("net/ipv6/conf/" + dev + "/disable_ipv6", "1"); !st.ok()) {
    spdlog::debug("IPv6 on {} stays: {}", dev, st.error().detail);
  }
  // 1000 packets of TUN queue, as the server's default `tun.tx_queue_len`.
  for (auto st :
       {nl->set_mtu(dev, static_cast<std::uint32_t>(mtu)), nl->set_tx_queue_len(dev, 1000),
        nl->add_address(dev, cidr), nl->set_link_up(dev)}) {
    if (!st.ok()) throw Fatal{"TUN " + dev + ": " + st.error().detail};
  }
  // DNS: see client/dns_choice.h for the rules.
  sys::ResolvedProbePaths probe;
  if (!opt_.resolv_conf_path.empty()) probe.resolv_conf = opt_.resolv_conf_path;
  const DnsChoice dns = choose_dns(cfg_, ok.dns, sys::probe_resolved(probe));
  std::vector<std::string> resolvers;
  if (dns.path != DnsPath::kLeaveAlone) {
    for (const auto& a : dns.dns.servers) resolvers.push_back(a.to_string());
  }
  SessionChanges routes(*host_);
  const RoutePlan plan = plan_routes(cfg_, ok.routes, resolvers);
  const bool full = plan.full_tunnel;
  if (plan.pushed_default && !cfg_.gateway) {
    spdlog::info("the server pushed a default route (0.0.0.0/0): full tunnel");
  }
  if (plan.pin_server || !plan.via_underlay.empty()) {
    // Pin the server (and excluded networks) through the path it uses now, before any
    // route through the tunnel could cover it.
    const auto server = sys::IpAddress::parse(transport::ipv4_to_string(server_.addr));
    auto via = routes_->lookup(server.value());
    if (!via.ok()) throw Fatal{"no route to the server: " + via.error().detail};
    if (plan.pin_server && !routes.add_route(sys::pin_route(*via)))
      throw Fatal{"cannot pin the server route"};
    for (const auto& c : plan.via_underlay) {
      sys::Route r = sys::pin_route(*via);
      r.dst = sys::IpPrefix::parse(c).value();
      routes.add_route(r);
    }
  }
  for (const auto& r : plan.via_tun) {
    const bool half = r.cidr == "0.0.0.0/1" || r.cidr == "128.0.0.0/1";
    if (!routes.add_route(dev_route(r.cidr, dev, r.metric)) && half) {
      throw Fatal{"cannot install the full-tunnel routes"};
    }
  }
  // qeli carries IPv4 only: in a full tunnel IPv6 would leave outside it, so it is made
  // unreachable unless the user accepts the leak.
  if (plan.blackhole_ipv6) {
    for (const char* c : {"::/1", "8000::/1"}) {
      sys::Route r;
      r.dst = sys::IpPrefix::parse(c).value();
      r.type = sys::RouteType::kUnreachable;
      routes.add_route(r);
    }
  }
  std::optional<LinkDnsGuard> link_dns;
  if (dns.path == DnsPath::kResolvedLink) {
    if (auto st = resolved_.apply(dev, dns.dns, full); st.ok()) {
      link_dns.emplace(resolved_, dev);
    } else {
      // Never leave the tunnel without the DNS the user asked for.
      spdlog::warn("systemd-resolved: {}; taking over resolv.conf instead", st.error().detail);
      routes.take_over_dns(*resolv_, dns.dns, dev);
    }
  } else if (dns.path == DnsPath::kResolvConf) {
    routes.take_over_dns(*resolv_, dns.dns, dev);
  }
  spdlog::info("DNS: {}", dns.why);
  spdlog::info("connected to {} as {}: {} on {} (mtu {}, {} pushed routes{}{}{})", endpoint_name_,
               cfg_.user, cidr, dev, mtu, ok.routes.size(), full ? ", full tunnel" : "",
               gso ? ", GSO super-packets" : "", attempt_.aes_gcm ? ", AES-256-GCM records" : "");

  tunnel::SessionCounters counters;
  TunnelInfo info;
  info.server_address =
      transport::ipv4_to_string(server_.addr) + ":" + std::to_string(server_.port);
  info.dev = dev;
  info.client_cidr = cidr;
  info.server_tunnel_ip = ok.server_ip;
  info.mtu = mtu;
  info.full_tunnel = full;
  info.extensions = gso ? "gso" : "";
  if (attempt_.aes_gcm) info.extensions += info.extensions.empty() ? "aes-gcm" : ", aes-gcm";
  status_.connected(info, &counters);
  notifier_.status("connected to " + endpoint_name_ + " as " + cfg_.user + ": " + cidr + " on " +
                   dev);
  const sys::HookEnv hook_env{{"QELI_DEV", dev},
                              {"QELI_SERVER", endpoint_name_},
                              {"QELI_USER", cfg_.user},
                              {"QELI_TUNNEL_IP", ok.client_ip},
                              {"QELI_PREFIX", std::to_string(ok.prefix)},
                              {"QELI_SERVER_TUNNEL_IP", ok.server_ip},
                              {"QELI_MTU", std::to_string(mtu)},
                              {"QELI_FULL_TUNNEL", cfg_.gateway ? "1" : "0"}};
  (void)run_client_hook("post_up", cfg_.post_up, hook_env);
  const auto started = Clock::now();
  tunio::TunQueue queue(*tun, 0);
  const auto end = data(queue, mtu, counters);
  const auto ran = Clock::now() - started;
  (void)run_client_hook("post_down", cfg_.post_down, hook_env);
  const std::string why =
      end == tunnel::SessionEnd::kClosedByPeer && attempt_.closed
          ? std::string("the server ended the session: ") + wire::to_string(*attempt_.closed)
          : std::string(tunnel::to_string(end));
  spdlog::info("session ended: {} after {} s (tx {} pkts, rx {} pkts, drops: {})", why,
               std::chrono::duration_cast<std::chrono::seconds>(ran).count(),
               counters.get(tunnel::SessionCounter::kTxPackets),
               counters.get(tunnel::SessionCounter::kRxPackets), tunnel::describe_drops(counters));
  status_.disconnected(why);
  link_dns.reset();
  routes.clear();
  return ran;
}

// The server's addresses. A resolver that cannot answer now (no network yet, no name
// server reachable) is a network failure like any other: retried with the reconnect
// backoff until it answers or we are stopped. A definite "no such name" is fatal.
std::vector<transport::Ipv4Endpoint> Client::resolve_server() {
  auto delay = std::chrono::milliseconds(cfg_.reconnect_base_delay);
  while (true) {
    auto resolved = transport::resolve_ipv4({cfg_.server.host, cfg_.server.port});
    if (resolved.ok()) return *resolved;
    const std::string why =
        "cannot resolve " + cfg_.server.to_string() + ": " + resolved.error().message;
    if (!resolved.error().temporary || !cfg_.reconnect) throw Fatal{why};
    spdlog::warn("{}; retrying in {} ms", why, delay.count());
    pollfd p{stop_.fd(), POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(delay.count()));
    if (stop_.stopped()) return {};
    delay = std::min<std::chrono::milliseconds>(delay * 2, cfg_.reconnect_max_delay);
  }
}

int Client::run() {
  // Signals end the loop from a dedicated thread (every other thread blocks them).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::atomic<bool> done{false};
  std::thread sig_thread([&] {
    int sig = 0;
    while (!done.load()) {
      timespec ts{0, 200'000'000};
      sig = sigtimedwait(&set, nullptr, &ts);
      if (sig == SIGHUP) {  // logrotate: open the log file again
        if (auto st = sys::reopen_log_file(); !st.ok()) spdlog::warn("{}", st.error());
        continue;
      }
      if (sig > 0) {
        status_.set_state(ClientState::kStopping);
        notifier_.stopping();
        spdlog::info("signal {}: stopping", sig);
        stop_.stop();
        return;
      }
    }
  });
  struct Joiner {
    std::atomic<bool>& d;
    std::thread& t;
    ~Joiner() {
      d.store(true);
      t.join();
    }
  } joiner{done, sig_thread};

  try {
    // What this build carries: the mode table (a mode whose layers are not built yet
    // would otherwise fall back to another disguise without a word).
    if (const auto why =
            wire::refusal(config::carrier_of(cfg_.proto), config::to_string(cfg_.mode));
        !why.empty()) {
      throw Fatal{"mode " + why};
    }
    if (!cfg_.post_up.empty() || !cfg_.post_down.empty()) {
      if (auto why = unsafe_command_source(cfg_); !why.empty()) throw Fatal{why};
    }
    auto pw = read_client_password(cfg_);
    if (!pw.error.empty()) throw Fatal{pw.error};
    password_ = std::move(pw.password);
    servers_ = resolve_server();
    if (stop_.stopped()) return 0;
    endpoint_name_ = cfg_.server.host + ":" + std::to_string(cfg_.server.port);
    const sys::LogFields fields{
        {"QELI_SERVER", endpoint_name_}, {"QELI_USER", cfg_.user}, {"QELI_DEV", cfg_.dev}};
    handshake::X25519Public key{};
    if (!cfg_.key.empty() && from_hex_into(cfg_.key, key) && !crypto::ct_is_zero(key)) {
      pinned_ = key;
    } else {
      known_hosts_ = std::make_unique<KnownHosts>(
          opt_.known_hosts_path.empty() ? KnownHosts::default_path() : opt_.known_hosts_path);
      if (auto k = known_hosts_->find(endpoint_name_)) {
        pinned_ = *k;
        pin_from_store_ = true;
      }
    }
    device_id_ = load_device_id(opt_.device_id_path.empty() ? default_device_id_path()
                                                            : opt_.device_id_path);
    open_host_state();
    // Before the first connect, and kept across reconnects: nothing leaks while down.
    if (cfg_.kill_switch) engage_kill_switch();
    status_service_.start(opt_.status_socket);
    // Ready = the client runs its connect loop; the connection itself is STATUS= (a
    // server that is down at boot must not fail the unit: the client keeps trying).
    notifier_.ready("connecting to " + endpoint_name_);
    auto delay = std::chrono::milliseconds(cfg_.reconnect_base_delay);
    std::int64_t failures = 0;
    int rejections = 0;  // consecutive; a network failure neither counts nor resets
    while (!stop_.stopped()) {
      (void)connect_once();
      if (stop_.stopped()) break;
      if (attempt_.authenticated) rejections = 0;
      if (attempt_.closed == wire::CloseReason::kDisabled) {
        throw Fatal{"the server disabled user '" + cfg_.user + "' (qeli disable-user): not " +
                    "reconnecting; the operator can lift it with `qeli enable-user " + cfg_.user +
                    "`"};
      }
      if (attempt_.closed == wire::CloseReason::kQuotaExhausted) {
        throw Fatal{"user '" + cfg_.user + "' used up its data quota (data_limit_gb) on " +
                    endpoint_name_ + ": not reconnecting; the operator can reset it with " +
                    "`qeli usage --reset " + cfg_.user + "` or raise the limit"};
      }
      if (attempt_.closed == wire::CloseReason::kCredentialsChanged) {
        throw Fatal{"the server changed the password of user '" + cfg_.user +
                    "' (or removed the user): not reconnecting with the old one; ask the "
                    "operator for a new link (`qeli share-link " +
                    cfg_.user + "`)"};
      }
      if (attempt_.rejected && ++rejections >= kMaxRejections) {
        throw Fatal{rejected_too_often(rejections, endpoint_name_, cfg_.user)};
      }
      if (!cfg_.reconnect) return 1;
      if (attempt_.authenticated) {
        // The server took us in: whatever ended the session (a quick server restart, a
        // path change), the next attempt starts from the base delay again.
        delay = std::chrono::milliseconds(cfg_.reconnect_base_delay);
        failures = 0;
      } else if (++failures > cfg_.reconnect_retries && cfg_.reconnect_retries >= 0) {
        spdlog::error("giving up after {} attempts", failures);
        return 1;
      }
      // Exponential backoff with jitter (±25%), capped.
      const auto base = std::chrono::duration_cast<std::chrono::milliseconds>(delay);
      const auto jitter =
          crypto::system_rng().uniform(0, static_cast<std::uint64_t>(base.count() / 2));
      const auto wait = base * 3 / 4 + std::chrono::milliseconds(jitter);
      spdlog::info("reconnecting in {} ms", wait.count());
      status_.set_state(ClientState::kWaiting,
                        "reconnecting in " + std::to_string(wait.count()) + " ms");
      notifier_.status("reconnecting to " + endpoint_name_ + " in " + std::to_string(wait.count()) +
                       " ms");
      pollfd p{stop_.fd(), POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(wait.count()));
      delay = std::min<std::chrono::milliseconds>(delay * 2, cfg_.reconnect_max_delay);
      if (!stop_.stopped()) refresh_server_addresses();
    }
    if (host_) (void)host_->revert_all();  // clean stop: routes, DNS, kill switch
    unregister_journal(cfg_.dev);
    return 0;
  } catch (const Fatal& f) {
    spdlog::error("{}", f.message);
    if (host_) {
      (void)host_->revert_all();
      unregister_journal(cfg_.dev);
    }
    return 1;
  }
}

}  // namespace

int run_client(const ClientOptions& options) { return Client(options).run(); }

}  // namespace qeli::client
