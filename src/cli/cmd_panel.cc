// qeli panel [-c FILE] [--socket PATH] — the web panel in the foreground (panel/panel_run.h);
// qeli set-web-password [--username NAME] [--password-stdin | --password P] [--no-enable]
// — the panel's admin credential in the server config's [web] section (0.7.16's command).
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/provisioning.h"
#include "config/users_file.h"
#include "crypto/argon2id.h"
#include "panel/panel_run.h"

namespace qeli::cli {
namespace {

struct WebPasswordOptions {
  std::string config = "/etc/qeli/server.conf";
  std::string socket = control::kDefaultSocketPath;
  std::string username = "admin";
  std::string password;
  bool password_stdin = false;
  bool no_enable = false;
};

void set_web_password(const WebPasswordOptions& o, Context& ctx) {
  std::string password = o.password;
  const bool generated = password.empty() && !o.password_stdin;
  if (o.password_stdin) {
    std::getline(ctx.in, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.empty()) {
      ctx.err << "--password-stdin: no password on standard input\n";
      ctx.exit_code = kExitUsage;
      return;
    }
  } else if (generated) {
    password = generate_password(ctx.rng);
  }
  const auto hash = crypto::argon2id_hash(password);
  if (!hash) {
    ctx.err << "Argon2id hashing failed (out of memory?)\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  if (auto st = config::set_web_password(o.config, o.username, *hash, !o.no_enable); !st.ok()) {
    ctx.err << "qeli: " << st.error().detail << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  ctx.out << "[web] username = " << o.username << " and its password hash written to " << o.config
          << (o.no_enable ? "" : " (enabled = true)") << "\n";
  if (generated) ctx.out << "password: " << password << "\n(shown once; it is not stored)\n";
  if (auto r = reload_server(o.socket, ctx)) {
    ctx.out << (r->ok ? "the running server reloaded: the panel restarts with the new password\n"
                      : "the running server refused the reload (run `qeli check-config`)\n");
  } else {
    ctx.out << "no server answered on " << o.socket << ": it applies at the next start\n";
  }
  ctx.exit_code = kExitOk;
}

}  // namespace

void register_panel(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<panel::PanelOptions>();
  auto* cmd = app.add_subcommand(
      "panel",
      "Run the web panel in the foreground ([web] of the server config; `qeli server` "
      "starts it itself when [web] enabled = true)");
  cmd->add_option("-c,--config", opts->config_path, "Server config file")->capture_default_str();
  cmd->add_option("--socket", opts->control_socket, "The server's control socket")
      ->capture_default_str();
  cmd->add_option("--identity-dir", opts->identity_dir,
                  "Directory of the session key web-session.key (default: the config's "
                  "auth.identity_dir)");
  cmd->add_option("--user", opts->run_as, "After binding its port, become this user");
  cmd->add_option("--session-key-fd", opts->session_key_fd,
                  "Read the 32-byte session key from this descriptor (used by qeli server)");
  cmd->callback([opts, &ctx] { ctx.exit_code = panel::run_panel(*opts); });

  auto w = std::make_shared<WebPasswordOptions>();
  auto* pw = app.add_subcommand(
      "set-web-password",
      "Set the web panel's admin name and password (Argon2id hash in [web]; a random password "
      "is generated and printed once unless one is given)");
  pw->add_option("-c,--config", w->config, "Server config file")->capture_default_str();
  pw->add_option("--socket", w->socket, "Server control socket (to apply it live)")
      ->capture_default_str();
  pw->add_option("--username", w->username, "The admin's name")->capture_default_str();
  auto* from_stdin =
      pw->add_flag("--password-stdin", w->password_stdin, "Read the password from standard input");
  pw->add_option("--password", w->password,
                 "The password (visible to other local users in the process list: prefer "
                 "--password-stdin)")
      ->excludes(from_stdin);
  pw->add_flag("--no-enable", w->no_enable, "Do not set enabled = true");
  pw->callback([w, &ctx] { set_web_password(*w, ctx); });
}

}  // namespace qeli::cli
