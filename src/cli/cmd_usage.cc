// qeli usage [--reset USER] / qeli set-bandwidth USER MBPS — per-user traffic totals and
// limits of a running server (server/traffic_accounts.h), over its control socket.
#include <CLI/CLI.hpp>

#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/text_table.h"
#include "control/api_json.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string socket = control::kDefaultSocketPath;
  std::string reset;
  std::string user;
  double mbps = 0;
  bool json = false;
};

std::string megabytes(std::uint64_t bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / 1e6;
  return s.str();
}

int usage(const Options& o, Context& ctx) {
  int rc = 0;
  if (!o.reset.empty()) {
    if (!ask_server(o.socket, control::ResetUsage{o.reset}, ctx, rc)) return rc;
    ctx.out << "reset the traffic totals of " << o.reset
            << " (a used-up data quota no longer refuses it)\n";
    return kExitOk;
  }
  const auto r = ask_server(o.socket, control::GetUsage{}, ctx, rc);
  if (!r) return rc;
  if (o.json) {
    ctx.out << nlohmann::json(r->users).dump(2) << "\n";
    return kExitOk;
  }
  TextTable t({"USER", "DOWNLOAD MB", "UPLOAD MB", "QUOTA MB", "LIMIT MBIT/S"});
  for (const auto& u : r->users) {
    std::ostringstream limit;
    if (u.limit_mbps > 0) {
      limit << u.limit_mbps << (u.limit_live ? " (set-bandwidth)" : "");
    } else {
      limit << "unlimited";
    }
    t.row(u.username, megabytes(u.down_bytes), megabytes(u.up_bytes),
          u.quota_bytes ? megabytes(*u.quota_bytes) : std::string("none"), limit.str());
  }
  t.print(ctx.out);
  return kExitOk;
}

}  // namespace

void register_usage(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "usage",
      "Per-user traffic totals (kept across restarts), quotas and rate limits of a running "
      "server");
  cmd->add_option("--reset", o->reset, "Set USER's totals back to zero (lifts a used-up quota)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_option("--socket", o->socket, "Server control socket")->capture_default_str();
  cmd->callback([o, &ctx] { ctx.exit_code = usage(*o, ctx); });

  auto* bw = app.add_subcommand(
      "set-bandwidth",
      "Set a user's rate limit now (Mbit/s each direction, shared by all of its sessions; 0 "
      "= unlimited) until the server restarts");
  bw->add_option("user", o->user, "User name")->required();
  bw->add_option("mbps", o->mbps, "Mbit/s (0 = unlimited)")
      ->required()
      ->check(CLI::Range(0.0, 1e6));
  bw->add_option("--socket", o->socket, "Server control socket")->capture_default_str();
  bw->callback([o, &ctx] {
    const auto r =
        ask_server(o->socket, control::SetBandwidth{o->user, o->mbps}, ctx, ctx.exit_code);
    if (!r) return;
    if (r->mbps > 0) {
      ctx.out << o->user << ": " << r->mbps << " Mbit/s each direction, now\n";
    } else {
      ctx.out << o->user << ": unlimited, now\n";
    }
  });
}

}  // namespace qeli::cli
