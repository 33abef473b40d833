// qeli list-clients / kick / disable-user / enable-user / list-blocked / unblock / stats —
// thin clients of the server's control socket (server/control_handler.h; 0.7.16 §6.1).
#include <CLI/CLI.hpp>

#include <iomanip>
#include <memory>
#include <ostream>

#include "cli/commands.h"
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

int call_and_check(const Options& o, const nlohmann::json& req, Context& ctx, nlohmann::json& out) {
  if (o.socket.empty()) {
    ctx.err << "qeli: no control socket given (--socket '')\n";
    return kExitUsage;
  }
  auto r = control::call(o.socket, req);
  if (!r.ok()) {
    ctx.err << "qeli: " << r.error() << "\n";
    return kExitFailure;
  }
  out = *r;
  if (!out.value("ok", false)) {
    ctx.err << "qeli: server refused: " << out.value("error", std::string("?")) << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

int list_clients(const Options& o, Context& ctx) {
  nlohmann::json r;
  if (const int rc = call_and_check(o, {{"cmd", "list-clients"}}, ctx, r); rc != kExitOk) return rc;
  if (o.json) {
    ctx.out << r["clients"].dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << std::left << std::setw(10) << "PROFILE" << std::setw(16) << "USER" << std::setw(16)
          << "TUNNEL IP" << std::setw(22) << "PEER" << std::setw(10) << "SECONDS" << std::setw(12)
          << "RX PKTS" << std::setw(14) << "RX BYTES" << std::setw(12) << "TX PKTS" << std::setw(14)
          << "TX BYTES"
          << "CLIENT\n";
  for (const auto& c : r["clients"]) {
    ctx.out << std::left << std::setw(10) << c.value("profile", "") << std::setw(16)
            << c.value("username", "") << std::setw(16) << c.value("tunnel_ip", "") << std::setw(22)
            << c.value("peer", "") << std::setw(10) << c.value("connected_secs", 0) << std::setw(12)
            << c.value("rx_packets", 0ULL) << std::setw(14) << c.value("rx_bytes", 0ULL)
            << std::setw(12) << c.value("tx_packets", 0ULL) << std::setw(14)
            << c.value("tx_bytes", 0ULL) << c.value("client_version", "") << " "
            << c.value("client_platform", "") << "\n";
  }
  ctx.out << r["clients"].size() << " client(s)\n";
  return kExitOk;
}

// One "profile counter value" line per non-zero counter (all of them with --json).
int stats(const Options& o, Context& ctx) {
  nlohmann::json r;
  if (const int rc = call_and_check(o, {{"cmd", "stats"}}, ctx, r); rc != kExitOk) return rc;
  if (o.json) {
    ctx.out << r["profiles"].dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& p : r["profiles"]) {
    const std::string name = p.value("profile", "");
    for (const auto& [key, value] : p.items()) {
      if (key == "profile" || !value.is_number() || value.get<std::uint64_t>() == 0) continue;
      ctx.out << std::left << std::setw(12) << name << std::setw(28) << key << value.dump() << "\n";
    }
  }
  return kExitOk;
}

int list_blocked(const Options& o, Context& ctx) {
  nlohmann::json r;
  if (const int rc = call_and_check(o, {{"cmd", "list-blocked"}}, ctx, r); rc != kExitOk) return rc;
  const nlohmann::json blocked = r.value("blocked", nlohmann::json::array());
  if (o.json) {
    ctx.out << blocked.dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << std::left << std::setw(18) << "IP" << std::setw(14) << "SECONDS LEFT"
          << "FAILURES\n";
  for (const auto& b : blocked) {
    ctx.out << std::left << std::setw(18) << b.value("ip", "") << std::setw(14)
            << b.value("seconds_left", 0LL) << b.value("failures", 0U) << "\n";
  }
  ctx.out << blocked.size() << " blocked address(es)\n";
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
  nlohmann::json r;
  const nlohmann::json req = o.all ? nlohmann::json{{"cmd", "unblock-all"}}
                                   : nlohmann::json{{"cmd", "unblock"}, {"ip", o.ip}};
  if (const int rc = call_and_check(o, req, ctx, r); rc != kExitOk) return rc;
  ctx.out << (o.all ? std::string("unblocked every address") : "unblocked " + o.ip) << "\n";
  return kExitOk;
}

// disable-user USER / enable-user USER.
int switch_user(const Options& o, bool disable, Context& ctx) {
  nlohmann::json r;
  const nlohmann::json req = {{"cmd", disable ? "disable-user" : "enable-user"},
                              {"username", o.user}};
  if (const int rc = call_and_check(o, req, ctx, r); rc != kExitOk) return rc;
  if (disable) {
    ctx.out << "disabled '" << o.user << "' until `qeli enable-user " << o.user
            << "` or a server restart; kicked " << r.value("kicked", 0) << " session(s)\n";
  } else {
    if (r.value("was_disabled", false)) {
      ctx.out << "enabled '" << o.user << "'\n";
    } else {
      ctx.out << "'" << o.user << "' was not disabled\n";
    }
  }
  if (r.contains("warning")) ctx.err << "qeli: " << r.value("warning", "") << "\n";
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
    nlohmann::json r;
    ctx.exit_code = call_and_check(*opts, {{"cmd", "kick"}, {"username", opts->user}}, ctx, r);
    if (ctx.exit_code == kExitOk) ctx.out << "kicked " << r.value("kicked", 0) << " session(s)\n";
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
  unblock_cmd->add_option("ip", opts->ip, "IPv4 address");
  unblock_cmd->add_flag("--all", opts->all, "Lift every lockout");
  unblock_cmd->callback([opts, &ctx] { ctx.exit_code = unblock(*opts, ctx); });
}

}  // namespace qeli::cli
