#include "client/client.h"

#include <poll.h>
#include <signal.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "base/build_info.h"
#include "client/bounded_resolve.h"
#include "client/client_hooks.h"
#include "client/client_status.h"
#include "client/core/client_core.h"
#include "client/device_id.h"
#include "client/host_cleanup.h"
#include "client/known_hosts.h"
#include "client/linux_tunnel.h"
#include "client/path_guard.h"
#include "client/state_paths.h"
#include "client/status_service.h"
#include "crypto/ct.h"
#include "engine/stop_signal.h"
#include "sys/daemon_signals.h"
#include "sys/host_journal.h"
#include "sys/host_undo.h"
#include "sys/log_fields.h"
#include "sys/log_output.h"
#include "sys/nft_kill_switch.h"
#include "sys/resolv_conf.h"
#include "sys/resolved_bus.h"
#include "sys/route_table.h"
#include "sys/service_notify.h"
#include "transport/endpoint.h"

namespace qeli::client {
namespace {

struct Fatal {
  std::string message;
};

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
  std::vector<transport::SockAddr> resolve_server();

 private:
  ClientCoreOptions core_options(std::string password,
                                 std::optional<handshake::X25519Public> pinned,
                                 bool pin_from_store) const;
  ClientEnv make_env(LinuxHost& host);
  void open_host_state();
  void engage_kill_switch();
  // Before a reconnect: the server's name is resolved again (it may have moved), and the
  // kill switch follows the new addresses. A resolver that cannot answer now keeps the
  // addresses we have (returns an empty list, as when nothing changed).
  std::vector<transport::SockAddr> refresh_server_addresses();

