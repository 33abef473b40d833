// qeli set-service-user qeli|root [--unit U] [--dry-run] — 0.7.16's command that picks the
// account the server's systemd unit runs as, through a drop-in
// /etc/systemd/system/<unit>.d/run-as.conf that survives package upgrades.
//
// Our unit starts as root and drops to `qeli` itself (`ExecStart=… --user qeli`,
// docs/OPERATIONS.md "Privileges"), so `root` writes a drop-in that:
//   1. resets ExecStart= to the unit's own line without `--user X` (read from the unit
//      file: /etc/systemd/system, /lib/systemd/system, /usr/lib/systemd/system);
//   2. sets User=root and Group=root (what a 0.7.16-style unit with User=qeli needs);
//   3. adds CAP_DAC_OVERRIDE to the bounding set: the server's state directory
//      (/var/lib/qeli/server) belongs to `qeli` with mode 0750, and root without that
//      capability could not open the usage database in it.
// `qeli` hands that directory back to the `qeli` account (files root made there while it
// ran as root) and then removes the drop-in: the unit's own ExecStart applies again.
// 0.7.16 gave /etc/qeli to qeli instead; ours stays root:qeli (the server only reads it).
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "base/result.h"
#include "cli/commands.h"
#include "cli/host_admin.h"
#include "cli/systemd_unit.h"
#include "sys/file_util.h"

namespace qeli::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUnitDirs[] = {"/etc/systemd/system", "/lib/systemd/system",
                                     "/usr/lib/systemd/system"};
constexpr const char* kStateDir = "/var/lib/qeli/server";
constexpr const char* kServiceAccount = "qeli";
constexpr std::size_t kMaxUnitFile = 1 << 20;

struct Options {
  std::string user;
  std::string unit = "qeli-server.service";
  bool dry_run = false;
  std::string root;
};

struct UnitFile {
  std::string name;  ///< the unit's own name (an alias resolved)
  std::string path;  ///< as shown to the operator (without --root)
  std::string text;
};

std::optional<std::string> read_text(const std::string& path) {
  auto r = sys::read_small_file(path, kMaxUnitFile);
  if (!r.ok()) return std::nullopt;
  return *r;
}

// Finds `name` in the unit directories, following an alias symlink to the unit it names;
// a name no file has may still be the Alias= of one of qeli's units (qeli.service before
// `systemctl enable` made its link). Error: one sentence for the operator.
Result<UnitFile, std::string> find_unit(const std::string& root, const std::string& name,
                                        int depth = 0) {
  for (const char* dir : kUnitDirs) {
    const std::string shown = std::string(dir) + "/" + name;
    const std::string path = under_root(root, shown);
    auto st = sys::inspect_path(path);
    if (!st.ok() || st->kind == sys::PathState::Kind::kAbsent) continue;
    if (st->kind == sys::PathState::Kind::kSymlink) {
      auto target = sys::read_link(path);
      if (!target.ok()) return fail(shown + ": " + target.error().detail);
      if (*target == "/dev/null") return fail(name + " is masked (" + shown + " → /dev/null)");
      const std::string real = fs::path(*target).filename().string();
      if (real != name && valid_service_unit(real) && depth < 4) {
        return find_unit(root, real, depth + 1);
      }
      // A link to a file of the same name elsewhere (systemctl link): read through it.
    }
    auto text = read_text(path);
    if (!text) return fail("cannot read " + shown);
    return UnitFile{name, shown, *text};
  }
  for (const char* dir : kUnitDirs) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(under_root(root, dir), ec)) {
      const std::string file = e.path().filename().string();
      if (file.rfind("qeli", 0) != 0 || !valid_service_unit(file) || file == name) continue;
      const auto text = read_text(e.path().string());
      if (!text) continue;
      for (const std::string& alias : unit_aliases(*text)) {
        if (alias == name) return UnitFile{file, std::string(dir) + "/" + file, *text};
      }
    }
  }
  return fail("no unit file " + name + " in /etc/systemd/system, /lib/systemd/system or " +
              "/usr/lib/systemd/system (is qeli installed? --unit names another unit)");
}

std::string dropin_path(const std::string& unit) {
  return "/etc/systemd/system/" + unit + ".d/run-as.conf";
}

