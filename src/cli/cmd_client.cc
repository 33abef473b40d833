// qeli client [-c FILE | 'qeli://…'] — run the VPN client in the foreground.
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <ostream>

#include "cli/commands.h"
#include "client/client.h"
#include "client/state_paths.h"
#include "client/status_service.h"
#include "config/client_config.h"
#include "config/link.h"
#include "sys/log_output.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string config_path = "/etc/qeli/client.conf";
  std::string link;
  std::string known_hosts;
  std::string device_id_file;
  bool cleanup = false;
  std::string state_dir;
  std::optional<std::string> status_socket;  // unset = client/status_service.h's default
};

int run(const Options& o, Context& ctx) {
  // Journal-aware from the first line; [logging] once the config is read.
  (void)sys::configure_logging({});
  config::ClientLoad load;
  if (!o.link.empty()) {
    auto link = config::parse_link(o.link);
    if (!link.ok()) {
      ctx.err << "qeli client: bad link: " << link.error() << "\n";
      return kExitFailure;
    }
    load = config::client_config_from_link(*link);
  } else {
    load = config::load_client_config(o.config_path);
  }
  for (const auto& f : load.findings.all()) ctx.err << f.to_string() << "\n";
  if (!load.ok()) {
    ctx.err << "qeli client: refusing to start with the errors above\n";
    return kExitFailure;
  }
  if (auto st = sys::configure_logging(load.config.logging.options()); !st.ok()) {
    ctx.err << "qeli client: [logging] file: " << st.error() << "\n";
    return kExitFailure;
  }
  client::ClientOptions co;
  co.config = load.config;
  co.known_hosts_path = o.known_hosts;
  co.device_id_path = o.device_id_file;
  if (!o.state_dir.empty()) {
    // Everything the client keeps between runs, under one directory.
    if (co.known_hosts_path.empty()) co.known_hosts_path = o.state_dir + "/known_hosts";
    if (co.device_id_path.empty()) co.device_id_path = o.state_dir + "/device-id";
  }
  // Per device and per network namespace; a run and its --cleanup compute the same.
  const auto state = client::current_state_paths(o.state_dir, load.config.dev);
  co.journal_path = state.journal;
  co.resolv_backup_path = state.resolv_backup;
  if (o.cleanup) return client::cleanup_host(co);
  co.status_socket =
      o.status_socket ? *o.status_socket : client::current_status_socket_path(load.config.dev);
  return client::run_client(co);
}

}  // namespace

void register_client(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("client", "Run the VPN client from a config file or a qeli:// link");
  cmd->add_option("-c,--config", opts->config_path, "Client config file ([qeli] section)")
      ->capture_default_str();
  cmd->add_option("link", opts->link, "A qeli:// link (instead of -c)");
  cmd->add_option(
      "--known-hosts", opts->known_hosts,
      "TOFU store of server keys (default $QELI_KNOWN_HOSTS or /var/lib/qeli/known_hosts)");
  cmd->add_option("--device-id-file", opts->device_id_file,
                  "Persistent device id (default $QELI_DEVICE_ID_FILE or /var/lib/qeli/device-id)");
  cmd->add_option("--state-dir", opts->state_dir,
                  "Directory for known_hosts, device-id, the host journal and the resolv.conf "
                  "backup (default /var/lib/qeli; the last two are named per TUN and per "
                  "network namespace)");
  cmd->add_option("--status-socket", opts->status_socket,
                  "Socket for `qeli status` (default /run/qeli/client-<dev>[@netns].sock; "
                  "'' = none)");
  cmd->add_flag("--cleanup", opts->cleanup,
                "Undo what a killed client left on the host (routes, DNS, kill switch) and exit");
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