  const ClientOptions& opt_;
  const config::ClientConfig& cfg_;
  // Stops the resolve before the core runs; the core has its own (ClientCore::stop).
  engine::StopSignal stop_;
  std::mutex core_mu_;  // guards core_: the signal thread stops it, run() owns it
  ClientCore* core_ = nullptr;
  // `qeli status` and systemd (client/status_service.h).
  sys::ServiceNotifier notifier_;
  ClientStatus status_;
  StatusService status_service_;
  std::vector<transport::SockAddr> servers_;
  std::string endpoint_name_;
  std::unique_ptr<KnownHosts> known_hosts_;
  DeviceId device_id_{};
  // Host integration: every change is journaled (sys::HostChanges).
  std::unique_ptr<sys::HostJournal> journal_;
  std::unique_ptr<sys::RouteTable> routes_;
  std::unique_ptr<sys::NftContext> nft_;
  std::unique_ptr<sys::HostChanges> host_;
  std::unique_ptr<sys::ResolvConf> resolv_;
  sys::ResolvedBusLinkDns resolved_;
  // Ends a connection whose network the host left (ClientEnv::watch_path); outlives the core.
  std::unique_ptr<PathGuard> path_guard_;
};

ClientCoreOptions Client::core_options(std::string password,
                                       std::optional<handshake::X25519Public> pinned,
                                       bool pin_from_store) const {
  ClientCoreOptions o;
  o.config = cfg_;
  o.password = std::move(password);
  o.servers = servers_;
  o.pinned = pinned;
  if (pin_from_store && known_hosts_) {
    o.repin_hint = "remove the line for " + endpoint_name_ + " from " + known_hosts_->path() +
                   " (the key learned on first use)";
  }
  o.device_id = device_id_;
  o.platform = "linux";
  return o;
}

ClientEnv Client::make_env(LinuxHost& host) {
  ClientEnv env;
  env.open_tunnel = [&host](const TunnelConfig& tc) { return open_linux_tunnel(host, tc); };
  // linux_tunnel.cc sets the address and routes up (or falls back to IPv4 only).
  env.ipv6_inside = cfg_.ipv6;
  env.trust_on_first_use = [this](const handshake::X25519Public& key) -> std::string {
    if (!known_hosts_) return {};
    if (auto st = known_hosts_->add(endpoint_name_, key); !st.ok()) {
      if (!cfg_.allow_unpinned_tofu) return "known_hosts: " + st.error();
      spdlog::warn("known_hosts: {}", st.error());
    }
    return {};
  };
  env.refresh_servers = [this] { return refresh_server_addresses(); };
  path_guard_ = std::make_unique<PathGuard>(cfg_.dev);
  env.watch_path = [this](int fd) { return path_guard_->watch(fd); };
  env.on_state = [this](ClientState s, const std::string& detail) {
    if (s == ClientState::kConnected) return;  // the tunnel reports it (linux_tunnel.h)
    status_.set_state(s, detail);
    if (s == ClientState::kWaiting) {
      // "reconnecting in 812 ms" → "reconnecting to host:port in 812 ms"
      const std::string_view prefix = "reconnecting";
      const std::string rest = detail.rfind(prefix, 0) == 0 ? detail.substr(prefix.size()) : "";
      notifier_.status("reconnecting to " + endpoint_name_ + rest);
    }
  };
  env.log = [](LogLevel level, std::string_view line) {
    switch (level) {
      case LogLevel::kDebug: spdlog::debug("{}", line); break;
      case LogLevel::kInfo: spdlog::info("{}", line); break;
      case LogLevel::kWarn: spdlog::warn("{}", line); break;
      case LogLevel::kError: spdlog::error("{}", line); break;
    }
  };
  return env;
}

std::vector<transport::SockAddr> Client::refresh_server_addresses() {
  if (transport::SockAddr::parse_ip(cfg_.server.host, 0)) return {};  // a literal never moves
  std::string why;
  auto resolved =
      resolve_within({cfg_.server.host, cfg_.server.port}, std::chrono::milliseconds(2000), &why);
  if (!resolved) {
    spdlog::info("cannot resolve {} again ({}); keeping its previous addresses",
                 cfg_.server.to_string(), why);
    return {};
  }
  auto sorted = [](std::vector<transport::SockAddr> v) {
    std::sort(v.begin(), v.end(),
              [](const auto& a, const auto& b) { return a.to_string() < b.to_string(); });
    return v;
  };
  if (sorted(*resolved) == sorted(servers_)) return {};
  std::string list;
  for (const auto& ep : *resolved) list += (list.empty() ? "" : ", ") + ep.to_string();
  spdlog::info("{} now resolves to {}", cfg_.server.host, list);
  servers_ = std::move(*resolved);
  if (cfg_.kill_switch && nft_) {
    std::vector<sys::IpAddress> ips;
    for (const auto& ep : servers_) {
      ips.push_back(sys::IpAddress::parse(ep.ip_string()).value());
    }
    if (auto st = sys::refresh_servers(*nft_, cfg_.dev, ips); !st.ok()) {
      spdlog::warn("kill switch: cannot allow the new server addresses: {}", st.error().detail);
    }
  }
  return servers_;
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
    spec.servers.push_back(sys::IpAddress::parse(ep.ip_string()).value());
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

// The server's addresses. A resolver that cannot answer now (no network yet, no name
// server reachable) is a network failure like any other: retried with the reconnect
// backoff until it answers or we are stopped. A definite "no such name" is fatal.
std::vector<transport::SockAddr> Client::resolve_server() {
  auto delay = std::chrono::milliseconds(cfg_.reconnect_base_delay);
  while (true) {
    auto resolved = transport::resolve({cfg_.server.host, cfg_.server.port});
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
  const sigset_t set = sys::block_daemon_signals();
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
        std::lock_guard lock(core_mu_);
        if (core_ != nullptr) core_->stop();
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
    // What this build carries (the mode table), before anything else.
    if (auto st = ClientCore::check_mode(cfg_); !st.ok()) throw Fatal{st.error().detail};
    if (!cfg_.post_up.empty() || !cfg_.post_down.empty()) {
      if (auto why = unsafe_command_source(cfg_); !why.empty()) throw Fatal{why};
    }
    auto pw = read_client_password(cfg_);
    if (!pw.error.empty()) throw Fatal{pw.error};
    std::string password = std::move(pw.password);
    servers_ = resolve_server();
    if (stop_.stopped()) return 0;
    endpoint_name_ = cfg_.server.to_string();  // "[v6]:port" bracketed (known_hosts key)
    const sys::LogFields fields{
        {"QELI_SERVER", endpoint_name_}, {"QELI_USER", cfg_.user}, {"QELI_DEV", cfg_.dev}};
    std::optional<handshake::X25519Public> pinned;
    bool pin_from_store = false;
    handshake::X25519Public key{};
    if (!cfg_.key.empty() && from_hex_into(cfg_.key, key) && !crypto::ct_is_zero(key)) {
      pinned = key;
    } else {
      known_hosts_ = std::make_unique<KnownHosts>(
          opt_.known_hosts_path.empty() ? KnownHosts::default_path() : opt_.known_hosts_path);
      if (auto k = known_hosts_->find(endpoint_name_)) {
        pinned = *k;
        pin_from_store = true;
      }
    }
    device_id_ = load_device_id(opt_.device_id_path.empty() ? default_device_id_path()
                                                            : opt_.device_id_path);
    open_host_state();
    // Before the first connect, and kept across reconnects: nothing leaks while down.
    if (cfg_.kill_switch) engage_kill_switch();
    status_service_.start(opt_.status_socket);
    LinuxHost host{cfg_,           opt_.resolv_conf_path,
                   endpoint_name_, *host_,
                   *routes_,       *resolv_,
                   resolved_,      status_,
                   notifier_};
    // Ready = the client runs its connect loop; the connection itself is STATUS= (a
    // server that is down at boot must not fail the unit: the client keeps trying).
    notifier_.ready("connecting to " + endpoint_name_);
    ClientCore core(core_options(std::move(password), pinned, pin_from_store), make_env(host));
    {
      std::lock_guard lock(core_mu_);
      core_ = &core;
      if (stop_.stopped()) core.stop();  // a signal before core_ was set
    }
    const auto result = core.run();
    {
      std::lock_guard lock(core_mu_);
      core_ = nullptr;
    }
    if (!result.ok()) {
      if (!result.error().detail.empty()) spdlog::error("{}", result.error().detail);
      // Given up (reconnect off or retries used up): the kill switch stays engaged and
      // journaled (`qeli client --cleanup` lifts it); any other failure is undone.
      if (result.error().code == ClientErrc::kGaveUp) return 1;
      throw Fatal{""};
    }
    if (host_) (void)host_->revert_all();  // clean stop: routes, DNS, kill switch
    unregister_journal(cfg_.dev);
    return 0;
  } catch (const Fatal& f) {
    if (!f.message.empty()) spdlog::error("{}", f.message);
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
