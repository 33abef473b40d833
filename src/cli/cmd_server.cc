// qeli server [-c FILE] [--identity-dir DIR] — run the VPN server in the foreground.
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/commands.h"
#include "server/server.h"

namespace qeli::cli {

void register_server(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<server::ServerOptions>();
  auto* cmd = app.add_subcommand("server", "Run the VPN server (every enabled [profile:*])");
  cmd->add_option("-c,--config", opts->config_path, "Server config file")->capture_default_str();
  cmd->add_option("--identity-dir", opts->identity_dir,
                  "Directory of the per-profile identity keys (default: the config's "
                  "auth.identity_dir, /etc/qeli/identity)");
  cmd->add_option("--socket", opts->control_socket,
                  "Local control socket for list-clients/kick (empty = none)")
      ->capture_default_str();
  cmd->add_option("--user", opts->run_as,
                  "After start-up, become this user with only CAP_NET_ADMIN (the systemd unit "
                  "uses qeli)");
  cmd->add_option("--usage-db", opts->usage_db,
                  "SQLite file of the per-user traffic totals (data_limit_gb, qeli usage); "
                  "empty = in memory only")
      ->capture_default_str();
  cmd->callback([opts, &ctx] { ctx.exit_code = server::run_server(*opts); });
}

}  // namespace qeli::cli