std::string root_dropin(const UnitFile& unit, const std::string& exec) {
  std::ostringstream s;
  s << "# Written by `qeli set-service-user root`: " << unit.name
    << " runs as root and does not drop\n"
       "# its privileges, so a compromise of the server is a compromise of the host.\n"
       "# `qeli set-service-user qeli` removes this file (then restart the unit).\n"
       "# ExecStart is the unit file's own without --user ("
    << unit.path
    << ");\n"
       "# CAP_DAC_OVERRIDE lets root open the server state that belongs to the qeli\n"
       "# account ("
    << kStateDir
    << ").\n"
       "[Service]\n"
       "User=root\n"
       "Group=root\n"
       "ExecStart=\n"
       "ExecStart="
    << exec << "\nCapabilityBoundingSet=CAP_DAC_OVERRIDE\n";
  return s.str();
}

// Other drop-ins of the unit that set ExecStart= (`systemctl edit` writes override.conf,
// which sorts before run-as.conf: ours wins, and their options are lost).
void warn_other_exec_dropins(const Options& o, const UnitFile& unit, Context& ctx) {
  std::error_code ec;
  const std::string dir = "/etc/systemd/system/" + unit.name + ".d";
  for (const auto& e : fs::directory_iterator(under_root(o.root, dir), ec)) {
    const std::string file = e.path().filename().string();
    if (file == "run-as.conf" || e.path().extension() != ".conf") continue;
    const auto text = read_text(e.path().string());
    if (text && effective_exec_start("[Service]\nExecStart=\n" + *text).has_value()) {
      ctx.err << "note: " << dir << "/" << file
              << " sets ExecStart= too; run-as.conf comes after it and replaces it with "
                 "the unit file's own line\n";
    }
  }
}

int make_root(const Options& o, Context& ctx) {
  auto unit = find_unit(o.root, o.unit);
  if (!unit.ok()) {
    ctx.err << "qeli set-service-user: " << unit.error() << "\n";
    return kExitFailure;
  }
  const auto exec = effective_exec_start(unit->text);
  if (!exec || !runs_qeli_server(*exec)) {
    ctx.err << "qeli set-service-user: " << unit->path
            << " has no single ExecStart= that runs `qeli server`: not a qeli server unit, "
               "nothing written\n";
    return kExitFailure;
  }
  const std::string content = root_dropin(*unit, without_user_option(*exec));
  const std::string shown = dropin_path(unit->name);
  if (o.dry_run) {
    ctx.out << "would write " << shown << ":\n" << content;
    ctx.out << "then: systemctl daemon-reload; systemctl restart " << unit->name << "\n";
    return kExitOk;
  }
  warn_other_exec_dropins(o, *unit, ctx);
  const std::string path = under_root(o.root, shown);
  if (auto st = sys::make_dirs(sys::parent_dir(path), 0755); !st.ok()) {
    ctx.err << "qeli set-service-user: " << st.error().detail << "\n";
    return kExitFailure;
  }
  if (auto st = sys::write_file_atomic(path, content, 0644); !st.ok()) {
    ctx.err << "qeli set-service-user: " << st.error().detail << "\n";
    return kExitFailure;
  }
  ctx.out << "wrote " << shown << ": " << unit->name
          << " runs as root, without the privilege drop (a compromise of the server is a "
             "compromise of the host; `qeli set-service-user qeli` undoes it)\n";
  if (!reload_systemd(o.root, ctx)) return kExitFailure;
  ctx.out << "Run `systemctl restart " << unit->name << "` to apply.\n";
  return kExitOk;
}

// The service account's uid and gid from the passwd file under --root, or from NSS on
// the live system when that file does not list it.
std::optional<std::pair<uid_t, gid_t>> service_account(const std::string& root) {
  if (const auto text = read_text(under_root(root, "/etc/passwd"))) {
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
      // name:password:uid:gid:...
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, ':') && f.size() < 4;) f.push_back(x);
      if (f.size() < 4 || f[0] != kServiceAccount) continue;
      try {
        return std::pair{static_cast<uid_t>(std::stoul(f[2])),
                         static_cast<gid_t>(std::stoul(f[3]))};
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  if (!is_live_root(root)) return std::nullopt;
  if (const passwd* pw = ::getpwnam(kServiceAccount)) return std::pair{pw->pw_uid, pw->pw_gid};
  return std::nullopt;
}

