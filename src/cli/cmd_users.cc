// User management without editing files by hand (reference §6.1):
//   qeli list-users           every user and group from the config and its users file
//   qeli remove-user USER     delete its [user:USER] section; its live sessions end
//   qeli passwd USER          a new password (generated, or from standard input); its live
//                             sessions end (the client is told its credentials changed)
//   qeli share-link USER      a link with a new device credential (--reset: a new password)
//   qeli show-routes USER     what the server pushes to and routes into the user
//   qeli add-device USER      a credential and link for one device (revoked alone)
//   qeli list-devices [USER]  the devices and their ids
//   qeli revoke-device USER ID  that device's link stops working; its sessions end
// Edits go through config/users_file.h (atomic rename under the file's lock; the format
// stays 0.7.16's), then the running server is told over its control socket: a reload,
// then the user's sessions end. Users defined inline in server.conf are edited there.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <istream>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/link_issue.h"
#include "cli/provisioning.h"
#include "cli/text_table.h"
#include "config/device_issue.h"
#include "config/limits.h"
#include "config/users_file.h"
#include "config/values.h"
#include "control/api_json.h"
#include "crypto/argon2id.h"
#include "server/destination_acl.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string user;
  std::string device;  // add-device: its name; revoke-device: its id
  std::string config = config::kDefaultServerConfig;
  std::string socket = control::kDefaultSocketPath;
  bool json = false;
  bool password_stdin = false;
  std::string password;  // passwd -p
  bool reset = false;    // share-link: a new password instead of a device credential
  LinkOptions link;      // identity_dir empty: the config's auth.identity_dir
};

// The user as the config has it, refusing users that live inline in server.conf.
const config::UserConfig* editable_user(const config::ServerConfig& cfg, const Options& o,
                                        Context& ctx) {
  const auto* u = cfg.find_user(o.user);
  if (u == nullptr) {
    ctx.err << "no user '" << o.user << "' in " << o.config << " or " << cfg.users_file_path()
            << "\n";
    return nullptr;
  }
  if (u->source_file != cfg.users_file_path()) {
    ctx.err << "user '" << o.user << "' is defined inline in " << u->source_file << " (line "
            << u->line << "): edit it there, or move it to " << cfg.users_file_path() << "\n";
    return nullptr;
  }
  return u;
}

// Tells the running server: reload the users, then end the user's sessions with
// "credentials changed". A server that cannot be reached is a note, not a failure: the
// file is already right and the server reads it at its next start or reload.
void tell_server(const Options& o, Context& ctx) {
  const auto reloaded = reload_server(o.socket, ctx);
  if (!reloaded) {
    ctx.err << "note: no running server answered on " << o.socket
            << "; it applies the change when it starts or reloads (systemctl reload "
               "qeli-server)\n";
    return;
  }
  if (!reloaded->ok) {
    ctx.err << "the server refused to reload (its config has errors: qeli check-config " << o.config
            << "); it still runs with the old users\n";
    return;
  }
  // The reload itself ends the sessions whose user was removed or re-passworded, telling
  // each client why (server/reload_verdict.h); a kick after it would count them twice.
  ctx.out << "the server reloaded its users; ended " << reloaded->sessions_ended
          << " live session(s) of " << o.user << "\n";
}

// passwd and share-link: a new password hash in the users file, the server told.
bool change_password(const Options& o, const config::ServerConfig& cfg, const std::string& pw,
                     Context& ctx) {
  const auto hash = crypto::argon2id_hash(pw);
  if (!hash) {
    ctx.err << "Argon2id hashing failed (out of memory?)\n";
    return false;
  }
  if (auto st = config::set_user_password(cfg.users_file_path(), o.user, *hash); !st.ok()) {
    ctx.err << st.error().detail << "\n";
    return false;
  }
  ctx.out << "changed the password of " << o.user << " in " << cfg.users_file_path() << "\n";
  tell_server(o, ctx);
  return true;
}

int passwd(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg || editable_user(*cfg, o, ctx) == nullptr) return kExitFailure;
  bool generated = false;
  const auto pw = choose_password(o.password, o.password_stdin, ctx, generated);
  if (!pw || !change_password(o, *cfg, *pw, ctx)) return kExitFailure;
  if (generated) ctx.out << "New password (shown once): " << *pw << "\n";
  ctx.out << "Give " << o.user << " a new link: qeli share-link " << o.user << " --host H[:P]\n";
  return kExitOk;
}

