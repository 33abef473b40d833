#include "cli/host_admin.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <ostream>

extern char** environ;

namespace qeli::cli {

std::string under_root(const std::string& root, std::string_view path) {
  if (is_live_root(root)) return std::string(path);
  std::string out = root;
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out.append(path);
}

bool is_live_root(const std::string& root) { return root.empty() || root == "/"; }

bool running_as_root(Context& ctx, std::string_view command, std::string_view retry) {
  const uid_t euid = ctx.euid ? *ctx.euid : ::geteuid();
  if (euid == 0) return true;
  ctx.err << "qeli " << command << ": must run as root (it changes system files); retry with:\n"
          << "  sudo qeli " << retry << "\n(--dry-run shows what it would do, as any user)\n";
  return false;
}

bool reload_systemd(const std::string& root, Context& ctx) {
  if (!is_live_root(root)) {
    ctx.out << "--root " << root << ": no daemon-reload (systemd reads the change when that "
            << "system boots)\n";
    return true;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory("/run/systemd/system", ec)) {
    ctx.out << "systemd is not running here (no /run/systemd/system): no daemon-reload; it "
               "reads the change when it starts\n";
    return true;
  }
  const char* argv[] = {"systemctl", "daemon-reload", nullptr};
  pid_t pid = -1;
  if (::posix_spawnp(&pid, "systemctl", nullptr, nullptr, const_cast<char* const*>(argv),
                     environ) != 0) {
    ctx.err << "qeli: cannot run systemctl daemon-reload; run it yourself\n";
    return false;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ctx.err << "qeli: systemctl daemon-reload failed; run it yourself\n";
    return false;
  }
  ctx.out << "systemctl daemon-reload: done\n";
  return true;
}

}  // namespace qeli::cli
