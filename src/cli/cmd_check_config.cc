// qeli check-config [--client] [FILE] (or -c FILE) — the start-up validation without
// starting anything.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "cli/commands.h"
#include "config/client_config.h"
#include "config/limits.h"
#include "config/server_config.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string file;
  bool client = false;
};

int run(const Options& o, Context& ctx) {
  const config::Findings findings = o.client ? config::load_client_config(o.file).findings
                                             : config::load_server_config(o.file).findings;
  for (const auto& f : findings.all()) ctx.out << f.to_string() << "\n";
  const auto errors = findings.count(config::Severity::kError);
  const auto unknown = findings.count(config::Severity::kUnknownKey);
  const auto warnings = findings.count(config::Severity::kWarning);
  if (errors + unknown == 0) {
    ctx.out << o.file << ": OK";
    if (warnings > 0)
      ctx.out << " (" << warnings << " warning" << (warnings == 1 ? "" : "s") << ")";
    ctx.out << "\n";
    return kExitOk;
  }
  ctx.out << o.file << ": " << errors << " error(s), " << unknown << " unknown key(s), " << warnings
          << " warning(s)\n";
  return kExitFailure;
}

}  // namespace

void register_check_config(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "check-config",
      "Validate a config file (and the users file it names) exactly as start-up does; "
      "exit 1 on any error or unknown key");
  auto* file =
      cmd->add_option("file", opts->file,
                      "Config file (default: /etc/qeli/server.conf, with --client client.conf)");
  // `-c` as `qeli server -c FILE` takes it: the same habit works here.
  auto* dash_c = cmd->add_option("-c,--config", opts->file, "Config file (instead of FILE)");
  file->excludes(dash_c);
  cmd->add_flag("--client", opts->client, "The file is a client config ([qeli] section)");
  cmd->callback([opts, &ctx] {
    // No file: the default one, as 0.7.16 (whose upgrade notes say "run qeli check-config").
    if (opts->file.empty()) {
      opts->file = opts->client ? config::kDefaultClientConfig : config::kDefaultServerConfig;
    }
    ctx.exit_code = run(*opts, ctx);
  });
}

}  // namespace qeli::cli
