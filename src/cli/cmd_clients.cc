// qeli list-clients / kick / disable-user / enable-user / list-blocked / unblock / stats —
// thin clients of the server's control socket (server/control_handler.h; 0.7.16 §6.1).
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <ostream>

#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/session_table.h"
#include "cli/text_table.h"
#include "cli/udp_socket_text.h"
#include "control/api_json.h"
#include "control/control_socket.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string socket = control::kDefaultSocketPath;
  std::string user;
  std::string ip;
  bool all = false;
  bool json = false;
};

template <class Req>
std::optional<typename Req::Reply> ask(const Options& o, const Req& req, Context& ctx, int& rc) {
  return ask_server(o.socket, req, ctx, rc);
}

int list_clients(const Options& o, Context& ctx) {
  int rc = 0;
  auto r = ask(o, control::ListSessions{}, ctx, rc);
  if (!r) return rc;
  if (o.json) {
    ctx.out << nlohmann::json(r->clients).dump(2) << "\n";
    return kExitOk;
  }
  print_sessions(r->clients, ctx.out);
  return kExitOk;
}

// One "profile counter value" line per non-zero counter (all of them with --json).
int stats(const Options& o, Context& ctx) {
  int rc = 0;
  auto r = ask(o, control::GetStats{}, ctx, rc);
  if (!r) return rc;
  if (o.json) {
    // One object per profile with every counter as a member (the 0.7-era shape).
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : r->profiles) {
      nlohmann::json j = {{"profile", p.profile}};
      for (const auto& c : p.counters) j[c.name] = c.value;
      for (const auto& c : p.traffic) j[c.name] = c.value;
      if (!p.tls_target.empty()) j["tls_target"] = p.tls_target;
      if (const auto& u = p.udp_socket) {  // UDP profiles only
        j["udp_kernel_drops"] = u->kernel_drops;
        j["udp_buffer_grows"] = u->buffer_grows;
        j["udp_recv_buffer_bytes"] = u->recv_buffer_bytes;
      }
      out.push_back(std::move(j));
    }
    if (!r->webhooks.empty()) {  // one more object, after the profiles'
      nlohmann::json j = {{"webhooks", true}};
      for (const auto& c : r->webhooks) j[c.name] = c.value;
      out.push_back(std::move(j));
    }
    ctx.out << out.dump(2) << "\n";
    return kExitOk;
  }
  TextTable t;
  for (const auto& p : r->profiles) {
    for (const auto* set : {&p.counters, &p.traffic}) {
      for (const auto& c : *set) {
        if (c.value != 0) t.row(p.profile, c.name, c.value);
      }
    }
  }
  for (const auto& c : r->webhooks) t.row("[webhooks]", c.name, c.value);
  t.print(ctx.out);
  // reality-tls: which shape the terminator mirrors (a fallback means the probe failed).
  for (const auto& p : r->profiles) {
    if (!p.tls_target.empty())
      ctx.out << p.profile << " reality-tls answers as: " << p.tls_target << "\n";
    // The workers' sockets: drops summed, the largest buffer (docs/OPERATIONS.md).
    if (p.udp_socket)
      ctx.out << p.profile << " udp sockets: " << describe_udp_socket(*p.udp_socket) << "\n";
  }
  return kExitOk;
}

int list_blocked(const Options& o, Context& ctx) {
  int rc = 0;
  auto r = ask(o, control::ListBlocked{}, ctx, rc);
  if (!r) return rc;
  if (o.json) {
    ctx.out << nlohmann::json(r->blocked).dump(2) << "\n";
    return kExitOk;
  }
  print_lockouts(r->blocked, ctx.out);
  return kExitOk;
}

