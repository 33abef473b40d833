// qeli client [-c FILE] [LINK | - | --link-file FILE] — run the VPN client in the
// foreground (cli/client_settings.h: where the settings come from); --cleanup undoes what
// crashed clients left on the host (client/host_cleanup.h).
#include <CLI/CLI.hpp>

#include <linux/capability.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/client_settings.h"
#include "cli/commands.h"
#include "client/client.h"
#include "client/host_cleanup.h"
#include "client/state_paths.h"
#include "client/status_service.h"
#include "config/client_config.h"
#include "sys/log_output.h"
#include "sys/privilege_check.h"

namespace qeli::cli {
namespace {

struct Options {
  ClientSource source;
  std::string known_hosts;
  std::string device_id_file;
  bool cleanup = false;
  std::string state_dir;
  std::optional<std::string> status_socket;  // unset = client/status_service.h's default
};

const std::vector<sys::PrivilegeNeed>& client_needs() {
  static const std::vector<sys::PrivilegeNeed> needs = {
      {CAP_NET_ADMIN, "create the TUN device and change routes, DNS and the kill switch"}};
  return needs;
}

// The device id: --device-id-file, else $QELI_DEVICE_ID_FILE, else per dev and namespace.
std::string device_id_path(const Options& o, const client::StatePaths& state) {
  if (!o.device_id_file.empty()) return o.device_id_file;
  if (const char* p = std::getenv("QELI_DEVICE_ID_FILE"); p != nullptr && *p != '\0') return p;
  return state.device_id;
}

int cleanup(const Options& o, Context& ctx) {
  if (auto why = sys::missing_privileges("qeli client --cleanup", client_needs())) {
    ctx.err << "qeli client: " << *why << "\n";
    return kExitFailure;
  }
  client::CleanupOptions co;
  if (!o.state_dir.empty()) co.state_dirs.push_back(o.state_dir);
  // A config or link given: its journal too (the scan finds it as well unless its state
  // dir is elsewhere). Without one, --cleanup needs no config at all.
  const auto& src = o.source;
  if (src.config_given || !src.link_argument.empty() || !src.link_file.empty()) {
    auto settings = load_client_settings(src, ctx.in);
    if (settings.error.empty() && settings.load.ok()) {
      co.journals.push_back(
          client::current_state_paths(o.state_dir, settings.load.config.dev).journal);
    }
  }
  return client::cleanup_host(co);
}

int run(const Options& o, Context& ctx) {
  // Journal-aware from the first line; [logging] once the config is read.
  (void)sys::configure_logging({});
  if (o.cleanup) return cleanup(o, ctx);
  auto settings = load_client_settings(o.source, ctx.in);
  if (!settings.error.empty()) {
    ctx.err << "qeli client: " << settings.error << "\n";
    return kExitFailure;
  }
  const config::ClientLoad& load = settings.load;
  for (const auto& f : load.findings.all()) ctx.err << f.to_string() << "\n";
  if (!load.ok()) {
    ctx.err << "qeli client: refusing to start with the errors above\n";
    return kExitFailure;
  }
  if (auto st = sys::configure_logging(load.config.logging.options()); !st.ok()) {
    ctx.err << "qeli client: [logging] file: " << st.error() << "\n";
    return kExitFailure;
  }
  for (const auto& w : settings.warnings) spdlog::warn("{}", w);
  if (auto why = sys::missing_privileges("qeli client", client_needs())) {
    spdlog::error("{}", *why);
    return kExitFailure;
  }
  const std::string state_dir = o.state_dir.empty() ? client::kDefaultStateDir : o.state_dir;
  if (auto why = sys::unwritable_directory(
          state_dir, "the host-change journal, device id and known_hosts live there")) {
    spdlog::error("{} (--state-dir)", *why);
    return kExitFailure;
  }
  client::ClientOptions co;
  co.config = load.config;
  co.known_hosts_path = o.known_hosts;
  if (!o.state_dir.empty() && co.known_hosts_path.empty()) {
    co.known_hosts_path = o.state_dir + "/known_hosts";  // everything under one directory
  }
  // Per device and per network namespace; a run and its --cleanup compute the same.
  const auto state = client::current_state_paths(o.state_dir, load.config.dev);
  co.device_id_path = device_id_path(o, state);
  co.journal_path = state.journal;
  co.resolv_backup_path = state.resolv_backup;
  co.status_socket =
      o.status_socket ? *o.status_socket : client::current_status_socket_path(load.config.dev);
  return client::run_client(co);
}

}  // namespace

void register_client(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  opts->source.config_path = "/etc/qeli/client.conf";
  auto* cmd = app.add_subcommand(
      "client",
      "Run the VPN client from a config file and/or a qeli:// link (argument, - for standard "
      "input, or --link-file)");
  auto* conf =
      cmd->add_option("-c,--config", opts->source.config_path,
                      "Client config file ([qeli] section); with a link, the link says where "
                      "and who, the file how this host is set up")
          ->capture_default_str();
  cmd->add_option("link", opts->source.link_argument,
                  "A qeli:// link, or - to read it from standard input (an argument is visible "
                  "in `ps`)");
  cmd->add_option("--link-file", opts->source.link_file,
                  "Read the qeli:// link from this file (keep it mode 600)");
  cmd->add_option(
      "--known-hosts", opts->known_hosts,
      "TOFU store of server keys (default $QELI_KNOWN_HOSTS or /var/lib/qeli/known_hosts)");
  cmd->add_option("--device-id-file", opts->device_id_file,
                  "Persistent device id (default $QELI_DEVICE_ID_FILE, else per dev and network "
                  "namespace in the state dir: device-id for vpn0, device-id-<dev>[@netns])");
  cmd->add_option("--state-dir", opts->state_dir,
                  "Directory for known_hosts, device ids, the host journal and the resolv.conf "
                  "backup (default /var/lib/qeli; all but known_hosts are named per TUN and per "
                  "network namespace)");
  cmd->add_option("--status-socket", opts->status_socket,
                  "Socket for `qeli status` (default /run/qeli/client-<dev>[@netns].sock; "
                  "'' = none)");
  cmd->add_flag("--cleanup", opts->cleanup,
                "Undo what crashed clients left on this host in this network namespace "
                "(routes, DNS, kill switch), however they were started, and exit; needs no "
                "config");
  cmd->callback([opts, conf, &ctx] {
    opts->source.config_given = conf->count() > 0;
    ctx.exit_code = run(*opts, ctx);
  });
}

}  // namespace qeli::cli