// The first "link-N" the user has no device of: share-link's default device name.
std::string free_link_name(const config::UserConfig& u) {
  for (int n = 1;; ++n) {
    const std::string name = "link-" + std::to_string(n);
    if (std::none_of(u.devices.begin(), u.devices.end(),
                     [&](const auto& d) { return d.name == name; })) {
      return name;
    }
  }
}

// share-link re-sends a user a working link, as 0.7.16's does, without cutting them off.
// 0.7.16 kept a reversible copy of each password for that; we keep none (only Argon2id
// hashes), so the link carries a new device credential instead (config/device_issue.h):
// the user's password and every earlier link keep working, and this one is revoked alone.
// --reset is 0.7.16's other answer: a new password, every earlier link dead.
int share_link(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  const auto* u = editable_user(*cfg, o, ctx);
  if (u == nullptr) return kExitFailure;
  LinkPlan plan;
  // Everything that can fail is checked before the users file changes.
  if (!plan_link(*cfg, o.user, u->profiles, o.link, ctx, plan) ||
      !load_link_key(o.link, *cfg, ctx, plan, /*create=*/false)) {
    return kExitFailure;
  }
  // A user with a REALITY short id of their own keeps using it (revoked alone).
  if (!u->reality_short_ids.empty()) plan.target.reality_short_id = u->reality_short_ids.front();
  if (o.reset) {
    const std::string pw = generate_password(ctx.rng);
    if (!change_password(o, *cfg, pw, ctx)) return kExitFailure;
    ctx.out << "The old password and every link issued before stop working now.\n";
    print_link(o.link, plan, o.user, pw, ctx);
    return kExitOk;
  }
  const std::string name = o.device.empty() ? free_link_name(*u) : o.device;
  const auto issued = config::issue_device(cfg->users_file_path(), *u, name, ctx.rng);
  if (!issued.ok()) {
    ctx.err << issued.error().detail << "\n";
    return kExitFailure;
  }
  tell_server(o, ctx);
  ctx.out << "A new credential for " << o.user << " as device " << name << " (id " << issued->id
          << "); the password and earlier links keep working. Revoke this link alone with: "
             "qeli revoke-device "
          << o.user << " " << issued->id << "\n";
  print_link(o.link, plan, o.user, issued->credential, ctx);
  return kExitOk;
}

int remove_user(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg || editable_user(*cfg, o, ctx) == nullptr) return kExitFailure;
  if (auto st = config::remove_user(cfg->users_file_path(), o.user); !st.ok()) {
    ctx.err << st.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "removed " << o.user << " from " << cfg->users_file_path() << "\n";
  tell_server(o, ctx);
  return kExitOk;
}

std::string join(const std::vector<std::string>& v, const char* empty) {
  if (v.empty()) return empty;
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

template <class C>
std::vector<std::string> strings_of(const std::vector<C>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.to_string());
  return out;
}

int list_users(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& u : cfg->users) {
      out.push_back({{"name", u.name},
                     {"enabled", u.enabled},
                     {"group", u.group},
                     {"profiles", u.profiles},
                     {"static_ip", u.static_ip ? u.static_ip->to_string() : ""},
                     {"max_sessions", u.max_sessions},
                     {"bandwidth_limit_mbps", u.bandwidth_limit_mbps},
                     {"data_limit_gb", u.data_limit_gb},
                     {"expire_at", u.expire_at ? nlohmann::json(*u.expire_at) : nlohmann::json()},
                     {"source_file", u.source_file}});
    }
    ctx.out << out.dump(2) << "\n";
    return kExitOk;
  }
  TextTable t(
      {"USER", "ENABLED", "GROUP", "PROFILES", "LIMIT MBPS", "QUOTA GB", "EXPIRES", "FILE"});
  for (const auto& u : cfg->users) {
    t.row(u.name, u.enabled ? "yes" : "no", u.group.empty() ? "-" : u.group,
          join(u.profiles, "all"), u.bandwidth_limit_mbps, u.data_limit_gb,
          u.expire_at ? std::to_string(*u.expire_at) : std::string("never"), u.source_file);
  }
  t.print(ctx.out);
  ctx.out << cfg->users.size() << " user(s), " << cfg->groups.size() << " group(s)\n";
  return kExitOk;
}

