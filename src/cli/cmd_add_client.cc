// qeli add-client USER — create a user: Argon2id hash appended to the users file, the
// password printed once if generated, optionally a qeli:// link and its QR code.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <istream>
#include <memory>
#include <ostream>

#include "base/bytes.h"
#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/link_issue.h"
#include "cli/provisioning.h"
#include "config/limits.h"
#include "config/profile_link.h"
#include "config/short_id.h"
#include "config/users_file.h"
#include "config/values.h"
#include "crypto/argon2id.h"
#include "crypto/random.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string user;
  std::string config = config::kDefaultServerConfig;
  std::string identity_dir;  // empty: the config's auth.identity_dir
  bool password_stdin = false;
  std::string password;  // -p/--password (0.7.16's flag)
  std::vector<std::string> profiles;
  std::string static_ip;
  std::uint32_t max_sessions = 0;
  bool link = false;
  std::string host;
  std::string link_profile;
  std::string label;
  bool no_qr = false;
  bool qr_invert = false;
  bool own_short_id = false;
  std::string socket = control::kDefaultSocketPath;
};

LinkOptions link_options(const Options& o) {
  return LinkOptions{o.host, o.link_profile, o.label, o.identity_dir, o.no_qr, o.qr_invert};
}

bool allowed_on(const std::vector<std::string>& profiles, const std::string& name) {
  return profiles.empty() || std::find(profiles.begin(), profiles.end(), name) != profiles.end();
}

// Checks everything that can be checked before the users file is touched.
bool precheck(const Options& o, const config::ServerConfig& cfg, Context& ctx,
              std::optional<config::Ipv4Addr>& static_ip, LinkPlan& plan) {
  if (!config::is_valid_object_name(o.user)) {
    ctx.err << "user names are 1..64 of letters, digits, - _ . @\n";
    return false;
  }
  if (cfg.find_user(o.user) != nullptr) {
    ctx.err << "user " << o.user << " already exists\n";
    return false;
  }
  for (const auto& p : o.profiles) {
    if (cfg.find_profile(p) == nullptr) {
      ctx.err << "no [profile:" << p << "] in " << o.config << "\n";
      return false;
    }
  }
  if (!o.static_ip.empty()) {
    static_ip = config::Ipv4Addr::parse(o.static_ip);
    if (!static_ip) {
      ctx.err << "--static-ip " << o.static_ip << " is not an IPv4 address\n";
      return false;
    }
    bool fits = false;
    for (const auto& p : cfg.profiles) {
      fits = fits || (allowed_on(o.profiles, p.name) && p.pool.cidr.is_usable_host(*static_ip) &&
                      *static_ip != p.tun.address);
    }
    for (const auto& u : cfg.users) fits = fits && !(u.static_ip && *u.static_ip == *static_ip);
    if (!fits) {
      ctx.err << "--static-ip " << o.static_ip
              << " is not a free host address of the user's profile pools\n";
      return false;
    }
  }
  if (!o.link) return true;
  return plan_link(cfg, o.user, o.profiles, link_options(o), ctx, plan);
}