int unblock(const Options& o, Context& ctx) {
  if (o.all && !o.ip.empty()) {
    ctx.err << "qeli unblock: give either an IP address or --all, not both\n";
    return kExitUsage;
  }
  if (!o.all && o.ip.empty()) {
    ctx.err << "qeli unblock: give an IP address or --all\n";
    return kExitUsage;
  }
  int rc = 0;
  if (o.all) {
    if (!ask(o, control::UnblockAll{}, ctx, rc)) return rc;
    ctx.out << "unblocked every address\n";
    return kExitOk;
  }
  const auto r = ask(o, control::Unblock{o.ip}, ctx, rc);
  if (!r) return rc;
  // The server names what it lifted (an IPv6 address: its /64).
  ctx.out << "unblocked " << (r->ip.empty() ? o.ip : r->ip) << "\n";
  return kExitOk;
}

// disable-user USER / enable-user USER.
int switch_user(const Options& o, bool disable, Context& ctx) {
  int rc = 0;
  auto r = disable ? ask(o, control::DisableUser{o.user}, ctx, rc)
                   : ask(o, control::EnableUser{o.user}, ctx, rc);
  if (!r) return rc;
  if (disable) {
    ctx.out << "disabled '" << o.user << "' until `qeli enable-user " << o.user
            << "` or a server restart; kicked " << r->kicked << " session(s)\n";
  } else if (r->was_disabled) {
    ctx.out << "enabled '" << o.user << "'\n";
  } else {
    ctx.out << "'" << o.user << "' was not disabled\n";
  }
  if (!r->warning.empty()) ctx.err << "qeli: " << r->warning << "\n";
  return kExitOk;
}

CLI::App* with_socket(CLI::App* cmd, Options& o) {
  cmd->add_option("--socket", o.socket, "Server control socket")->capture_default_str();
  return cmd;
}

}  // namespace

void register_clients(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* list = app.add_subcommand("list-clients", "List the live sessions of a running server");
  list->add_option("--socket", opts->socket, "Server control socket")->capture_default_str();
  list->add_flag("--json", opts->json, "Print JSON");
  list->callback([opts, &ctx] { ctx.exit_code = list_clients(*opts, ctx); });

  auto* st = with_socket(
      app.add_subcommand("stats", "Per-profile counters of a running server (pre-auth drops)"),
      *opts);
  st->add_flag("--json", opts->json, "Print JSON (every counter)");
  st->callback([opts, &ctx] { ctx.exit_code = stats(*opts, ctx); });

  auto* kick =
      app.add_subcommand("kick", "Disconnect every session of a user (they may reconnect)");
  kick->add_option("user", opts->user, "User name")->required();
  kick->add_option("--socket", opts->socket, "Server control socket")->capture_default_str();
  kick->callback([opts, &ctx] {
    auto r = ask(*opts, control::Kick{opts->user, std::nullopt}, ctx, ctx.exit_code);
    if (r) ctx.out << "kicked " << r->kicked << " session(s)\n";
  });

  auto* disable = with_socket(
      app.add_subcommand("disable-user",
                         "Kick a user and refuse their logins until enable-user (in memory: "
                         "a restart forgets it; set enabled = false to make it permanent)"),
      *opts);
  disable->add_option("user", opts->user, "User name")->required();
  disable->callback([opts, &ctx] { ctx.exit_code = switch_user(*opts, true, ctx); });

  auto* enable = with_socket(
      app.add_subcommand("enable-user", "Let a user disabled with disable-user log in again"),
      *opts);
  enable->add_option("user", opts->user, "User name")->required();
  enable->callback([opts, &ctx] { ctx.exit_code = switch_user(*opts, false, ctx); });

  auto* blocked = with_socket(
      app.add_subcommand("list-blocked",
                         "List source addresses locked out after failed logins (brute_force.*)"),
      *opts);
  blocked->add_flag("--json", opts->json, "Print JSON");
  blocked->callback([opts, &ctx] { ctx.exit_code = list_blocked(*opts, ctx); });

  auto* unblock_cmd = with_socket(
      app.add_subcommand("unblock", "Lift the lockout of one address (or of all with --all)"),
      *opts);
  unblock_cmd->add_option("ip", opts->ip, "IPv4 address, IPv6 address or IPv6 /64");
  unblock_cmd->add_flag("--all", opts->all, "Lift every lockout");
  unblock_cmd->callback([opts, &ctx] { ctx.exit_code = unblock(*opts, ctx); });
}

}  // namespace qeli::cli
