#include "server/server.h"

#include <signal.h>

#include <spdlog/spdlog.h>

#include <memory>

#include <nlohmann/json.hpp>

#include <vector>
#include "control/control_socket.h"
#include "transport/endpoint.h"

#include "config/identity_store.h"
#include "config/server_config.h"
#include "server/auth_guard.h"
#include "server/profile_runtime.h"
#include "server/user_directory.h"

namespace qeli::server {
namespace {

UserSnapshot users_of(const config::ServerConfig& c) { return UserSnapshot{c.users, c.groups}; }

BruteForcePolicy policy_of(const config::BruteForceConfig& b) {
  return {b.enabled, b.max_attempts, b.window, b.lockout};
}

void print_findings(const config::Findings& f) {
  for (const auto& item : f.all()) {
    if (item.severity == config::Severity::kError) {
      spdlog::error("{}", item.to_string());
    } else {
      spdlog::warn("{}", item.to_string());
    }
  }
}

nlohmann::json handle_control(const nlohmann::json& req,
                              const std::vector<std::unique_ptr<ProfileRuntime>>& profiles,
                              AuthGuard& guard) {
  const std::string cmd = req["cmd"].get<std::string>();
  const auto now = std::chrono::steady_clock::now();
  if (cmd == "list-clients") {
    nlohmann::json clients = nlohmann::json::array();
    for (const auto& p : profiles) {
      for (const auto& s : p->sessions().list()) {
        std::string version, platform;
        {
          std::lock_guard lock(s->info_mu);
          version = s->client_version;
          platform = s->client_platform;
        }
        clients.push_back(
            {{"profile", p->name()},
             {"username", s->user},
             {"device", s->device_key},
             {"tunnel_ip", transport::ipv4_to_string(s->tunnel_ip)},
             {"peer", s->peer.to_string()},
             {"connected_secs",
              std::chrono::duration_cast<std::chrono::seconds>(now - s->started).count()},
             {"rx_packets", s->counters.rx_packets.load()},
             {"tx_packets", s->counters.tx_packets.load()},
             {"tx_bytes", s->counters.tx_bytes.load()},
             {"drop_bad_source", s->counters.drop_bad_source.load()},
             {"drop_policy", s->counters.drop_policy.load()},
             {"gso", s->gso.load()},
             {"client_version", version},
             {"client_platform", platform}});
      }
    }
    return {{"ok", true}, {"clients", clients}};
  }
  if (cmd == "kick") {
    if (!req.contains("username") || !req["username"].is_string()) {
      return {{"ok", false}, {"error", "kick needs \"username\""}};
    }
    std::size_t n = 0;
    for (const auto& p : profiles) n += p->sessions().kick(req["username"].get<std::string>());
    return {{"ok", true}, {"kicked", n}};
  }
  if (cmd == "stats") {
    // Why connections ended before authentication, per profile (the wire shows nothing).
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : profiles) {
      const ProfileCounters& c = p->counters();
      out.push_back({{"profile", p->name()},
                     {"accepted", c.accepted.load()},
                     {"handshake_failed", c.handshake_failed.load()},
                     {"auth_failed", c.auth_failed.load()},
                     {"locked_out", c.locked_out.load()},
                     {"over_capacity", c.over_capacity.load()},
                     {"sessions_started", c.sessions_started.load()},
                     {"tun_no_route", c.tun_no_route.load()},
                     {"udp_half_open_evicted", c.udp_half_open_evicted.load()},
                     {"new_session_rate_limited", c.new_session_rate_limited.load()},
                     {"preauth_crypto_shed", c.preauth_crypto_shed.load()}});
    }
    return {{"ok", true}, {"profiles", out}};
  }
  if (cmd == "list-blocked") return {{"ok", true}, {"blocked_ips", guard.locked_count(now)}};
  if (cmd == "unblock-all") {
    guard.unblock_all();
    return {{"ok", true}};
  }
  return {{"ok", false}, {"error", "unknown command '" + cmd + "'"}};
}

}  // namespace

int run_server(const ServerOptions& options) {
  // Signals are taken synchronously by this thread only: block them before any thread
  // starts so every thread inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto load = config::load_server_config(options.config_path);
  print_findings(load.findings);
  if (!load.ok()) {
    spdlog::error("{}: refusing to start with the errors above", options.config_path);
    return 1;
  }
  const config::ServerConfig& cfg = load.config;
  UserDirectory users(users_of(cfg));
  AuthGuard guard(policy_of(cfg.auth.brute_force));
  config::IdentityStore identities(options.identity_dir);

  std::vector<std::unique_ptr<ProfileRuntime>> profiles;
  for (const auto& p : cfg.profiles) {
    if (!p.enabled) continue;
    auto id = identities.load_or_create(p.name, p.identity_key);
    if (!id.ok()) {
      spdlog::error("profile {}: identity key: {}", p.name, id.error().detail);
      return 1;
    }
    if (id->created) spdlog::info("profile {}: created identity key {}", p.name, id->path);
    crypto::X25519KeyPair kp{std::move(id->private_key), id->public_key};
    spdlog::info("profile {}: identity {}", p.name, to_hex(kp.public_key));
    auto rt = std::make_unique<ProfileRuntime>(p, cfg.auth, std::move(kp), users, guard);
    if (auto st = rt->start(); !st.ok()) {
      spdlog::error("{}", st.error());
      for (auto& r : profiles) r->stop();
      return 1;
    }
    profiles.push_back(std::move(rt));
  }
  if (profiles.empty()) {
    spdlog::error("{}: no enabled profile", options.config_path);
    return 1;
  }
  control::ControlServer control;
  if (!options.control_socket.empty()) {
    auto st = control.start(options.control_socket, [&](const nlohmann::json& req) {
      return handle_control(req, profiles, guard);
    });
    if (!st.ok()) spdlog::warn("control socket disabled: {}", st.error());
  }

  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      auto again = config::load_server_config(options.config_path);
      print_findings(again.findings);
      if (!again.ok()) {
        spdlog::error("reload refused: {} has errors; keeping the running configuration",
                      options.config_path);
        continue;
      }
      users.replace(users_of(again.config));
      spdlog::info("reloaded users from {} ({} users); profile changes need a restart",
                   options.config_path, again.config.users.size());
      continue;
    }
    spdlog::info("signal {}: stopping", sig);
    break;
  }
  control.stop();
  for (auto& r : profiles) r->stop();
  return 0;
}

}  // namespace qeli::server
