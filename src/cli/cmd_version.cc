// qeli version
#include <CLI/CLI.hpp>

#include <ostream>

#include "cli/commands.h"

namespace qeli::cli {

void register_version(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("version", "Print the qeli version");
  cmd->callback([&ctx] {
    ctx.out << "qeli " << QELI_VERSION << " (protocol: qeli 0.7.16)\n";
    ctx.exit_code = kExitOk;
  });
}

}  // namespace qeli::cli
