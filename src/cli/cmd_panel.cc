// qeli panel [-c FILE] [--socket PATH] — the web panel in the foreground (panel/panel_run.h);
// qeli set-web-password [--username NAME] [--password-stdin | --password P] [--no-enable]
// — the panel's admin credential in the server config's [web] section (0.7.16's command);
// qeli set-web-totp [--disable] — the admin's second factor (RFC 6238) in [web] totp_secret.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/commands.h"
#include "cli/control_call.h"
#include "cli/provisioning.h"
#include "cli/terminal_qr.h"
#include "config/server_config.h"
#include "config/users_file.h"
#include "crypto/argon2id.h"
#include "crypto/base32.h"
#include "crypto/totp.h"
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
  bool generated = false;
  const auto chosen = choose_password(o.password, o.password_stdin, ctx, generated);
  if (!chosen) {
    ctx.exit_code = kExitUsage;
    return;
  }
  const std::string& password = *chosen;
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

struct WebTotpOptions {
  std::string config = "/etc/qeli/server.conf";
  std::string socket = control::kDefaultSocketPath;
  bool disable = false;
  bool no_qr = false;
  bool qr_invert = false;
};

// The label an authenticator app shows: "qeli <public_host or host name>:<admin>".
std::string totp_issuer(const config::WebConfig& web) {
  std::string host = web.public_host;
  if (host.empty()) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) host = name;
  }
  return host.empty() ? "qeli" : "qeli " + host;
}

void set_web_totp(const WebTotpOptions& o, Context& ctx) {
  const config::ServerLoad load = config::load_server_config(o.config);
  if (!load.ok()) {
    // A [web] the loader could not read (a repeated section, a bad line) must not be
    // mistaken for one without a secret.
    ctx.err << "qeli: " << o.config << " has errors (run `qeli check-config`); not changed\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  const config::WebConfig& web = load.config.web;
  if (o.disable && web.totp_secret.empty()) {
    ctx.out << "no [web] totp_secret in " << o.config << ": nothing to remove\n";
    ctx.exit_code = kExitOk;
    return;
  }
  if (!o.disable && web.password_hash.empty()) {
    ctx.err << "qeli: " << o.config
            << ": [web] has no password_hash: set the panel's admin first (`qeli "
               "set-web-password`); a second factor needs a first\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  std::string secret;
  Bytes key(crypto::kTotpSecretBytes);
  if (!o.disable) {
    ctx.rng.fill(key);
    secret = crypto::base32_encode(key);
  }
  if (auto st = config::set_web_totp(o.config, secret); !st.ok()) {
    ctx.err << "qeli: " << st.error().detail << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  if (o.disable) {
    ctx.out << "[web] totp_secret removed from " << o.config
            << ": the panel asks for the password only\n";
  } else {
    const std::string uri = crypto::otpauth_uri(totp_issuer(web), web.username, key);
    ctx.out << "[web] totp_secret written to " << o.config
            << ": from now on the panel's login also asks for the 6-digit code.\n"
            << "Add it to an authenticator app (shown once; anyone who has it holds your "
               "second factor):\n  secret: "
            << secret << "\n  " << uri << "\n";
    if (!o.no_qr) {
      if (const auto m = qr::encode(uri)) ctx.out << "\n" << render_qr(*m, o.qr_invert);
    }
  }
  if (auto r = reload_server(o.socket, ctx)) {
    ctx.out << (r->ok ? "the running server reloaded: the panel restarts (every admin session "
                        "ends)\n"
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
  pw->add_option("-p,--password", w->password, kPasswordFlagHelp)->excludes(from_stdin);
  pw->add_flag("--no-enable", w->no_enable, "Do not set enabled = true");
  pw->callback([w, &ctx] { set_web_password(*w, ctx); });

  auto t = std::make_shared<WebTotpOptions>();
  auto* totp = app.add_subcommand(
      "set-web-totp",
      "Turn on the web panel's second factor: a new TOTP secret (RFC 6238, 6 digits, 30 s) "
      "in [web] totp_secret, printed once as an otpauth:// link and QR code for an "
      "authenticator app; --disable removes it");
  totp->add_option("-c,--config", t->config, "Server config file")->capture_default_str();
  totp->add_option("--socket", t->socket, "Server control socket (to apply it live)")
      ->capture_default_str();
  totp->add_flag("--disable", t->disable, "Remove the second factor (password only)");
  totp->add_flag("--no-qr", t->no_qr, "Print the link without a QR code");
  totp->add_flag("--qr-invert", t->qr_invert, "Draw the QR code for a light background");
  totp->callback([t, &ctx] { set_web_totp(*t, ctx); });
}

}  // namespace qeli::cli