int show_routes(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  const auto* u = cfg->find_user(o.user);
  if (u == nullptr) {
    ctx.err << "no user '" << o.user << "'\n";
    return kExitFailure;
  }
  const config::GroupConfig* g = nullptr;
  for (const auto& gr : cfg->groups) {
    if (gr.name == u->group) g = &gr;
  }
  for (const auto& p : cfg->profiles) {
    if (!p.enabled || (!u->profiles.empty() && std::find(u->profiles.begin(), u->profiles.end(),
                                                         p.name) == u->profiles.end())) {
      continue;
    }
    ctx.out << "[profile:" << p.name << "] pool " << p.pool.cidr.to_string() << ", server "
            << p.tun.address.to_string() << "\n";
    const auto& routes = u->routes.empty() ? p.routing.routes : u->routes;
    ctx.out << "  pushed routes (" << (u->routes.empty() ? "the profile's" : "the user's own")
            << "):";
    if (routes.empty()) ctx.out << " none (split tunnel: the pool only)";
    ctx.out << "\n";
    for (const auto& r : routes) {
      ctx.out << "    " << r.cidr.to_string() << " via "
              << (r.gateway ? r.gateway->to_string() : p.tun.address.to_string()) << " metric "
              << r.metric.value_or(100) << "\n";
    }
  }
  std::vector<std::string> behind = strings_of(u->client_subnets);
  for (const auto& n : u->client_subnets6) behind.push_back(n.to_string());
  ctx.out << "routed into this client (client_subnet): " << join(behind, "none") << "\n";
  // The one rule of which list applies (server/destination_acl.h), both families.
  const server::DestinationAcl acl = server::DestinationAcl::for_user(u, g);
  std::vector<std::string> nets = strings_of(acl.networks());
  for (const auto& n : acl.networks6()) nets.push_back(n.to_string());
  const bool own = !u->allowed_networks.empty() || !u->allowed_networks6.empty();
  ctx.out << "destinations allowed (allowed_networks of "
          << (acl.unrestricted() ? std::string("nobody: any")
              : own              ? std::string("the user")
                                 : "group " + g->name)
          << "): " << join(nets, "any") << "\n";
  return kExitOk;
}

// add-device: a credential for one device, hashed into the user's section, shown once
// inside the link (config/device_credential.h).
int add_device(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  const auto* u = editable_user(*cfg, o, ctx);
  if (u == nullptr) return kExitFailure;
  LinkPlan plan;
  const bool link = !o.link.host.empty();
  if (link && (!plan_link(*cfg, o.user, u->profiles, o.link, ctx, plan) ||
               !load_link_key(o.link, *cfg, ctx, plan, /*create=*/false))) {
    return kExitFailure;
  }
  if (!u->reality_short_ids.empty()) plan.target.reality_short_id = u->reality_short_ids.front();
  const auto issued = config::issue_device(cfg->users_file_path(), *u, o.device, ctx.rng);
  if (!issued.ok()) {
    ctx.err << issued.error().detail << "\n";
    return kExitFailure;
  }
  const std::string& id = issued->id;
  const std::string& credential = issued->credential;
  ctx.out << "added device " << o.device << " (id " << id << ") to " << o.user << " in "
          << cfg->users_file_path() << "\n";
  tell_server(o, ctx);
  ctx.out << "Its credential is shown once, here; the server keeps only a hash. Revoke it "
             "alone with: qeli revoke-device "
          << o.user << " " << id << "\n";
  if (link) {
    print_link(o.link, plan, o.user, credential, ctx);
  } else {
    ctx.out << "user " << o.user << ", password (shown once): " << credential << "\n";
  }
  return kExitOk;
}

int list_devices(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg) return kExitFailure;
  if (!o.user.empty() && cfg->find_user(o.user) == nullptr) {
    ctx.err << "no user '" << o.user << "'\n";
    return kExitFailure;
  }
  std::size_t n = 0;
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& u : cfg->users) {
      if (!o.user.empty() && u.name != o.user) continue;
      for (const auto& d : u.devices)
        out.push_back({{"user", u.name}, {"id", d.id}, {"name", d.name}});
    }
    ctx.out << out.dump(2) << "\n";
    return kExitOk;
  }
  TextTable t({"USER", "DEVICE", "ID"});
  for (const auto& u : cfg->users) {
    if (!o.user.empty() && u.name != o.user) continue;
    for (const auto& d : u.devices) {
      t.row(u.name, d.name, d.id);
      ++n;
    }
  }
  t.print(ctx.out);
  ctx.out << n << " device(s)\n";
  return kExitOk;
}

