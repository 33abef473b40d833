// qeli show-identity [-c FILE] [--identity-dir DIR] — each profile's public key (the key
// clients pin), creating missing keys.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "base/bytes.h"
#include "cli/commands.h"
#include "cli/provisioning.h"
#include "config/identity_store.h"
#include "config/limits.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string config = config::kDefaultServerConfig;
  std::string identity_dir = config::kDefaultIdentityDir;
};

int run(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  config::IdentityStore store(o.identity_dir, ctx.rng);
  int rc = kExitOk;
  for (const auto& p : cfg->profiles) {
    auto id = store.load_or_create(p.name, p.identity_key);
    if (!id) {
      ctx.err << "profile " << p.name << ": " << id.error().detail << "\n";
      rc = kExitFailure;
      continue;
    }
    ctx.out << "[profile:" << p.name << "] " << to_string(p.transport) << " port " << p.bind_port
            << ", mode " << to_string(p.link_mode()) << (p.enabled ? "" : " (disabled)") << "\n"
            << "  public key: " << to_hex(id->public_key) << "\n"
            << "  key file:   " << id->path << (id->created ? " (created now)" : "") << "\n";
  }
  return rc;
}

}  // namespace

void register_show_identity(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "show-identity", "Print each profile's public key (what clients pin), creating missing keys");
  cmd->add_option("-c,--config", opts->config, "Server config")->capture_default_str();
  cmd->add_option("--identity-dir", opts->identity_dir,
                  "Directory of <profile>.key files (unless a profile sets identity_key)")
      ->capture_default_str();
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