// chown -R qeli:qeli of the state directory, never through a symbolic link.
bool hand_back_state(const Options& o, Context& ctx) {
  const std::string dir = under_root(o.root, kStateDir);
  std::error_code ec;
  if (fs::symlink_status(dir, ec).type() != fs::file_type::directory) return true;  // none
  const auto account = service_account(o.root);
  if (!account) {
    ctx.err << "note: no `" << kServiceAccount << "` account: " << kStateDir << " left as it is\n";
    return true;
  }
  if (o.dry_run) {
    ctx.out << "would give " << kStateDir << " and everything in it to " << kServiceAccount << ":"
            << kServiceAccount << "\n";
    return true;
  }
  auto give = [&](const fs::path& p) {
    if (::lchown(p.c_str(), account->first, account->second) == 0) return true;
    ctx.err << "qeli set-service-user: chown " << p.string() << ": " << std::strerror(errno)
            << "; the drop-in stays (the unit keeps running as root)\n";
    return false;
  };
  if (!give(dir)) return false;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!give(it->path())) return false;
  }
  if (ec) {
    ctx.err << "qeli set-service-user: " << dir << ": " << ec.message() << "\n";
    return false;
  }
  ctx.out << "gave " << kStateDir << " back to " << kServiceAccount << ":" << kServiceAccount
          << "\n";
  return true;
}

int make_qeli(const Options& o, Context& ctx) {
  // The drop-in lives under the unit's own name; under an alias's name only if someone
  // (0.7.16, with a unit file of that name) wrote it there.
  std::vector<std::string> names{o.unit};
  if (auto unit = find_unit(o.root, o.unit); unit.ok() && unit->name != o.unit) {
    names.insert(names.begin(), unit->name);
  }
  const std::string& unit_name = names.front();
  std::vector<std::string> present;
  for (const std::string& name : names) {
    const auto st = sys::inspect_path(under_root(o.root, dropin_path(name)));
    if (st.ok() && st->kind != sys::PathState::Kind::kAbsent) present.push_back(dropin_path(name));
  }
  if (present.empty()) {
    ctx.out << "no " << dropin_path(unit_name) << ": " << unit_name
            << " already runs as its unit file says; nothing to change\n";
    return kExitOk;
  }
  // First the state, then the drop-in: if the chown fails, the unit keeps the setup that
  // works (0.7.16's order).
  if (!hand_back_state(o, ctx)) return kExitFailure;
  for (const std::string& shown : present) {
    if (o.dry_run) {
      ctx.out << "would remove " << shown << "\n";
      continue;
    }
    const std::string path = under_root(o.root, shown);
    if (auto rm = sys::remove_file(path); !rm.ok()) {
      ctx.err << "qeli set-service-user: " << rm.error().detail << "\n";
      return kExitFailure;
    }
    ::rmdir(sys::parent_dir(path).c_str());  // only if nothing else is in it
    ctx.out << "removed " << shown << ": " << unit_name
            << " runs as its unit file says again (ours: starts as root, then drops to qeli)\n";
  }
  if (o.dry_run) {
    ctx.out << "then: systemctl daemon-reload; systemctl restart " << unit_name << "\n";
    return kExitOk;
  }
  if (!reload_systemd(o.root, ctx)) return kExitFailure;
  ctx.out << "Run `systemctl restart " << unit_name << "` to apply.\n";
  return kExitOk;
}

int run(const Options& o, Context& ctx) {
  if (!valid_service_unit(o.unit)) {
    ctx.err << "qeli set-service-user: invalid unit name '" << o.unit
            << "': a *.service name of ASCII letters, digits, _ - . @ :\n";
    return kExitUsage;
  }
  if (!o.dry_run && !running_as_root(ctx, "set-service-user",
                                     "set-service-user " + o.user + " --unit " + o.unit)) {
    return kExitFailure;
  }
  return o.user == "root" ? make_root(o, ctx) : make_qeli(o, ctx);
}

}  // namespace

void register_set_service_user(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "set-service-user",
      "Choose the account the server's systemd unit runs as: `root` writes the drop-in "
      "/etc/systemd/system/UNIT.d/run-as.conf (ExecStart without --user, User=root), `qeli` "
      "removes it (the unit's own privilege drop to qeli); then daemon-reload");
  cmd->add_option("user", o->user, "qeli (the unit drops to qeli itself) or root")
      ->required()
      ->check(CLI::IsMember({"qeli", "root"}));
  cmd->add_option("--unit", o->unit, "The server's systemd unit (qeli.service is its alias)")
      ->capture_default_str();
  cmd->add_flag("--dry-run", o->dry_run, "Print what would change; change nothing");
  cmd->add_option("--root", o->root, kRootOptionHelp)->group("");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o, ctx); });
}

}  // namespace qeli::cli