int revoke_device(const Options& o, Context& ctx) {
  const auto cfg = load_server_for_provisioning(o.config, ctx);
  if (!cfg || editable_user(*cfg, o, ctx) == nullptr) return kExitFailure;
  if (auto st = config::remove_device(cfg->users_file_path(), o.user, o.device); !st.ok()) {
    ctx.err << st.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "revoked device " << o.device << " of " << o.user << "; its link no longer logs in\n";
  tell_server(o, ctx);
  return kExitOk;
}

// The options of an issued link besides --host (share-link, add-device).
void link_options(CLI::App* cmd, LinkOptions& l) {
  cmd->add_option("--link-profile,--profile", l.profile,
                  "Profile for the link (default: the user's first, else the first profile)");
  cmd->add_option("--label", l.label, "Link label (default: USER@PROFILE)");
  cmd->add_flag("--no-qr", l.no_qr, "Print the link without a QR code");
  cmd->add_flag("--qr-invert", l.qr_invert, "QR code for light-background terminals");
  cmd->add_option("--identity-dir", l.identity_dir, kIdentityDirHelp);
}

CLI::App* common(CLI::App* cmd, Options& o, bool user, bool socket) {
  if (user) cmd->add_option("user", o.user, "User name")->required();
  cmd->add_option("-c,--config", o.config, "Server config")->capture_default_str();
  if (socket) {
    cmd->add_option("--socket", o.socket, "Server control socket (to apply the change live)")
        ->capture_default_str();
  }
  return cmd;
}

}  // namespace

void register_users(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<Options>();
  auto* list =
      common(app.add_subcommand("list-users", "List the users and groups of the server's config"),
             *o, false, false);
  list->add_flag("--json", o->json, "Print JSON");
  list->callback([o, &ctx] { ctx.exit_code = list_users(*o, ctx); });

  auto* rm = common(
      app.add_subcommand("remove-user", "Remove a user from the users file; its live sessions end"),
      *o, true, true);
  rm->callback([o, &ctx] { ctx.exit_code = remove_user(*o, ctx); });

  auto* pw =
      common(app.add_subcommand("passwd",
                                "Give a user a new password (generated, or --password-stdin); its "
                                "live sessions end"),
             *o, true, true);
  auto* from_stdin = pw->add_flag("--password-stdin", o->password_stdin,
                                  "Read the password from the first line of standard input");
  pw->add_option("-p,--password", o->password, kPasswordFlagHelp)->excludes(from_stdin);
  pw->callback([o, &ctx] { ctx.exit_code = passwd(*o, ctx); });

  auto* share = common(
      app.add_subcommand("share-link",
                         "Issue a qeli:// link for a user: a new device credential (the password "
                         "and earlier links keep working), or with --reset a new password"),
      *o, true, true);
  share->add_option("--host", o->link.host,
                    "Address clients dial: HOST[:PORT] or [IPv6][:PORT] (default: [web] "
                    "public_host)");
  auto* reset =
      share->add_flag("--reset", o->reset,
                      "Give the user a new password instead (the old password and earlier "
                      "password links stop working, their sessions end; device links stay)");
  share->add_option("--device", o->device, "Name of the device credential (default: link-N)")
      ->excludes(reset);
  link_options(share, o->link);
  share->callback([o, &ctx] { ctx.exit_code = share_link(*o, ctx); });

  auto* routes =
      common(app.add_subcommand("show-routes",
                                "Show what the server pushes to a user (routes), routes into it "
                                "(client_subnet) and lets it reach (allowed_networks)"),
             *o, true, false);
  routes->callback([o, &ctx] { ctx.exit_code = show_routes(*o, ctx); });

  auto* add_dev =
      common(app.add_subcommand("add-device",
                                "Give one device of a user its own credential and link (no user "
                                "password in it; revoked alone with revoke-device)"),
             *o, true, true);
  add_dev->add_option("--name", o->device, "Device name (laptop, alice-phone, ...)")->required();
  add_dev->add_option(
      "--host", o->link.host,
      "Address clients dial: HOST[:PORT] or [IPv6][:PORT] (prints a link and QR code)");
  link_options(add_dev, o->link);
  add_dev->callback([o, &ctx] { ctx.exit_code = add_device(*o, ctx); });

  auto* list_dev = app.add_subcommand("list-devices", "List the devices of every user (or one)");
  list_dev->add_option("user", o->user, "Only this user");
  list_dev->add_option("-c,--config", o->config, "Server config")->capture_default_str();
  list_dev->add_flag("--json", o->json, "Print JSON");
  list_dev->callback([o, &ctx] { ctx.exit_code = list_devices(*o, ctx); });

  auto* revoke = common(app.add_subcommand("revoke-device",
                                           "Revoke one device's credential: its link stops "
                                           "working and its live sessions end"),
                        *o, true, true);
  revoke->add_option("id", o->device, "Device id (qeli list-devices)")->required();
  revoke->callback([o, &ctx] { ctx.exit_code = revoke_device(*o, ctx); });
}

}  // namespace qeli::cli
