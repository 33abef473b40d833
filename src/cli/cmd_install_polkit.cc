// qeli install-polkit [--unit U] [--user NAME] [--dry-run] — 0.7.16's command: a polkit
// rule /etc/polkit-1/rules.d/49-qeli.rules (0644) that lets one account manage one
// systemd unit (org.freedesktop.systemd1.manage-units: start, stop, restart, reload) and
// nothing else. 0.7.16's panel restarted its unit through it; ours never calls systemctl
// (it applies changes through the server's control socket), so the rule serves only the
// operator's own scripts — we write it because those scripts call this command.
// Both names go into JavaScript string literals: valid_service_unit / valid_account_name
// (systemd_unit.h) admit no quote, backslash or anything else that could end one.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/host_admin.h"
#include "cli/systemd_unit.h"
#include "sys/file_util.h"

namespace qeli::cli {
namespace {

constexpr const char* kRuleDir = "/etc/polkit-1/rules.d";
constexpr const char* kRulePath = "/etc/polkit-1/rules.d/49-qeli.rules";

struct Options {
  std::string unit = "qeli-server.service";
  std::string user = "qeli";
  bool dry_run = false;
  std::string root;
};

std::string render_rule(const std::string& user, const std::string& unit) {
  std::ostringstream s;
  s << "// Written by `qeli install-polkit`: the account " << user
    << " may start, stop, restart and\n// reload " << unit
    << " through systemd, and nothing else. qeli's web panel\n"
       "// does not need it (it applies changes through the server's control socket): it\n"
       "// is for scripts that run systemctl as "
    << user
    << ". Delete this file to revoke it.\n"
       "polkit.addRule(function(action, subject) {\n"
       "    if (action.id == \"org.freedesktop.systemd1.manage-units\" &&\n"
       "        action.lookup(\"unit\") == \""
    << unit
    << "\" &&\n"
       "        subject.user == \""
    << user
    << "\") {\n"
       "        return polkit.Result.YES;\n"
       "    }\n"
       "});\n";
  return s.str();
}

int run(const Options& o, Context& ctx) {
  if (!valid_service_unit(o.unit)) {
    ctx.err << "qeli install-polkit: invalid unit name '" << o.unit
            << "': a *.service name of ASCII letters, digits, _ - . @ :\n";
    return kExitUsage;
  }
  if (!valid_account_name(o.user)) {
    ctx.err << "qeli install-polkit: invalid user name '" << o.user
            << "': ASCII letters, digits, _ - . (first a letter, digit or _), at most 32\n";
    return kExitUsage;
  }
  const std::string rule = render_rule(o.user, o.unit);
  const char* note =
      "note: qeli's web panel does not need this rule: it applies changes through the "
      "server's control socket and never runs systemctl\n";
  if (o.dry_run) {
    ctx.out << "would write " << kRulePath << " (mode 0644):\n" << rule;
    ctx.err << note;
    return kExitOk;
  }
  if (!running_as_root(ctx, "install-polkit",
                       "install-polkit --unit " + o.unit + " --user " + o.user)) {
    return kExitFailure;
  }
  const std::string dir = under_root(o.root, kRuleDir);
  std::error_code ec;
  const bool had_polkit = std::filesystem::is_directory(under_root(o.root, "/etc/polkit-1"), ec);
  const bool had_dir = std::filesystem::is_directory(dir, ec);
  if (!had_dir) {
    if (auto st = sys::make_dirs(dir, 0755); !st.ok()) {
      ctx.err << "qeli install-polkit: " << st.error().detail << "\n";
      return kExitFailure;
    }
  }
  if (auto st = sys::write_file_atomic(under_root(o.root, kRulePath), rule, 0644); !st.ok()) {
    ctx.err << "qeli install-polkit: " << st.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "wrote " << kRulePath << ": " << o.user << " may start, stop, restart and reload "
          << o.unit << " (polkitd reads it by itself; nothing to reload)\n";
  if (!had_polkit) {
    ctx.out << "/etc/polkit-1 did not exist: polkit seems not installed; the rule applies once "
               "it is\n";
  }
  ctx.err << note;
  return kExitOk;
}

}  // namespace

void register_install_polkit(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "install-polkit",
      "Write the polkit rule /etc/polkit-1/rules.d/49-qeli.rules that lets one account "
      "manage one systemd unit (start, stop, restart, reload); the web panel does not need it");
  cmd->add_option("--unit", o->unit, "The unit the rule covers")->capture_default_str();
  cmd->add_option("--user", o->user, "The account it allows")->capture_default_str();
  cmd->add_flag("--dry-run", o->dry_run, "Print the rule; write nothing");
  cmd->add_option("--root", o->root, kRootOptionHelp)->group("");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o, ctx); });
}

}  // namespace qeli::cli
