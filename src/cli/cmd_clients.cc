// qeli list-clients / qeli kick USER / qeli stats — thin clients of the server's control
// socket.
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
  bool json = false;
};

int call_and_check(const Options& o, const nlohmann::json& req, Context& ctx, nlohmann::json& out) {
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
          << "RX PKTS" << std::setw(12) << "TX PKTS"
          << "CLIENT\n";
  for (const auto& c : r["clients"]) {
    ctx.out << std::left << std::setw(10) << c.value("profile", "") << std::setw(16)
            << c.value("username", "") << std::setw(16) << c.value("tunnel_ip", "") << std::setw(22)
            << c.value("peer", "") << std::setw(10) << c.value("connected_secs", 0) << std::setw(12)
            << c.value("rx_packets", 0ULL) << std::setw(12) << c.value("tx_packets", 0ULL)
            << c.value("client_version", "") << " " << c.value("client_platform", "") << "\n";
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

}  // namespace

void register_clients(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* list = app.add_subcommand("list-clients", "List the live sessions of a running server");
  list->add_option("--socket", opts->socket, "Server control socket")->capture_default_str();
  list->add_flag("--json", opts->json, "Print JSON");
  list->callback([opts, &ctx] { ctx.exit_code = list_clients(*opts, ctx); });

  auto* st =
      app.add_subcommand("stats", "Per-profile counters of a running server (pre-auth drops)");
  st->add_option("--socket", opts->socket, "Server control socket")->capture_default_str();
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
}

}  // namespace qeli::cli