int run(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx, /*create_users_file=*/true);
  if (!cfg) return kExitFailure;
  std::optional<config::Ipv4Addr> static_ip;
  LinkPlan plan;
  if (!precheck(o, *cfg, ctx, static_ip, plan)) return kExitFailure;

  bool generated = false;
  const auto chosen = choose_password(o.password, o.password_stdin, ctx, generated);
  if (!chosen) return kExitFailure;
  const std::string& password = *chosen;
  // The identity is resolved before the user is written, so a failure here leaves the
  // users file untouched.
  if (plan.profile != nullptr && !load_link_key(link_options(o), *cfg, ctx, plan, /*create=*/true))
    return kExitFailure;
  const auto hash = crypto::argon2id_hash(password);
  if (!hash) {
    ctx.err << "Argon2id hashing failed (out of memory?)\n";
    return kExitFailure;
  }
  // A REALITY short id of the user's own: revoked alone (remove it, or disable the
  // user), so one leaked link does not expose every user of the profile.
  std::vector<std::string> own_ids;
  if (o.own_short_id) {
    std::array<std::uint8_t, 8> id{};
    do {
      ctx.rng.fill(id);
    } while (!config::parse_short_id(to_hex(id)));
    own_ids.push_back(to_hex(id));
    plan.target.reality_short_id = own_ids.back();
  }
  const std::string users_path = cfg->users_file_path();
  const auto st = config::append_user(
      users_path, config::NewUser{o.user, *hash, o.profiles, static_ip, o.max_sessions, own_ids});
  if (!st.ok()) {
    ctx.err << st.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "Added user " << o.user << " to " << users_path << "\n";
  if (!own_ids.empty()) ctx.out << "REALITY short id of " << o.user << ": " << own_ids[0] << "\n";
  if (generated) ctx.out << "Password (shown once): " << password << "\n";
  // A running server learns of the user at once, as with the other user commands.
  const auto reloaded = reload_server(o.socket, ctx);
  if (reloaded && reloaded->ok) {
    ctx.out << "The running server reloaded its users: " << o.user << " can connect now\n";
  } else if (reloaded) {
    ctx.err << "the server refused to reload (its config has errors: qeli check-config " << o.config
            << "); " << o.user << " can connect once it reloads\n";
  } else {
    ctx.out << "No running server answered on " << o.socket
            << ". Reload the server to apply: systemctl reload qeli-server (or send the server "
               "SIGHUP)\n";
  }
  if (plan.profile != nullptr) print_link(link_options(o), plan, o.user, password, ctx);
  return kExitOk;
}

}  // namespace

void register_add_client(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("add-client",
                         "Add a VPN user (Argon2id hash appended to the users file), optionally "
                         "printing a qeli:// link and QR code");
  cmd->add_option("user", opts->user, "User name")->required();
  cmd->add_option("-c,--config", opts->config, "Server config")->capture_default_str();
  auto* from_stdin =
      cmd->add_flag("--password-stdin", opts->password_stdin,
                    "Read the password from the first line of standard input (default: "
                    "generate one and print it once)");
  cmd->add_option("-p,--password", opts->password, kPasswordFlagHelp)->excludes(from_stdin);
  cmd->add_option("--profiles", opts->profiles, "Profiles the user may use (default: all)")
      ->delimiter(',');
  cmd->add_option("--static-ip", opts->static_ip, "Fixed tunnel IPv4 address");
  cmd->add_option("--max-sessions", opts->max_sessions,
                  "Concurrent devices (0 = group default / unlimited)")
      ->check(CLI::Range(0U, 1000000U));
  auto* link = cmd->add_flag("--link", opts->link, "Print a qeli:// link and its QR code");
  cmd->add_option("--host", opts->host, "Address clients dial: HOST[:PORT] or [IPv6][:PORT]")
      ->needs(link);
  cmd->add_option("--link-profile", opts->link_profile,
                  "Profile for the link (default: first of --profiles, else the first profile)")
      ->needs(link);
  cmd->add_option("--label", opts->label, "Link label (default: USER@PROFILE)")->needs(link);
  cmd->add_flag("--no-qr", opts->no_qr, "Print the link without a QR code")->needs(link);
  cmd->add_flag("--qr-invert", opts->qr_invert, "QR code for light-background terminals")
      ->needs(link);
  cmd->add_flag("--own-short-id", opts->own_short_id,
                "Give the user a REALITY short id of their own (reality_short_ids), used in "
                "the link instead of the profile's shared one");
  cmd->add_option("--identity-dir", opts->identity_dir, kIdentityDirHelp);
  cmd->add_option("--socket", opts->socket, "Server control socket (to apply the change live)")
      ->capture_default_str();
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
