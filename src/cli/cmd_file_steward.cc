// qeli file-steward --fd N --config PATH --users PATH --history DIR — not for people: the
// root helper `qeli server --user` starts before its privilege drop, to write the config,
// the users file and the config history for it (server/file_steward.h). Hidden from help.
#include <linux/capability.h>

#include <CLI/CLI.hpp>

#include <memory>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "server/file_steward.h"
#include "sys/privilege.h"

namespace qeli::cli {
namespace {

struct StewardOptions {
  int fd = -1;
  server::StewardScope scope;
};

int run(const StewardOptions& o) {
  // CAP_CHOWN only: a replaced file keeps its group (root:qeli) even where the directory
  // does not pass its group on. Writing in root's own directories needs no capability.
  if (auto st = sys::drop_capabilities_except({CAP_CHOWN}); !st.ok()) {
    spdlog::error("file steward: {}", st.error());
    return kExitFailure;
  }
  return server::run_file_steward(o.fd, o.scope) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void register_file_steward(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<StewardOptions>();
  auto* cmd = app.add_subcommand("file-steward", "The server's root file helper (internal)");
  cmd->group("");  // hidden
  cmd->add_option("--fd", o->fd, "The socket to the server")->required();
  cmd->add_option("--config", o->scope.config_path, "The server config")->required();
  cmd->add_option("--users", o->scope.users_path, "The users file")->required();
  cmd->add_option("--history", o->scope.history_dir, "The config history directory")->required();
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o); });
}

}  // namespace qeli::cli
