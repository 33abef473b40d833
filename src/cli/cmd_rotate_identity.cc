// qeli rotate-identity PROFILE — replace a profile's static key. Every client that
// pinned the old key will stop with SERVER KEY MISMATCH until it re-pins.
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
  std::string profile;
  std::string config = config::kDefaultServerConfig;
  std::string identity_dir;  // empty: the config's auth.identity_dir
};

int run(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  const auto* p = cfg->find_profile(o.profile);
  if (p == nullptr) {
    ctx.err << "no [profile:" << o.profile << "] in " << o.config << "\n";
    return kExitFailure;
  }
  config::IdentityStore store(identity_dir_for(o.identity_dir, *cfg), ctx.rng);
  auto id = store.rotate(p->name, p->identity_key);
  if (!id) {
    ctx.err << "profile " << p->name << ": " << id.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "[profile:" << p->name << "] new public key: " << to_hex(id->public_key) << "\n"
          << "  key file: " << id->path << "\n"
          << "Next steps:\n"
          << "  1. restart the server to use it: systemctl restart qeli-server\n"
          << "  2. give every user of profile " << p->name
          << " a new link, which pins the new key: qeli share-link USER --host H[:P]\n"
          << "     (clients with `key =` in their config: set it to the key above; clients "
             "that learned the old key on first use: remove the server's line from their "
             "known_hosts)\n"
          << "Until then those clients stop with SERVER KEY MISMATCH.\n";
  return kExitOk;
}

}  // namespace

void register_rotate_identity(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("rotate-identity",
                                 "Replace a profile's identity key (clients must re-pin)");
  cmd->add_option("profile", opts->profile, "Profile name")->required();
  cmd->add_option("-c,--config", opts->config, "Server config")->capture_default_str();
  cmd->add_option("--identity-dir", opts->identity_dir, kIdentityDirHelp);
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
