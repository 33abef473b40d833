// qeli show-identity [-c FILE] [--identity-dir DIR] — each profile's public key (the key
// clients pin), from the keys the server uses: the config's auth.identity_dir (or a
// profile's identity_key) unless --identity-dir says otherwise. A missing key of an
// enabled profile in the config's own directory is created as the server creates it at
// start-up (IdentityStore::load_or_create), as 0.7.16's show-identity does: its package
// and guides run it before the first start to learn the key to pin. With --identity-dir
// (which may be mistyped) or for a disabled profile it only reads: exit 1 and "none yet".
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
  std::string identity_dir;  // empty: the config's auth.identity_dir
};

int run(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  config::IdentityStore store(identity_dir_for(o.identity_dir, *cfg), ctx.rng);
  int rc = kExitOk;
  for (const auto& p : cfg->profiles) {
    ctx.out << "[profile:" << p.name << "] " << to_string(p.transport) << " port " << p.bind_port
            << ", mode " << to_string(p.link_mode()) << (p.enabled ? "" : " (disabled)") << "\n";
    // Made only where the server will read it: the config's own directory and an enabled
    // profile. A --identity-dir (perhaps mistyped) or a disabled profile is only read, so
    // a key the server never serves is never shown as the one to pin.
    const bool create = o.identity_dir.empty() && p.enabled;
    auto id =
        create ? store.load_or_create(p.name, p.identity_key) : store.load(p.name, p.identity_key);
    if (!id) {
      rc = kExitFailure;
      if (id.error().code == config::IdentityError::kMissing) {
        ctx.out << "  public key: none yet (" << store.path_for(p.name, p.identity_key)
                << " does not exist: the server creates it when it first starts this profile"
                << (p.enabled ? "; show-identity without --identity-dir makes it there" : "")
                << ")\n";
      } else {
        ctx.err << "profile " << p.name << ": " << id.error().detail << "\n";
      }
      continue;
    }
    ctx.out << "  public key: " << to_hex(id->public_key) << "\n"
            << "  key file:   " << id->path << (id->created ? " (created now)" : "") << "\n";
  }
  return rc;
}

}  // namespace

void register_show_identity(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "show-identity",
      "Print each profile's public key (what clients pin), creating a missing key as the "
      "server would at start-up (not with --identity-dir)");
  cmd->add_option("-c,--config", opts->config, "Server config")->capture_default_str();
  cmd->add_option("--identity-dir", opts->identity_dir, kIdentityDirHelp);
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
